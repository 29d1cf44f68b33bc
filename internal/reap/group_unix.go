//go:build unix && !linux && !darwin

package reap

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Start starts cmd (made by exec.Command, not yet started; no SysProcAttr
// of its own) leading a process group of its own. There is no guard on
// these systems (Linux and macOS have one): Kill and the child's exit end
// its group, and a process that left the group, or acp-lsp killed
// outright, escapes. Gone is closed once the group has been killed (its
// members cannot be listed here, so it is killed once).
func Start(cmd *exec.Cmd) (*Child, error) {
	if cmd.SysProcAttr != nil {
		return nil, errors.New("reap: a command with a SysProcAttr cannot be started in a group")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	c := &Child{
		pid: pid, exited: make(chan struct{}), gone: make(chan struct{}),
		term: func() { _ = syscall.Kill(-pid, syscall.SIGTERM) },
		kill: func() { _ = syscall.Kill(-pid, syscall.SIGKILL) },
	}
	go func() {
		c.err = waitErr(cmd.Wait())
		close(c.exited)
		// What the child started and left in its group ends with it.
		endGroup(pid, time.Now().Add(endLimit), groupMembers, awaitExits)
		close(c.gone)
	}()
	return c, nil
}
