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
	// PPid is the parent's pid (set by Descendants).
	PPid int
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

// Descendants lists the live processes (zombies excluded) below pid: its
// children, theirs, and so on, in no particular order. A test reads from
// it which servers its own process started, whatever other programs run
// the same servers on the machine.
func Descendants(pid int) ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(p); pp > 0 {
			parent[p] = pp
		}
	}
	var out []Process
	for p := range parent {
		for a := parent[p]; a > 0; a = parent[a] {
			if a == pid {
				if st := State(p); !gone(st) {
					out = append(out, Process{Pid: p, State: st, Cmdline: cmdline(p), PPid: parent[p]})
				}
				break
			}
		}
	}
	return out, nil
}

// ppid returns pid's parent from /proc/PID/stat (0 when unknown).
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// RSS returns pid's resident set size in bytes from /proc/PID/statm (0
// when unknown).
func RSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}
