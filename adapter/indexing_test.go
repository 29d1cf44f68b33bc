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
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestIndexingPassedOn: while a local server reports work in progress, a
// request it answers empty reaches the asker as an error whose data says
// "indexing" (server and work titles), so the component can say so
// instead of "no results"; diagnostics get the indexing verdict and status
// the indexing state.
func TestIndexingPassedOn(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Indexing: &fakelsp.Indexing{Duration: fakelsp.Duration(time.Hour), Eager: true}})
	opts := lsp.Options{Servers: servers}
	opts.Timeouts.Request = lsp.Duration(time.Second)
	tc := startChain(t, Config{LSP: opts}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	// The start is not what this test is about: on a loaded machine it
	// may take longer than the short request timeout.
	must(t, tc.adapter.Manager().Prewarm(t.Context(), file))
	uri := edit.URIFromPath(file)

	m := tc.call(t, 1, "_lsp/request", `{"uri":"`+uri+`","method":"textDocument/hover","params":{"textDocument":{"uri":"`+uri+`"},"position":{"line":0,"character":6}}}`, nil)
	var data IndexingData
	if m.Error == nil || m.Error.Code != proxy.CodeInternalError || json.Unmarshal(m.Error.Data, &data) != nil ||
		!data.Indexing || data.Server != "fake" || len(data.Work) == 0 || !strings.Contains(m.Error.Message, "still loading the project (Indexing 0%)") {
		t.Errorf("hover while indexing answered %s", m.Raw)
	}
	m = tc.call(t, 2, "_lsp/diagnosticReport", `{"uris":["`+uri+`"],"wait":1000}`, nil)
	var rep lspext.DiagnosticReportResult
	must(t, json.Unmarshal(m.Result, &rep))
	if len(rep.Servers) != 1 || rep.Servers[0].Verdict != lspext.VerdictIndexing {
		t.Errorf("diagnostics while indexing: %s", m.Raw)
	}
	m = tc.call(t, 3, "_lsp/status", `{}`, nil)
	if !strings.Contains(string(m.Result), `"state":"indexing"`) {
		t.Errorf("status while indexing: %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}
