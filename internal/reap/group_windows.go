package reap

import "os/exec"

// Start starts cmd (made by exec.Command, not yet started). Windows has
// neither process groups as Unix has them nor a subreaper: Terminate and
// Kill end the child alone.
func Start(cmd *exec.Cmd) (*Child, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	c := &Child{pid: cmd.Process.Pid, exited: exited, gone: exited}
	c.term = func() { _ = cmd.Process.Kill() }
	c.kill = c.term
	go func() {
		c.err = waitErr(cmd.Wait())
		close(c.exited)
	}()
	return c, nil
}
