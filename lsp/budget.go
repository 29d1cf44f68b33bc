package lsp

import (
	"slices"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/memory"
)

// DefaultMemoryBudget is Options.MemoryBudget's default: a quarter of the
// machine's memory (memory.Total; 0, no budget, where it is unknown). One
// rust-analyzer or pyright on a large project takes gigabytes; a quarter
// leaves the editor, the agent and the builds the rest.
func DefaultMemoryBudget() int64 { return memory.Total() / 4 }

// Budget is the account of running language servers that
// Options.MemoryBudget and Options.MaxRunning are held against: the
// servers of every Manager given the same Budget (a server host's
// Managers, one per profile, share one), or of one Manager alone. Its
// methods are safe for concurrent use.
type Budget struct {
	// admit serialises starts, so two at once do not both see room.
	admit sync.Mutex

	mu      sync.Mutex
	servers map[*server]bool
	// rss reads the resident memory of each server's process (its pid),
	// all in one read (one ps run on macOS); tests replace it (servers
	// reached through Options.Connect have no pid).
	rss func(pids map[*server]int) map[*server]int64
}

// NewBudget returns an empty Budget.
func NewBudget() *Budget {
	return &Budget{servers: map[*server]bool{}, rss: residentSets}
}

// residentSets is Budget.rss: memory.Resident of the servers' pids.
func residentSets(pids map[*server]int) map[*server]int64 {
	list := make([]int, 0, len(pids))
	for _, pid := range pids {
		list = append(list, pid)
	}
	got := memory.Resident(list...)
	out := make(map[*server]int64, len(pids))
	for s, pid := range pids {
		out[s] = got[pid]
	}
	return out
}

func (b *Budget) add(s *server) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.servers[s] = true
}

func (b *Budget) remove(s *server) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.servers, s)
}

// running is one running server as the budget sees it.
type running struct {
	s        *server
	pid      int
	rss      int64
	lastUsed time.Time
	busy     bool
}

// snapshot lists the running servers other than except.
func (b *Budget) snapshot(except *server) []running {
	b.mu.Lock()
	list := make([]*server, 0, len(b.servers))
	for s := range b.servers {
		if s != except {
			list = append(list, s)
		}
	}
	b.mu.Unlock()
	var out []running
	pids := map[*server]int{}
	for _, s := range list {
		s.mu.Lock()
		p := s.cur
		r := running{s: s, lastUsed: s.lastUsed, busy: s.inflight > 0}
		s.mu.Unlock()
		if p == nil || p.exited() {
			continue
		}
		r.pid = p.pid
		pids[s] = p.pid
		out = append(out, r)
	}
	rss := b.rss(pids)
	for i := range out {
		out[i].rss = rss[out[i].s]
	}
	return out
}

// makeRoom is called before s starts a process: while the running
// servers already fill memory (bytes, 0 for none) or maxRunning (0 for
// no cap), the least recently used idle one (no request in flight) is
// stopped. When none is idle, the start goes ahead over the budget and
// the log says so: refusing the server would break the question that
// needs it. A server that alone exceeds the budget is reported (log,
// ServerStatus.OverBudget), never stopped for itself: it would only start
// again at the next question.
func (b *Budget) makeRoom(s *server, memory int64, maxRunning int) {
	if memory <= 0 && maxRunning <= 0 {
		return
	}
	b.admit.Lock()
	defer b.admit.Unlock()
	// tried are servers that were not stopped when asked (busy by then):
	// never asked twice, so the loop ends.
	tried := map[*server]bool{}
	for {
		run := b.snapshot(s)
		var total int64
		for _, r := range run {
			total += r.rss
		}
		for _, r := range run {
			if overBudget(r.rss, memory) {
				s.log.Warn("language server alone exceeds the memory budget", "server", r.s.cfg.Name, "root", r.s.root, "pid", r.pid, "rss", r.rss, "memory_budget", memory)
			}
		}
		overCount := maxRunning > 0 && len(run)+1 > maxRunning
		overMemory := memory > 0 && total >= memory
		if !overCount && !overMemory {
			return
		}
		idle := slices.DeleteFunc(slices.Clone(run), func(r running) bool { return r.busy || tried[r.s] })
		if len(idle) == 0 {
			s.log.Warn("language servers over budget, none idle to stop; starting anyway",
				"server", s.cfg.Name, "root", s.root, "running", len(run), "max_running", maxRunning, "rss", total, "memory_budget", memory)
			return
		}
		lru := slices.MinFunc(idle, func(a, b running) int { return a.lastUsed.Compare(b.lastUsed) })
		s.log.Info("stopping the least recently used idle language server to keep the budget",
			"stopped", lru.s.cfg.Name, "stopped_root", lru.s.root, "stopped_rss", lru.rss,
			"for", s.cfg.Name, "root", s.root, "running", len(run), "max_running", maxRunning, "rss", total, "memory_budget", memory)
		if !lru.s.stopIdle("memory budget") {
			// It became busy or stopped in the meantime: look again.
			tried[lru.s] = true
		}
	}
}

// overBudget reports whether a server of rss bytes alone exceeds memory.
func overBudget(rss, memory int64) bool { return memory > 0 && rss > memory }
