// Package proctest finds processes left running by a test, by reading the
// process table (/proc, through internal/procfs).
package proctest

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// Process is one entry of the process table.
type Process struct {
	Pid     int
	State   string
	Cmdline string
	// PPid is the parent's pid (set by Descendants).
	PPid int
}

func (p Process) String() string { return fmt.Sprintf("pid %d (%s): %s", p.Pid, p.State, p.Cmdline) }

// Matching lists the live processes (zombies excluded) whose command line
// contains substr, except the calling process.
func Matching(substr string) ([]Process, error) {
	procs, err := procfs.Table()
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, pid := range slices.Sorted(maps.Keys(procs)) {
		p := procs[pid]
		if pid == os.Getpid() || p.Gone() {
			continue
		}
		cmd := cmdline(pid)
		if cmd == "" || !strings.Contains(cmd, substr) {
			continue
		}
		out = append(out, Process{Pid: pid, State: string(p.State), Cmdline: cmd})
	}
	return out, nil
}

// cmdline is pid's command line, its arguments joined by spaces ("" when
// it cannot be read).
func cmdline(pid int) string { return strings.Join(procfs.Cmdline(pid), " ") }

// State returns the one-letter state of pid from /proc/PID/stat (R, S,
// Z, …), or "" when there is no such process.
func State(pid int) string {
	p, ok := procfs.ReadStat(pid)
	if !ok {
		return ""
	}
	return string(p.State)
}

// NoLeftovers fails t if a process whose command line contains substr is
// still alive. A process already killed may take a moment to die: each one
// found is awaited (through a pidfd, not by polling) for up to grace.
func NoLeftovers(t testing.TB, substr string, grace time.Duration) {
	t.Helper()
	procs, err := Matching(substr)
	if err != nil {
		t.Fatal(err)
	}
	var alive []Process
	for _, p := range procs {
		if !awaitExit(p.Pid, grace) {
			alive = append(alive, p)
		}
	}
	for _, p := range alive {
		t.Errorf("process left running: %v", p)
	}
}

// gone reports whether a process in state st (from /proc/PID/stat, "" for
// no such process) has ended.
func gone(st string) bool { return st == "" || st == "Z" || st == "X" }

// Descendants lists the live processes (zombies excluded) below pid: its
// children, theirs, and so on, in no particular order. A test reads from
// it which servers its own process started, whatever other programs run
// the same servers on the machine.
func Descendants(pid int) ([]Process, error) {
	procs, err := procfs.Table()
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, p := range procfs.Descendants(procs, pid) {
		if !p.Gone() {
			out = append(out, Process{Pid: p.Pid, State: string(p.State), Cmdline: cmdline(p.Pid), PPid: p.PPid})
		}
	}
	return out, nil
}
