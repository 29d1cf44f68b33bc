package main

import "fmt"

func main() {
	small := Circle{R: 1}
	big := Circle{R: 10}
	fmt.Println(Area(small), Area(big))
	var label string = Area(big) // deliberate error: Area returns a float64
	fmt.Println(label)
}
