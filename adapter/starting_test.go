package adapter

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestStartingSaid: diagnostics asked with a short wait while the local
// server is still initializing get the verdict "starting", saying the
// diagnostics are unknown, not empty, and not "timeout"; the status says
// starting too. (The wait is far shorter than the fake's initialize, so
// the outcome does not depend on the machine's speed.)
func TestStartingSaid(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"initialize": {Delay: fakelsp.Duration(time.Hour)}}})
	opts := lsp.Options{Servers: servers}
	opts.Timeouts.Initialize = lsp.Duration(time.Hour)
	opts.Timeouts.Shutdown = lsp.Duration(100 * time.Millisecond)
	tc := startChain(t, Config{LSP: opts}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)

	m := tc.call(t, 1, "_lsp/diagnosticReport", `{"uris":["`+edit.URIFromPath(file)+`"],"wait":200}`, nil)
	var rep lspext.DiagnosticReportResult
	must(t, json.Unmarshal(m.Result, &rep))
	if len(rep.Servers) != 1 || rep.Servers[0].Server != "fake" || rep.Servers[0].Verdict != "starting" ||
		!strings.Contains(rep.Servers[0].Detail, "language server fake is still starting") || !strings.Contains(rep.Servers[0].Detail, "unknown, not empty") {
		t.Fatalf("diagnostics while the server starts: %s", m.Raw)
	}
	m = tc.call(t, 2, "_lsp/status", `{}`, nil)
	if !strings.Contains(string(m.Result), `"state":"starting"`) {
		t.Errorf("status while the server starts: %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}
