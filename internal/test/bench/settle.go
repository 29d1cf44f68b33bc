package bench

import (
	"context"
	"os"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
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
	procs, err := procfs.Table()
	if err != nil {
		return 0, false
	}
	var sum int64
	for _, p := range procfs.Descendants(procs, pid) {
		sum += p.CPU
	}
	return sum, true
}
