package main

import "fmt"

// greet returns a greeting.
func greet(name string) string {
	return "hello " + name
}

func main() {
	fmt.Println(greet("日本語😀"), greet("x"))
	fmt.Println(greet("x"), undefinedVar)
}
