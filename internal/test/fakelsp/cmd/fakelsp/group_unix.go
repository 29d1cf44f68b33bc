//go:build unix

package main

import "syscall"

// processGroup returns the server's process group id.
func processGroup() int {
	g, _ := syscall.Getpgid(0)
	return g
}
