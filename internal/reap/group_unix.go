//go:build unix && !linux

package reap

import (
	"errors"
	"os/exec"
	"syscall"
)

// Start starts cmd (made by exec.Command, not yet started; no SysProcAttr
// of its own) leading a process group of its own. Without a subreaper
// there is no guard: Kill and the child's exit end its group, and a
// process that left the group, or acp-lsp killed outright, escapes.
func Start(cmd *exec.Cmd) (*Child, error) {
	if cmd.SysProcAttr != nil {
		return nil, errors.New("reap: a command with a SysProcAttr cannot be started in a group")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	c := &Child{
		pid: pid, exited: exited, gone: exited,
		term: func() { _ = syscall.Kill(-pid, syscall.SIGTERM) },
		kill: func() { _ = syscall.Kill(-pid, syscall.SIGKILL) },
	}
	go func() {
		c.err = waitErr(cmd.Wait())
		// What the child started and left in its group ends with it.
		c.kill()
		close(c.exited)
	}()
	return c, nil
}
