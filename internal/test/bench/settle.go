package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Settling: a language server keeps working after its first answer (gopls
// type-checks the whole workspace about a second after start, for about
// two seconds on two cores), and a warm row measured during that work is
// slower for reasons that are not the column's. Without settling, the
// order of rows decides it: a column whose earlier rows are slow (lsmcp's
// definition takes 2 s a call) reaches workspace symbols long after gopls
// went idle, a fast column reaches it while gopls is still busy. So every
// warm row of every column starts once the column's server processes are
// idle. There is no event for "a child process went idle"; its CPU time is
// sampled, which is what the wait is about.
const (
	settleWindow = 500 * time.Millisecond
	// settleTicks is the CPU (clock ticks, 10 ms each) the column's
	// processes may use in one window and still count as idle: 4 % of a
	// core.
	settleTicks = 2
	settleMax   = time.Minute
)

// settleServers is settle; tests of the rows' order replace it.
var settleServers = settle

// settle waits until the processes descended from this one (the column's
// servers: gopls, and node for the MCP servers) used at most settleTicks
// of CPU over settleWindow, or settleMax passed. It returns how long it
// waited. Where /proc is not readable it returns at once.
func settle(ctx context.Context) time.Duration {
	start := time.Now()
	prev, ok := childrenCPU(os.Getpid())
	if !ok {
		return 0
	}
	t := time.NewTicker(settleWindow)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return time.Since(start)
		case <-t.C:
		}
		cur, ok := childrenCPU(os.Getpid())
		if !ok || cur-prev <= settleTicks || time.Since(start) >= settleMax {
			return time.Since(start)
		}
		prev = cur
	}
}

// childrenCPU sums user and system CPU ticks of every living process
// descended from pid (pid itself excluded: in-process columns' own
// goroutines are not a server's background work).
func childrenCPU(pid int) (int64, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return 0, false
	}
	type proc struct {
		ppid int
		cpu  int64
	}
	procs := map[int]proc{}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // ended meanwhile
		}
		p, ppid, cpu, ok := parseStat(string(b))
		if ok {
			procs[p] = proc{ppid, cpu}
		}
	}
	var sum int64
	for _, pr := range procs {
		for anc, n := pr.ppid, 0; anc > 1 && n < 64; n++ {
			if anc == pid {
				sum += pr.cpu
				break
			}
			next, ok := procs[anc]
			if !ok {
				break
			}
			anc = next.ppid
		}
	}
	return sum, true
}

// parseStat reads pid, ppid and utime+stime from a /proc/<pid>/stat line;
// the command name in parentheses may hold spaces and parentheses itself.
func parseStat(s string) (pid, ppid int, cpu int64, ok bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open || end+2 > len(s) {
		return 0, 0, 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return 0, 0, 0, false
	}
	// After ") ": state(3) ppid(4) ... utime(14) stime(15), numbered as
	// in proc(5).
	f := strings.Fields(s[end+2:])
	if len(f) < 13 {
		return 0, 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	st, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, 0, false
	}
	return pid, ppid, ut + st, true
}
