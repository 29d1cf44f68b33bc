package bench

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/reap"
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
	// ByServer is each server's own peak (its process tree's, serverRSS),
	// by name (serverName); servers of one name are summed, and acp-lsp's
	// guards are one entry of their own.
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
	names := map[int]string{} // pid -> serverName, read once
	sample := func() {
		procs, err := procfs.Table()
		if err != nil {
			return
		}
		if p, ok := procs[self]; ok {
			if peak.Base < 0 {
				peak.Base = p.RSSPages * page
			}
			peak.Self = max(peak.Self, p.RSSPages*page-peak.Base)
		}
		total, byServer := serverRSS(procs, self, func(pid int) string {
			n, ok := names[pid]
			if !ok {
				n = serverName(procfs.Cmdline(pid))
				names[pid] = n
			}
			return n
		})
		peak.Servers = max(peak.Servers, total*page)
		for name, pages := range byServer {
			peak.ByServer[name] = max(peak.ByServer[name], pages*page)
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

// serverRSS sums the resident pages of the processes of procs descended
// from root (root excluded), in all and per server: a process counts
// toward its topmost ancestor below root that is not an acp-lsp guard
// (reap.GuardName), itself included (gopls for the go list it runs,
// typescript-language-server for its tsserver, through the guard acp-lsp
// starts each under); a guard counts as itself. name names a pid.
func serverRSS(procs map[int]procfs.Stat, root int, name func(pid int) string) (total int64, byServer map[string]int64) {
	byServer = map[string]int64{}
	for _, p := range procfs.Descendants(procs, root) {
		group := reap.GuardName
		if name(p.Pid) != reap.GuardName {
			top := p.Pid
			for anc, n := p.PPid, 0; anc != root && n < 64; n++ {
				if name(anc) != reap.GuardName {
					top = anc
				}
				anc = procs[anc].PPid
			}
			group = name(top)
		}
		total += p.RSSPages
		byServer[group] += p.RSSPages
	}
	return total, byServer
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
