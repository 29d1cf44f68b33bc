package component

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestDiagnosticsIncompleteNeverClean: a workspace-wide diagnostics answer
// with no problems found is not called clean when a server timed out and
// files were left out by the cap on files checked: it says what was
// checked, how many files were not, and who timed out, in the text and in
// structuredContent's coverage.
func TestDiagnosticsIncompleteNeverClean(t *testing.T) {
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	clean, slow := filepath.Join(dir, "clean.json"), filepath.Join(dir, "slow.json")
	if err := fakelsp.WriteScript(clean, fakelsp.Script{}); err != nil {
		t.Fatal(err)
	}
	// slow never answers a pull: its request times out.
	if err := fakelsp.WriteScript(slow, fakelsp.Script{Diagnostics: fakelsp.DiagPull,
		Methods: map[string]fakelsp.Behavior{"textDocument/diagnostic": {NeverAnswer: true}}}); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	// The walk is in lexical order: 0.sl first, then 199 of the 230
	// clean files reach the cap of 200; 31 are left.
	os.WriteFile(filepath.Join(root, "0.sl"), []byte("func Slow() {}\n"), 0o644)
	for i := range 230 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.fk", i)), []byte("func Foo() {}\n"), 0o644)
	}
	opts := lsp.Options{Servers: []lsp.ServerConfig{
		{Name: "fake", Command: bin, Args: fakelsp.Args(clean, filepath.Join(dir, "record-clean")), Extensions: []string{"fk"}},
		// One file of 231 is not a share that makes a server needed.
		{Name: "slow", Command: bin, Args: fakelsp.Args(slow, filepath.Join(dir, "record-slow")), Extensions: []string{"sl"}, Needed: lsp.NeededYes},
	}}
	opts.Timeouts.Initialize = lsp.Duration(time.Hour)
	// The wait ends slow's answer; the clean server answers its 199 files
	// in a fraction of it.
	sc := startStack(t, adapter.Config{LSP: opts}, Config{DiagnosticsWait: 5 * time.Second, StructuredContent: true}, false)
	cs := sc.open(t, root)
	text, isErr, data := stacktest.CallTool(t, cs, map[string]any{"action": "diagnostics", "file": "*"})
	if isErr {
		t.Fatal(text)
	}
	if strings.Contains(text, "no problems") {
		t.Errorf("an incomplete answer says no problems:\n%s", text)
	}
	for _, w := range []string{"not known to be clean", "nothing found in the 199 files checked", "31 files not checked", "slow timed out"} {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
	var got struct {
		Coverage struct {
			Clean     bool     `json:"clean"`
			Checked   int      `json:"checked"`
			Unchecked int      `json:"unchecked"`
			Gaps      []string `json:"gaps"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Coverage; c.Clean || c.Checked != 199 || c.Unchecked != 31 || len(c.Gaps) != 2 {
		t.Errorf("coverage %+v, want not clean, 199 checked, 31 unchecked, two gaps; data %s", c, data)
	}
}

// TestCoverageOf: what a report establishes: the files some server
// answered fresh for that no other verdict leaves unknown, the files left
// out, and a gap per unsettled verdict; a verdict with no URIs covers
// every file asked about, unless it is about files left out.
func TestCoverageOf(t *testing.T) {
	fresh := func(server string, uris ...string) lspext.ServerVerdict {
		return lspext.ServerVerdict{Server: server, Verdict: lspext.VerdictFresh, URIs: uris}
	}
	files := func(uris ...string) []lspext.FileDiagnostics {
		var out []lspext.FileDiagnostics
		for _, u := range uris {
			out = append(out, lspext.FileDiagnostics{URI: u})
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		requested []string
		rep       lspext.DiagnosticReportResult
		want      coverage
	}{
		{"all fresh", nil, lspext.DiagnosticReportResult{Files: files("a", "b"), Servers: []lspext.ServerVerdict{fresh("gopls", "a", "b")}},
			coverage{Clean: true, Checked: 2, fresh: true}},
		{"no URIs: every file asked about", []string{"a", "b", "c"}, lspext.DiagnosticReportResult{Servers: []lspext.ServerVerdict{fresh("gopls")}},
			coverage{Clean: true, Checked: 3, fresh: true}},
		{"a second server timed out on one file", nil, lspext.DiagnosticReportResult{Files: files("a", "b"),
			Servers: []lspext.ServerVerdict{fresh("gopls", "a", "b"), {Server: "lint", Verdict: lspext.VerdictTimeout, URIs: []string{"b"}}}},
			coverage{Checked: 1, Gaps: []string{"lint timed out on 1 file"}, retry: true, fresh: true}},
		{"a server's verdict on every file", []string{"a", "b"}, lspext.DiagnosticReportResult{
			Servers: []lspext.ServerVerdict{fresh("gopls"), {Server: "lint", Verdict: lspext.VerdictIndexing}}},
			coverage{Gaps: []string{"lint is still loading the project: its diagnostics are missing or incomplete"}, retry: true, fresh: true}},
		{"left out: beyond the cap, a missing server", nil, lspext.DiagnosticReportResult{Files: files("a"), Servers: []lspext.ServerVerdict{fresh("gopls", "a"),
			{Server: "pyright", Verdict: lspext.VerdictFailed, Unchecked: 4, Detail: "not installed"},
			{Server: lspext.NoteServer, Verdict: lspext.VerdictUnchecked, Unchecked: 1049}}},
			coverage{Checked: 1, Unchecked: 1053, Gaps: []string{"pyright failed: 4 files not checked", "1,049 files not checked"}, left: true, fresh: true}},
		{"no verdict", []string{"a"}, lspext.DiagnosticReportResult{},
			coverage{Gaps: []string{"no language server answered for these files"}, retry: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := coverageOf(&tc.rep, tc.requested)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(coverage{})); diff != "" {
				t.Errorf("coverage (-want +got):\n%s", diff)
			}
		})
	}
}
