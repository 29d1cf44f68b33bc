// Package main is the sample workspace of `acp-lsp demo`: two shapes and
// one deliberate type error in main.go for the diagnostics step.
package main

import "math"

// Circle is a circle of radius R.
type Circle struct {
	R float64
}

// Area returns the area of the circle c.
func Area(c Circle) float64 {
	return math.Pi * c.R * c.R
}
