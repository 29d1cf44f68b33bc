package reap

import (
	"os"
	"os/exec"
)

// OwnGroup leaves cmd as it is: Windows has no process groups as Unix has
// them, so KillGroup ends the process alone and what it started may
// outlive it. Start (a job object) is what holds a tree there.
func OwnGroup(*exec.Cmd) {}

// TermGroup kills p: Windows has no SIGTERM to ask a process to end.
func TermGroup(p *os.Process) error { return KillGroup(p) }

// KillGroup kills p alone (see OwnGroup), through its handle, so a pid
// reused after p exited is never hit.
func KillGroup(p *os.Process) error { return p.Kill() }
