puts 'hi'
