package main

import "fmt"

// greet returns a greeting.
func greet(name string) string {
	return "hello " + name
}

func main() {
	s := "日本語😀"; fmt.Println(greet(s))
	fmt.Println(greet("x"), undefinedVar)
}
