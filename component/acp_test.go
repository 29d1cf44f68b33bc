package component

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

func TestPatchSessionSetup(t *testing.T) {
	c, err := New(Config{Executable: "/opt/acp-lsp"}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := t.TempDir()
	for _, tc := range []struct {
		params string
		http   bool
		bound  string
	}{
		{`{"cwd":` + jsonString(root) + `,  "mcpServers":[{"name":"x","command":"/x","args":[],"env":[{"name":"A","value":"1"}]}],"_meta":{"k":  1.50}}`, false, ""},
		{`{"sessionId":"s9","cwd":` + jsonString(root) + `,"mcpServers":[]}`, true, "s9"},
		{`{"cwd":` + jsonString(root) + `}`, false, ""},
	} {
		out, s, err := c.PatchSessionSetup(json.RawMessage(tc.params), AgentMCP{Version: 1, Stdio: true, HTTP: tc.http})
		if err != nil {
			t.Fatal(err)
		}
		entry := string(c.Entry(s, map[bool]Transport{true: TransportHTTP, false: TransportStdio}[tc.http]))
		// Everything before mcpServers' closing bracket is kept byte for byte.
		if !strings.Contains(string(out), entry) {
			t.Errorf("entry %s missing in %s", entry, out)
		}
		if strings.Contains(tc.params, `"_meta":{"k":  1.50}`) && !strings.Contains(string(out), `"_meta":{"k":  1.50}`) {
			t.Errorf("unrelated bytes re-encoded: %s", out)
		}
		if strings.Contains(tc.params, `"env":[{"name":"A","value":"1"}]`) && !strings.Contains(string(out), `{"name":"x","command":"/x","args":[],"env":[{"name":"A","value":"1"}]}`) {
			t.Errorf("client's stdio entry changed: %s", out)
		}
		if tc.bound != "" && c.SessionByACP(tc.bound) != s {
			t.Errorf("session id %s not bound", tc.bound)
		}
		if !tc.http && (!strings.Contains(entry, `"env":[]`) || !strings.Contains(entry, `"command":"/opt/acp-lsp","args":["mcp-bridge","--socket"`)) {
			t.Errorf("stdio entry: %s", entry)
		}
		if tc.http && !strings.Contains(entry, `"type":"http"`) {
			t.Errorf("http entry: %s", entry)
		}
	}
	if _, _, err := c.PatchSessionSetup(json.RawMessage(`{"mcpServers":[]}`), agentV1); err == nil {
		t.Error("setup without cwd accepted")
	}
}

func TestCacheAndContext(t *testing.T) {
	c, s, fb, _ := setup(t, Config{CacheFiles: 2, CachePerFile: 1})
	c.Bind(s, "s1")
	uriOf := func(n string) string { return edit.URIFromPath(filepath.Join(s.Root, n)) }
	pub := func(n, diags string) {
		p, _ := json.Marshal(lspext.PublishDiagnosticsParams{URI: uriOf(n), Diagnostics: json.RawMessage(diags), Native: true})
		if !c.HandleNotification(context.Background(), "lsp/publishDiagnostics", p) {
			t.Fatal("publishDiagnostics not consumed")
		}
	}
	errs := `[{"range":{"start":{"line":2,"character":1},"end":{"line":2,"character":2}},"severity":1,"message":"undefined: x"},{"range":{"start":{"line":3,"character":0},"end":{"line":3,"character":1}},"severity":1,"message":"second"}]`
	pub("a.go", errs)
	pub("b.go", errs)
	pub("c.go", errs)
	if diff := cmp.Diff([]string{NormalizeURI(uriOf("b.go")), NormalizeURI(uriOf("c.go"))}, c.Cache().Keys()); diff != "" {
		t.Errorf("LRU keys (-want +got):\n%s", diff)
	}
	if d, _ := c.Cache().Get(uriOf("c.go")); len(d) != 1 {
		t.Errorf("per-file limit not kept: %d", len(d))
	}
	if got := c.PromptContext("s1"); got != "" {
		t.Errorf("context with nothing touched: %q", got)
	}
	// didSave (reference spelling) fetches fresh diagnostics and marks the
	// file touched.
	fb.reports = make(chan []string, 1)
	fb.report = &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{{URI: uriOf("c.go"), Diagnostics: json.RawMessage(`[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":"fresh error"}]`)}}}
	p, _ := json.Marshal(lspext.URIParams{URI: uriOf("c.go")})
	c.HandleNotification(context.Background(), "_lsp/didSave", p)
	if got := <-fb.reports; len(got) != 1 || got[0] != uriOf("c.go") {
		t.Errorf("didSave fetched %v", got)
	}
	c.fetches.Wait()
	got := c.PromptContext("s1")
	if !strings.Contains(got, "c.go:1:1: error: fresh error") {
		t.Errorf("context after save: %q", got)
	}
	if again := c.PromptContext("s1"); again != "" {
		t.Errorf("context repeated: %q", again)
	}
	params := json.RawMessage(`{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}`)
	if out := c.InjectPrompt(params); string(out) != string(params) {
		t.Errorf("prompt changed with nothing new: %s", out)
	}
}

