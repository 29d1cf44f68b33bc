package serverhost

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestPrewarmThroughHost: an adapter whose servers run in the host
// starts gopls there on session/new, before any question (the host's
// process below this test process, listed by the client), and the first
// question is answered by that process.
func TestPrewarmThroughHost(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "prewarm000000000"
	serveHere(t, dir, id)
	root, file := goWorkspace(t)
	done := make(chan []string, 1)
	a, err := adapter.New(adapter.Config{
		LSP:     lsp.Options{Env: peers.Env()},
		Prewarm: true,
		OnPrewarm: func(_ string, servers []string, err error) {
			if err != nil {
				t.Errorf("prewarm: %v", err)
			}
			done <- servers
		},
		Host: func(o lsp.Options) (adapter.LocalServers, error) {
			return NewClient(o, Config{Dir: dir, Identity: id, Idle: -1})
		},
	})
	must(t, err)
	t.Cleanup(func() { a.Close() })
	chain := stacktest.Run(t, stacktest.Config{Stages: []proxy.Stage{a}})
	chain.Initialize(t, `{"fs":{"readTextFile":true}}`, `{"loadSession":true}`)
	chain.NewSession(t, root)
	if got := <-done; !slices.Equal(got, []string{"gopls"}) {
		t.Fatalf("prewarm started %v, want gopls", got)
	}
	st := a.Local().Servers()
	if len(st) != 1 || st[0].Name != "gopls" || st[0].State != lsp.StateRunning || st[0].PID == 0 {
		t.Fatalf("after session/new, before any question: %+v, want gopls running in the host", st)
	}
	pid := st[0].PID
	procs, err := proctest.Descendants(os.Getpid())
	must(t, err)
	if !slices.ContainsFunc(procs, func(p proctest.Process) bool { return p.Pid == pid }) {
		t.Fatalf("gopls pid %d not in the process table below the host: %v", pid, procs)
	}
	rep, err := a.Local().Diagnostics(context.Background(), []string{file}, lsp.DiagnosticsOptions{})
	must(t, err)
	if v := rep.Files[0].Verdict; v != lsp.Fresh {
		t.Errorf("first question: verdict %s (%s), want fresh", v, rep.Files[0].Detail)
	}
	if st := a.Local().Servers(); len(st) != 1 || st[0].PID != pid {
		t.Errorf("after the first question: %+v, want the prewarmed gopls (pid %d)", st, pid)
	}
}
