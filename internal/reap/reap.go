// Package reap starts the child processes of acp-lsp (the agent, external
// proxies, language servers) so that each ends with acp-lsp as a tree:
// the child and everything it started, also what left its process group
// (a daemon that called setsid), also when acp-lsp is killed outright.
//
// On Linux and macOS the child is started through a guard: acp-lsp's own
// binary run again (recognised by its argv[0] before main runs) that
// starts the child, leading a process group of its own, with acp-lsp's
// stdio for it, which it then lets go of. When acp-lsp asks for the end,
// or dies (the guard sees the end of a socket only acp-lsp holds), the
// guard ends the child's tree until none of it is left, and it reports
// the child's pid and exit status over that socket. On Linux the guard is
// a child subreaper, so every orphan of the tree is reparented to it, and
// it kills its descendants, also what left the group (a daemon that
// called setsid). macOS has no subreaper: there the guard ends the
// child's process group (listed by sysctl, each exit awaited by kqueue),
// and what left the group escapes. The guard's logic is one for both; the
// platform parts are a hold (guard_linux.go, guard_darwin.go). On Windows
// the child runs in a job object of its own, which holds everything it
// starts and is killed when its last handle, acp-lsp's, closes. On other
// Unix systems the child leads a process group of its own and only that
// group is ended, by acp-lsp itself (no guard there).
package reap

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// GuardName is the guard's argv[0]: the binary run again with it is the
// guard. Its command line reads "acp-lsp-guard PATH ARGV..." (the process
// table names it so; the bench tells it from the server it guards).
const GuardName = "acp-lsp-guard"

// Child is a started child process and its tree.
type Child struct {
	pid    int
	exited chan struct{}
	err    error // how the child ended, set before exited is closed
	gone   chan struct{}
	term   func()
	kill   func()
}

// Pid returns the child's pid, also its process group id.
func (c *Child) Pid() int { return c.pid }

// Exited is closed once the child itself has exited (what it started may
// still run: Kill ends it).
func (c *Child) Exited() <-chan struct{} { return c.exited }

// Wait waits until the child has exited and says how: nil for status 0,
// an *ExitError for another status or a signal.
func (c *Child) Wait() error {
	<-c.exited
	return c.err
}

// Terminate sends SIGTERM to the child's process group (on Windows, which
// has no signals, it kills the job).
func (c *Child) Terminate() { c.term() }

// Kill ends the child's whole tree at once (SIGKILL); Gone tells when it
// has. It may be called more than once, also after the child exited. On
// Linux the tree is ended only by Kill (or acp-lsp's end), so every Child
// must be killed in the end.
func (c *Child) Kill() { c.kill() }

// Gone is closed once the child has exited and its tree has ended: on
// Linux and macOS after Kill, elsewhere with the child.
func (c *Child) Gone() <-chan struct{} { return c.gone }

// ExitError is how a child ended other than with status 0.
type ExitError struct {
	Status syscall.WaitStatus
}

// Error says it as os.ProcessState does ("exit status 3", "signal: killed").
func (e *ExitError) Error() string {
	var s string
	switch {
	case e.Status.Signaled():
		s = "signal: " + e.Status.Signal().String()
	default:
		s = fmt.Sprintf("exit status %d", e.Status.ExitStatus())
	}
	if e.Status.CoreDump() {
		s += " (core dumped)"
	}
	return s
}

// exitErr turns a wait status into Wait's result.
func exitErr(ws syscall.WaitStatus) error {
	if !ws.Signaled() && ws.ExitStatus() == 0 {
		return nil
	}
	return &ExitError{Status: ws}
}

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
