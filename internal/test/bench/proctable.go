package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what the bench reads of one process's /proc/<pid>/stat.
type procStat struct {
	pid, ppid int
	// cpu is utime+stime, in clock ticks.
	cpu int64
	// rss is the resident set, in pages.
	rss int64
}

// procTable reads every process's stat; false where /proc is not
// readable.
func procTable() (map[int]procStat, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return nil, false
	}
	procs := make(map[int]procStat, len(stats))
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // ended meanwhile
		}
		if p, ok := parseStat(string(b)); ok {
			procs[p.pid] = p
		}
	}
	return procs, true
}

// descendants maps every process of procs descended from root (root
// excluded) to root's child it descends from: the server whose tree it
// belongs to (gopls for the go list it runs, typescript-language-server
// for its tsserver).
func descendants(procs map[int]procStat, root int) map[int]int {
	out := map[int]int{}
	for pid, pr := range procs {
		// Walk up the parents; 64 steps bound a table read while pids
		// were reused into a cycle.
		for child, anc, n := pid, pr.ppid, 0; anc > 0 && n < 64; n++ {
			if anc == root {
				if pid != root {
					out[pid] = child
				}
				break
			}
			next, ok := procs[anc]
			if !ok {
				break
			}
			child, anc = anc, next.ppid
		}
	}
	return out
}

// parseStat reads pid, ppid, utime+stime and rss from a /proc/<pid>/stat
// line; the command name in parentheses may hold spaces and parentheses
// itself.
func parseStat(s string) (procStat, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 1 || end < open || end+2 > len(s) {
		return procStat{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return procStat{}, false
	}
	// After ") ": state(3) ppid(4) ... utime(14) stime(15) ... rss(24),
	// numbered as in proc(5).
	f := strings.Fields(s[end+2:])
	if len(f) < 22 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	st, err3 := strconv.ParseInt(f[12], 10, 64)
	rss, err4 := strconv.ParseInt(f[21], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, cpu: ut + st, rss: rss}, true
}
