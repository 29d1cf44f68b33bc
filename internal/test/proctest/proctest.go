// Package proctest finds processes left running by a test, by reading the
// process table (/proc).
package proctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process is one entry of the process table.
type Process struct {
	Pid     int
	State   string
	Cmdline string
}

func (p Process) String() string { return fmt.Sprintf("pid %d (%s): %s", p.Pid, p.State, p.Cmdline) }

// Matching lists the live processes (zombies excluded) whose command line
// contains substr, except the calling process.
func Matching(substr string) ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	var out []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd := cmdline(pid)
		if cmd == "" || !strings.Contains(cmd, substr) {
			continue
		}
		st := State(pid)
		if gone(st) {
			continue
		}
		out = append(out, Process{Pid: pid, State: st, Cmdline: cmd})
	}
	return out, nil
}

// cmdline is pid's command line, its arguments joined by spaces ("" when
// it cannot be read).
func cmdline(pid int) string {
	cl, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	return strings.TrimRight(strings.ReplaceAll(string(cl), "\x00", " "), " ")
}

// State returns the one-letter state of pid from /proc/PID/stat (R, S,
// Z, …), or "" when there is no such process.
func State(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
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
