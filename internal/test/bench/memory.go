package bench

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// memInterval is how often memSampler reads the process table: a server's
// resident set grows over its load, seconds long, so 100 ms misses little
// of a peak, and one read of /proc (a few ms) costs the servers little.
const memInterval = 100 * time.Millisecond

// MemPeak is the memory one measured run used, in bytes.
type MemPeak struct {
	// Servers is the peak of the summed resident sets of every process
	// descended from the bench (the language servers a column started,
	// and their own children: gopls's go list, tsserver under
	// typescript-language-server), sampled every memInterval.
	Servers int64
	// ByServer is each server's own peak (its process tree's), by name
	// (serverName); servers of one name are summed.
	ByServer map[string]int64
	// Self is the bench process's peak resident set above Base, its
	// resident set when sampling started: what the column ran in process
	// (acp-lsp's chain, or the bare client) added.
	Self, Base int64
}

// Names lists the servers that ran, sorted.
func (m MemPeak) Names() []string { return slices.Sorted(maps.Keys(m.ByServer)) }

// memSampler samples the bench's process tree until stopped.
type memSampler struct {
	stop chan struct{}
	done chan MemPeak
}

// sampleMemory starts sampling at once. Where /proc is not readable the
// peaks stay zero.
func sampleMemory() *memSampler {
	m := &memSampler{stop: make(chan struct{}), done: make(chan MemPeak, 1)}
	go m.run()
	return m
}

// Stop takes a last sample and returns the peaks.
func (m *memSampler) Stop() MemPeak {
	close(m.stop)
	return <-m.done
}

func (m *memSampler) run() {
	self, page := os.Getpid(), int64(os.Getpagesize())
	peak := MemPeak{ByServer: map[string]int64{}, Base: -1}
	names := map[int]string{} // server pid -> name, read once
	sample := func() {
		procs, ok := procTable()
		if !ok {
			return
		}
		if p, ok := procs[self]; ok {
			if peak.Base < 0 {
				peak.Base = p.rss * page
			}
			peak.Self = max(peak.Self, p.rss*page-peak.Base)
		}
		total, byChild := treeRSS(procs, self)
		peak.Servers = max(peak.Servers, total*page)
		byName := map[string]int64{}
		for pid, pages := range byChild {
			name, ok := names[pid]
			if !ok {
				name = serverName(cmdline(pid))
				names[pid] = name
			}
			byName[name] += pages * page
		}
		for name, b := range byName {
			peak.ByServer[name] = max(peak.ByServer[name], b)
		}
	}
	sample()
	t := time.NewTicker(memInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			sample()
		case <-m.stop:
			sample()
			peak.Base = max(peak.Base, 0)
			m.done <- peak
			return
		}
	}
}

// treeRSS sums the resident pages of the processes of procs descended
// from root (root excluded), in all and per child of root (each server's
// tree).
func treeRSS(procs map[int]procStat, root int) (total int64, byChild map[int]int64) {
	byChild = map[int]int64{}
	for pid, child := range descendants(procs, root) {
		total += procs[pid].rss
		byChild[child] += procs[pid].rss
	}
	return total, byChild
}

// cmdline reads a process's arguments (nil when it is gone).
func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// interpreters run a server's script: the script names the server.
var interpreters = []string{"node", "nodejs", "python", "python3", "sh", "bash", "env"}

// serverName names a server by its command line: the program's base
// name, or for an interpreter the first script it is given
// (node …/.bin/typescript-language-server --stdio is
// typescript-language-server).
func serverName(argv []string) string {
	if len(argv) == 0 {
		return "?"
	}
	name := filepath.Base(argv[0])
	if !slices.Contains(interpreters, name) {
		return name
	}
	for _, a := range argv[1:] {
		if a != "" && !strings.HasPrefix(a, "-") {
			return filepath.Base(a)
		}
	}
	return name
}
