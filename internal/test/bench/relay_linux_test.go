package bench

import (
	"os/exec"
	"syscall"
)

// relayGroup starts the relay in its own group, killed with the benchmark
// if that dies first (Pdeathsig).
func relayGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
