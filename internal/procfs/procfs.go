// Package procfs reads Linux's process table (/proc): one process's stat
// line (ParseStat, ReadStat), the whole table (Table), a process's
// descendants in it (Descendants), a process's resident set (RSS) and
// command line (Cmdline). The guard of internal/reap kills its tree from
// it; the test harnesses find what a test left running and what the
// servers use. Where there is no /proc (macOS, Windows, the BSDs) the
// reads fail: Table returns an error, ReadStat false, RSS 0, Cmdline nil.
package procfs

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// TicksPerSecond is USER_HZ, the unit of Stat.CPU and Stat.Start: 100 on
// every Linux platform Go supports.
const TicksPerSecond = 100

// Stat is what the repository reads of a process's /proc/PID/stat (the
// fields as proc(5) numbers them).
type Stat struct {
	Pid  int    // (1)
	Comm string // (2) the command name, without its parentheses
	// State is R, S, D, Z (zombie), X (dead), … (3)
	State byte
	PPid  int  // (4)
	Pgrp  int  // (5) the process group
	Flags uint // (9) the kernel's PF_* task flags
	// CPU is utime+stime (14, 15), in clock ticks (TicksPerSecond).
	CPU int64
	// Start is starttime (22), clock ticks after boot: with the pid, it
	// names the process (a pid is reused, a pid and start are not).
	Start uint64
	// RSSPages is the resident set (24), in pages: the kernel's quick
	// count, which may lag by a per-CPU batch (RSS reads the exact one).
	RSSPages int64
}

// Gone reports whether the process has ended: a zombie its parent has
// yet to reap, or dead.
func (s Stat) Gone() bool { return s.State == 'Z' || s.State == 'X' }

// ParseStat reads a /proc/PID/stat line. The command name (in
// parentheses) may hold anything, parentheses, spaces and newlines
// included: it runs from the first '(' to the last ')', and the fields
// are counted from there. A line without the fields up to the resident
// set is refused (the kernel always writes them all).
func ParseStat(line []byte) (Stat, bool) {
	s := string(line)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open {
		return Stat{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return Stat{}, false
	}
	// f[0] is field 3 (state): field n is f[n-3].
	f := strings.Fields(s[end+1:])
	if len(f) < 22 || len(f[0]) != 1 {
		return Stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	flags, err3 := strconv.ParseUint(f[6], 10, 64)
	ut, err4 := strconv.ParseInt(f[11], 10, 64)
	st, err5 := strconv.ParseInt(f[12], 10, 64)
	start, err6 := strconv.ParseUint(f[19], 10, 64)
	rss, err7 := strconv.ParseInt(f[21], 10, 64)
	for _, err := range []error{err1, err2, err3, err4, err5, err6, err7} {
		if err != nil {
			return Stat{}, false
		}
	}
	return Stat{
		Pid: pid, Comm: s[open+1 : end], State: f[0][0], PPid: ppid, Pgrp: pgrp,
		Flags: uint(flags), CPU: ut + st, Start: start, RSSPages: rss,
	}, true
}

// ReadStat reads pid's /proc/PID/stat (false when there is no such
// process, or no /proc).
func ReadStat(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	return ParseStat(b)
}

// Table reads the stat of every process, by pid. A process that ends
// while the table is read is left out.
func Table() (map[int]Stat, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	procs := make(map[int]Stat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := ReadStat(pid); ok {
			procs[pid] = p
		}
	}
	return procs, nil
}

// Descendants lists the processes of procs below root (root excluded):
// its children, theirs, and so on, each parent before its children, and
// each once, also where pids reused while the table was read make a
// cycle. Ended processes (Gone) are listed too.
func Descendants(procs map[int]Stat, root int) []Stat {
	kids := map[int][]Stat{}
	for _, p := range procs {
		kids[p.PPid] = append(kids[p.PPid], p)
	}
	seen := map[int]bool{root: true}
	var out []Stat
	for queue := kids[root]; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if seen[p.Pid] {
			continue
		}
		seen[p.Pid] = true
		out = append(out, p)
		queue = append(queue, kids[p.Pid]...)
	}
	return out
}

// RSS returns pid's resident set in bytes (0 when unknown), from
// /proc/PID/statm: the kernel sums its per-CPU counts there, where stat's
// RSSPages may lag by a batch of them.
func RSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	pages, _ := parseStatm(b)
	return pages * int64(os.Getpagesize())
}

// parseStatm reads the resident pages, the second field of a
// /proc/PID/statm line.
func parseStatm(line []byte) (int64, bool) {
	f := strings.Fields(string(line))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages, true
}

// Cmdline returns pid's arguments (nil when it is gone, or has none: a
// kernel thread).
func Cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// MemTotal returns the machine's memory in bytes (0 when unknown), from
// /proc/meminfo.
func MemTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	n, _ := parseMemTotal(b)
	return n
}

// parseMemTotal reads the MemTotal line ("MemTotal:  16318436 kB") of
// /proc/meminfo.
func parseMemTotal(b []byte) (int64, bool) {
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}
