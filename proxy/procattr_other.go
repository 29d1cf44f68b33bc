//go:build !linux

package proxy

import "syscall"

// childProcAttr puts a child in its own process group, so it is ended as
// a group.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
