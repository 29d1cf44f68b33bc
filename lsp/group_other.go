//go:build !linux

package lsp

import (
	"syscall"
	"time"
)

// serverProcAttr puts a server in its own process group, so it is ended
// as a group.
func serverProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// awaitGroup is a no-op where /proc and pidfds are not available.
func awaitGroup(pgid int, limit time.Duration) {}
