echo 'hi'
