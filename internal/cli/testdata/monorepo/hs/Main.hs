main :: IO ()
main = pure ()
