println("hi")