// TestContextNewProblemsOnly: across turns, the injected block names a
// problem once; one moved by an edit above it is not new, a second
// occurrence of the same message is, and a fixed one seen again is.
func TestContextNewProblemsOnly(t *testing.T) {
	c, s, _, _ := setup(t, Config{})
	c.Bind(s, "s1")
	uri := edit.URIFromPath(filepath.Join(s.Root, "a.go"))
	diag := func(line int, msg string) string {
		return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":1}},"severity":1,"message":%q}`, line, line, msg)
	}
	for _, turn := range []struct {
		name  string
		diags []string
		want  []string // lines of the block, "" for no block
	}{
		{"first errors", []string{diag(2, "undefined: x"), diag(5, "missing return")}, []string{"a.go:3:1: error: undefined: x", "a.go:6:1: error: missing return"}},
		{"moved down by an edit above", []string{diag(4, "undefined: x"), diag(7, "missing return")}, nil},
		{"a second undefined: x", []string{diag(4, "undefined: x"), diag(7, "missing return"), diag(9, "undefined: x")}, []string{"a.go:10:1: error: undefined: x"}},
		{"one fixed", []string{diag(4, "undefined: x"), diag(7, "missing return")}, nil},
		{"all fixed", nil, nil},
		{"back again", []string{diag(4, "undefined: x")}, []string{"a.go:5:1: error: undefined: x"}},
	} {
		t.Run(turn.name, func(t *testing.T) {
			p, _ := json.Marshal(lspext.PublishDiagnosticsParams{URI: uri, Diagnostics: json.RawMessage("[" + strings.Join(turn.diags, ",") + "]"), Native: true})
			c.HandleNotification(t.Context(), "lsp/publishDiagnostics", p)
			c.markTouched(uri)
			got := c.PromptContext("s1")
			var lines []string
			if got != "" {
				lines = strings.Split(strings.TrimSuffix(got, "\n"), "\n")[1:]
			}
			if diff := cmp.Diff(turn.want, lines); diff != "" {
				t.Errorf("block (-want +got):\n%s\nwhole block: %q", diff, got)
			}
		})
	}
}

// TestContextColumnsInCharacters: the injected block gives columns as the
// tool does, in characters, though the cached positions count UTF-16 units
// (an emoji is two); a file that cannot be read keeps the UTF-16 column.
func TestContextColumnsInCharacters(t *testing.T) {
	c, s, fb, _ := setup(t, Config{})
	c.Bind(s, "s1")
	if err := os.WriteFile(filepath.Join(s.Root, "e.go"), []byte("package e\n\nvar s = \"😀😀\" + x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		// x is the 16th character of its line, at UTF-16 unit 17 (0-based).
		{"e.go", "e.go:3:16: error: undefined: x"},
		{"gone.go", "gone.go:3:18: error: undefined: x"},
	} {
		uri := edit.URIFromPath(filepath.Join(s.Root, tc.file))
		fb.reports = make(chan []string, 1)
		fb.report = &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{{URI: uri, Diagnostics: json.RawMessage(`[{"range":{"start":{"line":2,"character":17},"end":{"line":2,"character":18}},"severity":1,"message":"undefined: x"}]`)}}}
		p, _ := json.Marshal(lspext.URIParams{URI: uri})
		c.HandleNotification(context.Background(), "_lsp/didSave", p)
		<-fb.reports
		c.fetches.Wait()
		if got := c.PromptContext("s1"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: context %q, want %q", tc.file, got, tc.want)
		}
	}
}
