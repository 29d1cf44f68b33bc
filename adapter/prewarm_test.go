package adapter

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// goplsChildren lists the gopls processes this test process started.
func goplsChildren(t *testing.T) []proctest.Process {
	t.Helper()
	procs, err := proctest.Descendants(os.Getpid())
	must(t, err)
	return slices.DeleteFunc(procs, func(p proctest.Process) bool { return !strings.Contains(p.Cmdline, "gopls") })
}

// TestPrewarmOnSessionSetup: with Prewarm, session/new on a Go module
// starts gopls before any question (the process is there and the Manager
// lists it), and the first question is answered by that same process,
// loaded; without it, nothing starts until the first question.
func TestPrewarmOnSessionSetup(t *testing.T) {
	peers.Require(t, "gopls")
	for _, prewarm := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[prewarm], func(t *testing.T) {
			root, main := goWorkspace(t)
			type result struct {
				servers []string
				err     error
			}
			done := make(chan result, 1)
			onPrewarm := func(r string, servers []string, err error) {
				if r != root {
					t.Errorf("prewarmed %s, want %s", r, root)
				}
				done <- result{servers, err}
			}
			tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}, Prewarm: prewarm, OnPrewarm: onPrewarm}, false)
			tc.initialize(t, "", "")
			tc.newSession(t, root)
			mgr := tc.adapter.Manager()
			var pid int
			if prewarm {
				res := <-done
				if res.err != nil || !slices.Equal(res.servers, []string{"gopls"}) {
					t.Fatalf("prewarm started %v, err %v; want gopls", res.servers, res.err)
				}
				st := mgr.Servers()
				if len(st) != 1 || st[0].Name != "gopls" || st[0].State != lsp.StateRunning || st[0].PID == 0 {
					t.Fatalf("after session/new, before any question: servers %+v, want gopls running", st)
				}
				pid = st[0].PID
				if procs := goplsChildren(t); !slices.ContainsFunc(procs, func(p proctest.Process) bool { return p.Pid == pid }) {
					t.Fatalf("gopls pid %d not in the process table: %v", pid, procs)
				}
				r, err := mgr.WaitReady(t.Context(), main)
				if err != nil || r.State != lsp.Ready {
					t.Fatalf("prewarmed gopls: %+v, %v", r, err)
				}
			} else {
				select {
				case res := <-done:
					t.Errorf("prewarm off: prewarm ran: %+v", res)
				default:
				}
				if st := mgr.Servers(); len(st) != 0 {
					t.Errorf("prewarm off: servers %+v before the first question, want none", st)
				}
				if procs := goplsChildren(t); len(procs) != 0 {
					t.Errorf("prewarm off: gopls running before the first question: %v", procs)
				}
			}
			m := tc.call(t, 1, "_lsp/diagnosticReport", `{"uris":["`+edit.URIFromPath(main)+`"],"wait":60000}`, nil)
			if !strings.Contains(string(m.Result), `"verdict":"fresh"`) || !strings.Contains(string(m.Result), "not enough arguments") {
				t.Errorf("first question: %s", m.Raw)
			}
			st := mgr.Servers()
			if len(st) != 1 || st[0].PID == 0 || (prewarm && (st[0].PID != pid || st[0].Restarts != 0)) {
				t.Errorf("after the first question: servers %+v, want the prewarmed gopls (pid %d)", st, pid)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(mgr))
		})
	}
}
