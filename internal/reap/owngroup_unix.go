//go:build unix

package reap

import (
	"os"
	"os/exec"
	"syscall"
)

// OwnGroup makes cmd (not yet started, no SysProcAttr of its own) lead a
// process group of its own, so that KillGroup ends what it starts too and
// a Ctrl-C in a terminal does not reach it.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// TermGroup sends SIGTERM to the process group p leads.
func TermGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// KillGroup kills the process group p leads (SIGKILL).
func KillGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
