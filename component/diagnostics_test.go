package component

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

func TestDiagnosticsFreshness(t *testing.T) {
	_, _, fb, cs := setup(t, Config{})
	fb.report = &lspext.DiagnosticReportResult{Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "timeout", Detail: "no answer in 5s"}}}
	text, _ := callTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if !strings.Contains(text, "gopls: timeout") || !strings.Contains(text, "NO server answered fresh") {
		t.Errorf("timeout rendered as clean:\n%s", text)
	}
	fb.report = &lspext.DiagnosticReportResult{Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}}}
	text, _ = callTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if !strings.Contains(text, "no problems") {
		t.Errorf("fresh empty answer not said clean:\n%s", text)
	}
}

// TestFreshnessVerdicts: every verdict is shown per server; "no problems"
// only when every server answered fresh (acp-lsp's note on file watching
// aside) and no file was left out; results without a fresh server are
// flagged as possibly outdated.
func TestFreshnessVerdicts(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	oneDiag := []lspext.FileDiagnostics{{URI: uri, Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}},"severity":1,"message":"old error"}]`)}}
	for _, tc := range []struct {
		name    string
		files   []lspext.FileDiagnostics
		servers []lspext.ServerVerdict
		want    []string
		not     []string
	}{
		{"fresh and clean", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}}, []string{"gopls: fresh", "no problems"}, []string{"NO server"}},
		{"stale results", oneDiag, []lspext.ServerVerdict{{Server: "gopls", Verdict: "stale", Detail: "version 3, file at 4"}}, []string{"gopls: stale (version 3, file at 4)", "old error", "may be outdated"}, []string{"no problems"}},
		{"timeout", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "timeout"}}, []string{"gopls: timeout", "NO server answered fresh"}, []string{"no problems:"}},
		{"indexing", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "indexing", Detail: "Loading packages"}}, []string{"gopls: indexing (Loading packages)", "gopls is still loading the project", "NO server answered fresh"}, []string{"no problems:"}},
		{"starting", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "starting", Detail: "for 2s"}}, []string{"gopls: starting (for 2s)", "gopls is still starting", "NO server answered fresh"}, []string{"no problems:"}},
		{"unsupported and failed", nil, []lspext.ServerVerdict{{Server: "a", Verdict: "unsupported"}, {Server: "b", Verdict: "failed", Detail: "crashed"}}, []string{"a: unsupported; b: failed (crashed)", "NO server answered fresh"}, []string{"no problems:"}},
		{"one fresh one timeout", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}, {Server: "golangci", Verdict: "timeout"}}, []string{"gopls: fresh; golangci: timeout", "not known to be clean: golangci timed out: ask again"}, []string{"no problems"}},
		{"fresh, with the watching note", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}, {Server: "acp-lsp", Verdict: "unsupported", Detail: "file watching does not cover x/"}}, []string{"acp-lsp: unsupported (file watching", "no problems"}, nil},
		{"stale and empty", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "stale"}}, []string{"NO server answered fresh", "gopls has not checked the current content"}, []string{"no problems"}},
		{"some files left out", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}, {Server: "acp-lsp", Verdict: "unchecked", Unchecked: 1049}}, []string{"1,049 files not checked"}, []string{"no problems"}},
		{"no server at all", nil, nil, []string{"no language server answered", "NO server answered fresh"}, []string{"no problems:"}},
	} {
		fb.report = &lspext.DiagnosticReportResult{Files: tc.files, Servers: tc.servers}
		text, _ := callTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: want %q in:\n%s", tc.name, w, text)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(text, n) {
				t.Errorf("%s: %q in:\n%s", tc.name, n, text)
			}
		}
	}
}

// TestDiagnosticsGlobBound: a glob matching more files than are checked
// says the rest went unchecked instead of implying they are clean.
func TestDiagnosticsGlobBound(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	for i := range maxGlobFiles + 5 {
		os.WriteFile(filepath.Join(s.Root, fmt.Sprintf("f%03d.go", i)), []byte("package main\n"), 0o644)
	}
	fb.report = &lspext.DiagnosticReportResult{Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}}}
	fb.reports = make(chan []string, 2)
	text, _ := callTool(t, cs, map[string]any{"action": "diagnostics", "file": "f*.go"})
	if got := <-fb.reports; len(got) != maxGlobFiles {
		t.Errorf("%d files asked about, want %d", len(got), maxGlobFiles)
	}
	if !strings.Contains(text, "only the first 200 were checked (the others are NOT known to be clean)") {
		t.Errorf("cut glob not said:\n%s", text)
	}
	text, _ = callTool(t, cs, map[string]any{"action": "diagnostics", "file": "f00*.go"})
	<-fb.reports
	if strings.Contains(text, "were checked") {
		t.Errorf("small glob said cut:\n%s", text)
	}
}
