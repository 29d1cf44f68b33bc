object Main extends App
