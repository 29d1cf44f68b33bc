package proxy

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// startTree starts an agent that builds a process tree meant to outlive
// it (proctest.TreeScript: a child in its process group and a setsid
// daemon outside it, its pids recorded in pids), then runs sleep, deaf to
// its input's end, and returns once the agent said it is ready.
func startTree(t *testing.T, pids string) *Process {
	t.Helper()
	p, err := StartProcess([]string{"sh", "-c", proctest.TreeScript + `echo '{"jsonrpc":"2.0","method":"ready"}'; exec sleep 1000`},
		ProcessOptions{Name: "agent", Env: append(os.Environ(), proctest.PidsEnv+"="+pids)})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := p.Read(); err != nil || m.Method != "ready" {
		p.Stop(0)
		t.Fatalf("the agent said %v, %v; want its ready notification", m, err)
	}
	return p
}

// TestAgentTreeEndsWithAcpLsp: every process the agent started ends with
// acp-lsp, as a tree: its child in its process group and a daemon that
// left the group with setsid, also when acp-lsp is killed outright
// (SIGKILL, so none of its own clean-up runs: an impatient editor), and
// also while the agent itself ignores SIGTERM. For the kill, the test
// binary is run again as that acp-lsp.
func TestAgentTreeEndsWithAcpLsp(t *testing.T) {
	if pids := os.Getenv(proctest.ParentEnv); pids != "" {
		// SIGTERM ignored here is ignored in the agent too (an ignored
		// signal stays ignored across exec).
		signal.Ignore(syscall.SIGTERM)
		startTree(t, pids)
		fmt.Println("agent ready")
		select {} // killed here
	}
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, pids string)
		// grace is how long the tree may take to end after end returned.
		grace time.Duration
	}{
		{"acp-lsp killed", func(t *testing.T, pids string) { proctest.KillParent(t, pids, "agent ready") }, 10 * time.Second},
		// Stop returns once the whole tree has ended.
		{"agent stopped", func(t *testing.T, pids string) { startTree(t, pids).Stop(time.Millisecond) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			tc.end(t, pids)
			proctest.AwaitGone(t, proctest.ReadPids(t, pids, proctest.TreeProcs), tc.grace)
		})
	}
}
