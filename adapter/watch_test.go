package adapter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestWatchLimitSaid: with more folders than file watching covers, the
// status of each local server and every local diagnostics answer say
// which folders are not covered, so a "fresh" answer is not taken for
// one that knows about changes made there.
func TestWatchLimitSaid(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{})
	for _, sub := range []string{"p", "q"} {
		must(t, os.MkdirAll(filepath.Join(root, sub), 0o755))
	}
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers, MaxWatchedDirs: 2}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	must(t, tc.adapter.Manager().Prewarm(t.Context(), file))
	const want = "file watching stopped at its limit of 2 folders"

	m := tc.call(t, 1, "_lsp/status", `{}`, nil)
	var res lspext.ServersResult
	must(t, json.Unmarshal(m.Result, &res))
	if len(res.Servers) != 1 || !strings.Contains(res.Servers[0].LastError, want) {
		t.Errorf("status: %s, want the watch note", m.Result)
	}
	m = tc.call(t, 2, "_lsp/diagnosticReport", `{"uris":["`+edit.URIFromPath(file)+`"],"wait":60000}`, nil)
	var rep lspext.DiagnosticReportResult
	must(t, json.Unmarshal(m.Result, &rep))
	noted := false
	for _, v := range rep.Servers {
		noted = noted || (v.Server == "acp-lsp" && strings.Contains(v.Detail, want))
	}
	if !noted {
		t.Errorf("diagnostics: %s, want the watch note", m.Result)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}

// TestWatchNoteReferenceDiagnostics: the watch note is a caveat on every
// answer, not a failure: with watching off, the reference
// `_lsp/diagnostics` of a clean file still answers an empty list (the
// server checked the file's current content), while the report carries
// the note.
func TestWatchNoteReferenceDiagnostics(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{})
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers, MaxWatchedDirs: -1}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	uri := edit.URIFromPath(file)
	m := tc.call(t, 1, "_lsp/diagnostics", `{"uri":"`+uri+`"}`, nil)
	if m.Error != nil || string(m.Result) != "[]" {
		t.Fatalf("reference diagnostics of a clean file with watching off: %s", m.Raw)
	}
	m = tc.call(t, 2, "_lsp/diagnosticReport", `{"uris":["`+uri+`"],"wait":60000}`, nil)
	if !strings.Contains(string(m.Result), "file watching is off") {
		t.Fatalf("report with watching off lacks the note: %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}
