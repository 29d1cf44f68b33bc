//go:build !linux

package lsp

import "time"

// awaitGroup is a no-op where /proc and pidfds are not available.
func awaitGroup(pgid int, limit time.Duration) {}
