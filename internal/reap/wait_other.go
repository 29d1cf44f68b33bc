//go:build !linux

package reap

import (
	"errors"
	"os/exec"
	"syscall"
)

// waitErr turns exec.Cmd.Wait's result into Wait's.
func waitErr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			return exitErr(ws)
		}
	}
	return err
}
