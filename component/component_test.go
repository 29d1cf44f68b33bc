package component

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/component")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const mainGo = `package main

import "fmt"

func add(a, b int) int { return a + b }

func main() {
	fmt.Println(add(1, 2), add(3, 4))
}
`

// setup starts a component on a fake backend with a Go workspace and
// returns a connected MCP client session.
func setup(t *testing.T, cfg Config) (*Tool, *Session, *fakeBackend, *mcp.ClientSession) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	fb := newFake()
	c, s := startSession(t, cfg, fb, root)
	return c, s, fb, connect(t, s)
}

// startSession starts a Component (Executable /bin/acp-lsp) answering
// through backend and opens a session on root; the Component closes when
// the test ends.
func startSession(t testing.TB, cfg Config, backend Backend, root string) (*Tool, *Session) {
	t.Helper()
	cfg.Executable = "/bin/acp-lsp"
	c, err := New(cfg, backend)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := c.NewSession(root)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// connect returns an in-memory MCP client session on s's server.
func connect(t testing.TB, s *Session) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		t.Fatalf("call %v: %v", args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestToolGolden renders every read action against canned server answers
// and compares with testdata/component/tool.txtar.
func TestToolGolden(t *testing.T) {
	c, s, fb, cs := setup(t, Config{})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	loc := func(line, char int) string {
		return fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}`, uri, line, char, line, char+3)
	}
	fb.set("textDocument/definition", "["+loc(4, 5)+"]")
	fb.set("textDocument/references", "["+loc(4, 5)+","+loc(7, 13)+","+loc(7, 25)+"]")
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
	fb.set("textDocument/documentSymbol", `[{"name":"add","kind":12,"detail":"func(a, b int) int","range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}},{"name":"main","kind":12,"range":{"start":{"line":6,"character":0},"end":{"line":8,"character":1}},"selectionRange":{"start":{"line":6,"character":5},"end":{"line":6,"character":9}}}]`)
	fb.set("workspace/symbol", `[{"name":"add","kind":12,"location":`+loc(4, 5)+`},{"name":"Println","kind":12,"location":{"uri":"file:///usr/lib/go/src/fmt/print.go","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}}},{"name":"log.Println","kind":12,"location":{"uri":"file:///usr/lib/go/src/log/log.go","range":{"start":{"line":9,"character":5},"end":{"line":9,"character":12}}}}]`)
	fb.set("textDocument/prepareCallHierarchy", `[{"name":"add","kind":12,"uri":`+fmt.Sprintf("%q", uri)+`,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`)
	fb.set("callHierarchy/incomingCalls", `[{"from":{"name":"main","kind":12,"uri":`+fmt.Sprintf("%q", uri)+`,"range":{"start":{"line":6,"character":0},"end":{"line":8,"character":1}},"selectionRange":{"start":{"line":6,"character":5},"end":{"line":6,"character":9}}},"fromRanges":[]}]`)
	fb.set("textDocument/codeAction", `[{"title":"Inline call","kind":"refactor.inline"},{"title":"Extract function","kind":"refactor.extract","isPreferred":true},{"title":"Organize imports","kind":"source.organizeImports"}]`)
	fb.set("textDocument/typeDefinition", "["+loc(4, 5)+"]")
	fb.set("textDocument/implementation", "[]")
	fb.set("textDocument/declaration", `{"targetUri":`+fmt.Sprintf("%q", uri)+`,"targetRange":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"targetSelectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}`)
	fb.set("textDocument/signatureHelp", `{"signatures":[{"label":"add(a, b int) int","documentation":{"kind":"markdown","value":"adds"}}],"activeSignature":0,"activeParameter":1}`)
	fb.set("textDocument/prepareTypeHierarchy", `[{"name":"T","kind":23,"uri":`+fmt.Sprintf("%q", uri)+`,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`)
	fb.set("typeHierarchy/supertypes", `[{"name":"Stringer","kind":11,"uri":"file:///usr/lib/go/src/fmt/print.go","range":{"start":{"line":62,"character":5},"end":{"line":62,"character":13}},"selectionRange":{"start":{"line":62,"character":5},"end":{"line":62,"character":13}}}]`)
	fb.set("callHierarchy/outgoingCalls", `[{"to":{"name":"add","kind":12,"uri":`+fmt.Sprintf("%q", uri)+`,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}},"fromRanges":[]}]`)
	fb.report = &lspext.DiagnosticReportResult{
		Files:   []lspext.FileDiagnostics{{URI: uri, Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}},"severity":1,"source":"compiler","code":"WrongArgCount","message":"not enough arguments in call to add"},{"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}},"severity":4,"message":"hint hidden"}]`)}},
		Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}},
	}

	cases := []struct {
		name string
		args map[string]any
	}{
		{"diagnostics", map[string]any{"action": "diagnostics", "file": "main.go"}},
		{"diagnostics-glob", map[string]any{"action": "diagnostics", "file": "**/*.go", "severity": "hint"}},
		{"definition", map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}},
		{"definition-by-name", map[string]any{"action": "definition", "symbol": "add"}},
		{"definition-ambiguous", map[string]any{"action": "definition", "symbol": "Println"}},
		{"references", map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}},
		{"references-paged", map[string]any{"action": "references", "file": "main.go", "line": 5, "column": 6, "limit": 2}},
		{"hover", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}},
		{"symbols", map[string]any{"action": "symbols", "file": "main.go"}},
		{"workspace-symbols", map[string]any{"action": "symbols", "query": "add", "kind": "function"}},
		{"call-hierarchy", map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 5, "symbol": "add"}},
		{"code-actions", map[string]any{"action": "code_actions", "file": "main.go", "line": 8, "kind": "refactor"}},
		{"status", map[string]any{"action": "status"}},
		{"servers", map[string]any{"action": "servers", "file": "main.go"}},
		{"diagnostics-workspace-errors", map[string]any{"action": "diagnostics", "file": "*", "severity": "error"}},
		{"diagnostics-bad-severity", map[string]any{"action": "diagnostics", "severity": "fatal"}},
		{"type-definition", map[string]any{"action": "type_definition", "file": "main.go", "line": 8, "symbol": "add"}},
		{"implementation-none", map[string]any{"action": "implementation", "file": "main.go", "line": 5, "symbol": "add"}},
		{"declaration-link", map[string]any{"action": "declaration", "file": "main.go", "line": 8, "symbol": "add#2"}},
		{"signature-help", map[string]any{"action": "signature_help", "file": "main.go", "line": 8, "column": 18}},
		{"type-hierarchy", map[string]any{"action": "type_hierarchy", "file": "main.go", "line": 5, "symbol": "add"}},
		{"call-hierarchy-outgoing", map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 7, "symbol": "main", "direction": "outgoing"}},
		{"symbols-kind", map[string]any{"action": "symbols", "file": "main.go", "kind": "function", "offset": 1}},
		{"symbols-kind-none", map[string]any{"action": "symbols", "file": "main.go", "kind": "struct"}},
		{"code-actions-source", map[string]any{"action": "code_actions", "file": "main.go", "line": 3, "kind": "source"}},
		{"bad-column", map[string]any{"action": "hover", "file": "main.go", "line": 5, "column": 80}},
		{"bad-occurrence", map[string]any{"action": "hover", "file": "main.go", "line": 8, "symbol": "add#3"}},
		{"line-without-symbol", map[string]any{"action": "hover", "file": "main.go", "line": 5}},
		{"no-symbol-anywhere", map[string]any{"action": "definition", "symbol": "nowhere"}},
		{"capabilities", map[string]any{"action": "capabilities"}},
		{"bad-symbol", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "sub"}},
		{"bad-line", map[string]any{"action": "hover", "file": "main.go", "line": 50, "column": 1}},
		{"request-off", map[string]any{"action": "request", "method": "textDocument/foldingRange"}},
		{"unknown", map[string]any{"action": "compile"}},
	}
	var got archive
	for _, tc := range cases {
		text, isErr := callTool(t, cs, tc.args)
		if isErr {
			text = "ERROR: " + text
		}
		text = strings.ReplaceAll(text, s.Root, "$ROOT")
		got = append(got, section{tc.name, strings.TrimRight(text, "\n") + "\n"})
	}
	if c.Cache().Len() != 1 {
		t.Errorf("diagnostics answers were not cached: %d files", c.Cache().Len())
	}
	golden(t, "tool.txtar", got)
}

// section is one file of a txtar archive; archive is written and read
// here because go-internal's txtar needs a module this checkout does not
// pin.
type section struct{ name, data string }

type archive []section

func (a archive) format() string {
	var b strings.Builder
	for _, s := range a {
		fmt.Fprintf(&b, "-- %s --\n%s", s.name, s.data)
	}
	return b.String()
}

func parseArchive(text string) archive {
	var a archive
	for _, line := range strings.SplitAfter(text, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			a = append(a, section{name: strings.TrimSuffix(name, " --")})
			continue
		}
		if len(a) > 0 {
			a[len(a)-1].data += line
		}
	}
	return a
}

func golden(t *testing.T, name string, got archive) {
	t.Helper()
	path := filepath.Join("..", "testdata", "component", name)
	if *update {
		if err := os.WriteFile(path, []byte(got.format()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	want := parseArchive(string(b))
	wm := map[string]string{}
	for _, f := range want {
		wm[f.name] = f.data
	}
	for _, f := range got {
		if diff := cmp.Diff(wm[f.name], f.data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.name, diff)
		}
	}
	if len(want) != len(got) {
		t.Errorf("golden has %d sections, got %d (run with -update)", len(want), len(got))
	}
}

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

func TestWorkspaceIsolation(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	fb.set("textDocument/hover", `null`)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(s.Root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Root, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../secret.go", "../../etc/passwd", filepath.Join(outside, "secret.go"), "/etc/passwd", "link.go", "dir/secret.go"} {
		for _, action := range []string{"hover", "diagnostics", "rename", "format"} {
			text, isErr := callTool(t, cs, map[string]any{"action": action, "file": file, "line": 1, "symbol": "package", "new_name": "x", "apply": true})
			if !isErr || !strings.Contains(text, "outside the workspace") {
				t.Errorf("%s %s: not refused: %s", action, file, text)
			}
		}
	}
	// Targets outside: a move's new path, a glob climbing out.
	os.WriteFile(filepath.Join(s.Root, "util.go"), []byte("package main\n"), 0o644)
	fb.set("workspace/willRenameFiles", "null")
	for _, args := range []map[string]any{
		{"action": "rename_file", "file": "util.go", "new_name": "../util.go", "apply": true},
		{"action": "rename_file", "file": "util.go", "new_name": filepath.Join(outside, "util.go"), "apply": true},
		{"action": "rename_file", "file": "util.go", "new_name": "dir/util.go", "apply": true},
		{"action": "diagnostics", "file": "../*.go"},
		{"action": "diagnostics", "file": filepath.Join(outside, "*.go")},
		{"action": "symbols", "file": "link.go"},
		{"action": "request", "file": "../x.go", "method": "textDocument/hover"},
	} {
		text, isErr := callTool(t, cs, args)
		if !isErr || !strings.Contains(text, "outside the workspace") && !strings.Contains(text, "turned off") {
			t.Errorf("%v: not refused: %s", args, text)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Root, "util.go")); err != nil {
		t.Errorf("util.go moved: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder outside changed: %v", entries)
	}
	// A rename whose edit points outside is refused as a whole.
	fb.set("textDocument/rename", fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}},"newText":"x"}]}}`, edit.URIFromPath(filepath.Join(outside, "secret.go"))))
	text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "x", "apply": true})
	if !isErr {
		t.Errorf("rename touching a file outside applied: %s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.go")); string(b) != "package secret\n" {
		t.Errorf("file outside changed: %q", b)
	}
}

func TestRenamePermission(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprint(allow), func(t *testing.T) {
			var asked []string
			cfg := Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
				asked = append(asked, sid+"|"+title+"|"+diff)
				return allow, nil
			}}
			c, s, fb, cs := setup(t, cfg)
			c.Bind(s, "sess-1")
			path := filepath.Join(s.Root, "main.go")
			uri := edit.URIFromPath(path)
			e := func(l, ch int) string {
				return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"newText":"sum"}`, l, ch, l, ch+3)
			}
			fb.set("textDocument/rename", fmt.Sprintf(`{"changes":{%q:[%s,%s,%s]}}`, uri, e(4, 5), e(7, 13), e(7, 25)))
			preview, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum"})
			if isErr || !strings.Contains(preview, "+func sum(a, b int)") || len(asked) != 0 {
				t.Fatalf("preview: %v %s (asked %d)", isErr, preview, len(asked))
			}
			text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true})
			if len(asked) != 1 || !strings.HasPrefix(asked[0], "sess-1|rename add to sum|") || !strings.Contains(asked[0], "+func sum") {
				t.Errorf("permission asks: %q", asked)
			}
			b, _ := os.ReadFile(path)
			if allow {
				if isErr || !strings.Contains(string(b), "func sum(a, b int)") || strings.Contains(string(b), "add(") {
					t.Errorf("allowed rename: %v %s\n%s", isErr, text, b)
				}
				if len(fb.changed) != 1 || fb.changed[0][0].URI != uri {
					t.Errorf("filesChanged: %+v", fb.changed)
				}
			} else {
				if !isErr || !strings.Contains(text, "declined") || string(b) != mainGo {
					t.Errorf("denied rename: %v %s\n%s", isErr, text, b)
				}
				if len(fb.changed) != 0 {
					t.Errorf("filesChanged after denial: %+v", fb.changed)
				}
			}
		})
	}
}

func TestBudget(t *testing.T) {
	_, s, fb, cs := setup(t, Config{Budget: 300})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	var locs []string
	for i := 0; i < 40; i++ {
		locs = append(locs, fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":1}}}`, uri, i%9, i%9))
	}
	fb.set("textDocument/references", "["+strings.Join(locs, ",")+"]")
	text, _ := callTool(t, cs, map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"})
	if len(text) > 400 || !strings.Contains(text, "note:") {
		t.Errorf("budget not kept or not noted (%d chars):\n%s", len(text), text)
	}
}

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
		out, s, err := c.PatchSessionSetup(json.RawMessage(tc.params), tc.http)
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
	if _, _, err := c.PatchSessionSetup(json.RawMessage(`{"mcpServers":[]}`), false); err == nil {
		t.Error("setup without cwd accepted")
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestTransportsSecurity(t *testing.T) {
	c, err := New(Config{}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := os.Stat(c.SocketDir())
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode %v, %v", st.Mode().Perm(), err)
	}
	s, err := c.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + c.HTTPAddr() + "/mcp"
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tok := range []string{"", "Bearer wrong", "Basic " + s.token} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("authorization %q: status %d, want 401", tok, resp.StatusCode)
		}
	}
	// DNS rebinding: a right token from a foreign Host is still refused.
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Host = "evil.example:80"
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Errorf("foreign Host accepted: %d", resp.StatusCode)
	}

	// Over HTTP with the token: server/discover gets -32601, initialize
	// answers either protocol version agents use.
	post := func(body string) map[string]any {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %v", body, resp.StatusCode, err)
		}
		return m
	}
	if e, _ := post(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Errorf("http server/discover answered %v", e)
	}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		m := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, v))
		if res, _ := m["result"].(map[string]any); res == nil || res["protocolVersion"] != v {
			t.Errorf("http initialize %s answered %v", v, m)
		}
	}

	// Over stdio (the socket the bridge uses): server/discover gets
	// -32601, then initialize works, with either protocol version.
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		conn, err := net.Dial("unix", c.socketPath(s))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		send := func(line string) map[string]any {
			if _, err := conn.Write([]byte(line + "\n")); err != nil {
				t.Fatal(err)
			}
			out, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			json.Unmarshal(out, &m)
			return m
		}
		m := send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
			t.Errorf("server/discover answered %v", m)
		}
		m = send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, v))
		res, _ := m["result"].(map[string]any)
		if res == nil || res["protocolVersion"] != v {
			t.Errorf("initialize %s answered %v", v, m)
		}
		conn.Close()
	}

	// A closed session's token and socket stop working.
	c.CloseSession(s)
	req, _ = http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("closed session's token: status %d", resp.StatusCode)
	}
	if conn, err := net.Dial("unix", c.socketPath(s)); err == nil {
		conn.Close()
		t.Error("closed session's socket still accepts")
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

// TestRenderLevels: a listing shortens step by step as the budget
// shrinks (full, without source lines, per-file counts, the total alone),
// each cut saying what was left out, and paging notes survive every level.
func TestRenderLevels(t *testing.T) {
	var items []item
	for i := range 30 {
		items = append(items, item{File: fmt.Sprintf("pkg%d/file.go", i%3), Line: i + 1, Column: 2, Context: strings.Repeat("x", 40)})
	}
	l := &listing{Title: "references"}
	page(Input{Limit: 25}, items, l)
	full := renderLevel(l, 0)
	noCtx := renderLevel(l, 1)
	counts := renderLevel(l, 2)
	for _, tc := range []struct {
		budget int
		want   []string
		not    []string
	}{
		{len(full), []string{"references: 30 (showing 1-25)", "pkg0/file.go:1:2", strings.Repeat("x", 40), "offset=25"}, []string{"note: source lines"}},
		{len(full) - 1, []string{"pkg0/file.go:1:2", "note: source lines left out", "offset=25"}, []string{strings.Repeat("x", 40)}},
		{len(noCtx) - 1, []string{"pkg0/file.go: 9", "pkg2/file.go: 8", "note: only counts per file", "offset=25"}, []string{":1:2"}},
		{len(counts) - 1, []string{"note: 25 results in 3 files do not fit", "offset=25"}, []string{"pkg0/file.go"}},
	} {
		got, _ := render(l, tc.budget, 0)
		if len(got) > tc.budget && !strings.Contains(got, "do not fit") {
			t.Errorf("budget %d: %d chars", tc.budget, len(got))
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("budget %d: want %q in:\n%s", tc.budget, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("budget %d: %q should be cut:\n%s", tc.budget, n, got)
			}
		}
	}
}

// TestFreshnessVerdicts: every verdict is shown per server; "no problems"
// only when a server answered fresh; results without a fresh server are
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
		{"one fresh one timeout", nil, []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}, {Server: "golangci", Verdict: "timeout"}}, []string{"gopls: fresh; golangci: timeout", "no problems: the servers marked fresh"}, nil},
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

// TestWorkspaceSymbolsKeepRank: the server's best match comes first, so
// files are listed in the order of their first symbol in its answer, not
// by name; within a file, by position.
func TestWorkspaceSymbolsKeepRank(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	for _, f := range []string{"a.go", "z.go"} {
		os.WriteFile(filepath.Join(s.Root, f), []byte("package main\n\nfunc Parse() {}\n\nfunc ParseAll() {}\n"), 0o644)
	}
	loc := func(file string, line int) string {
		return fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":8}}}`, edit.URIFromPath(filepath.Join(s.Root, file)), line, line)
	}
	fb.set("workspace/symbol", `[{"name":"ParseAll","kind":12,"location":`+loc("z.go", 4)+`},{"name":"Parse","kind":12,"location":`+loc("a.go", 2)+`},{"name":"Parse","kind":12,"location":`+loc("z.go", 2)+`}]`)
	text, isErr := callTool(t, cs, map[string]any{"action": "symbols", "query": "ParseAll"})
	if isErr {
		t.Fatal(text)
	}
	want := []string{"z.go:3:6 function Parse", "z.go:5:6 function ParseAll", "a.go:3:6 function Parse"}
	at := -1
	for _, w := range want {
		i := strings.Index(text, w)
		if i < 0 || i < at {
			t.Fatalf("want %q in this order in:\n%s", want, text)
		}
		at = i
	}
}

// TestWorkspaceSymbolsDecode: the answer decodes as encoding/json decodes
// it, odd answers too (other letter case, repeated or null fields, bad
// UTF-8), and what encoding/json refuses is refused.
func TestWorkspaceSymbolsDecode(t *testing.T) {
	_, s, fb, _ := setup(t, Config{})
	loc := `"location":{"uri":"file:///w/a.go","range":{"start":{"line":2,"character":5},"end":{"line":2,"character":8}}}`
	for _, tc := range []struct {
		name, raw string
	}{
		{"usual", `[{"name":"Parse","kind":12,"containerName":"p",` + loc + `,"tags":[1]},{"name":"Q","kind":5,` + loc + `}]`},
		{"empty", `[]`},
		{"null", `null`},
		{"other case", `[{"Name":"Parse","KIND":12,"ContainerName":"p",` + strings.ReplaceAll(loc, `"uri"`, `"URI"`) + `}]`},
		{"repeated field", `[{"name":"A","name":"B","kind":12,` + loc + `}]`},
		{"null fields", `[{"name":null,"kind":null,"location":null}]`},
		{"bad utf-8", "[{\"name\":\"a\xffb\",\"kind\":12," + loc + "}]"},
		{"escapes", `[{"name":"a\u00e9\"b\\","kind":12,` + loc + `}]`},
		{"fraction", `[{"name":"A","kind":12.5,` + loc + `}]`},
		{"negative line", `[{"name":"A","kind":12,"location":{"uri":"x","range":{"start":{"line":-1,"character":0}}}}]`},
		{"string kind", `[{"name":"A","kind":"12",` + loc + `}]`},
		{"not a list", `{"name":"A"}`},
		{"cut", `[{"name":"A","kind":12`},
		{"trailing", `[] []`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fb.set("workspace/symbol", tc.raw)
			got, err := s.workspaceSymbols(context.Background(), "q")
			var want []symbolInfo
			var werr error
			if tc.raw != "null" {
				werr = json.Unmarshal([]byte(tc.raw), &want)
			}
			if (err != nil) != (werr != nil) {
				t.Fatalf("error %v, encoding/json's %v", err, werr)
			}
			if err == nil {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("decoded (-encoding/json +got):\n%s", diff)
				}
			}
		})
	}
}

// TestRendererWithin: the renderer's check of an answer's paths, which
// resolves links only where one is and keeps paths beside the workspace
// for the session, says what the session's check says, for every kind of
// path an answer can name.
func TestRendererWithin(t *testing.T) {
	_, s, _, _ := setup(t, Config{})
	root := s.Root
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(path string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) {
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(root, "sub", "deep", "b.go"))
	mk(filepath.Join(outside, "secret.go"))
	mk(filepath.Join(outside, "lib", "c.go"))
	link(filepath.Join(outside, "secret.go"), filepath.Join(root, "out.go"))
	link(outside, filepath.Join(root, "outdir"))
	link(filepath.Join(root, "main.go"), filepath.Join(root, "in.go"))
	link(filepath.Join(root, "sub"), filepath.Join(root, "insub"))
	link(root, filepath.Join(outside, "toroot"))
	link(filepath.Join(root, "main.go"), filepath.Join(outside, "tomain.go"))
	cases := []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "main.go"), true},
		{filepath.Join(root, "sub", "deep", "b.go"), true},
		{filepath.Join(root, "sub", "deep"), true},
		{root, true},
		{filepath.Join(root, "missing.go"), true},
		{filepath.Join(root, "sub", "missing", "x.go"), true},
		{filepath.Join(root, "in.go"), true},
		{filepath.Join(root, "insub", "deep", "b.go"), true},
		{filepath.Join(outside, "toroot", "main.go"), true},
		{filepath.Join(outside, "tomain.go"), true},
		{filepath.Join(root, "out.go"), false},
		{filepath.Join(root, "outdir", "lib", "c.go"), false},
		{filepath.Join(root, "outdir", "missing.go"), false},
		{filepath.Join(outside, "lib", "c.go"), false},
		{filepath.Join(outside, "missing.go"), false},
		{"/", false},
		{root + "/sub/../main.go", true},
		{root + "/../x.go", false},
	}
	// Twice: the second time with what the session kept of the first.
	for _, tc := range append(cases, cases...) {
		r := s.newRenderer()
		got := r.within(tc.path)
		if got != tc.want || got != (s.checkPath(tc.path) == nil) {
			t.Errorf("within(%s) = %v, want %v (the session's check: %v)", tc.path, got, tc.want, s.checkPath(tc.path))
		}
		// A second path in the same answer shares the directories seen.
		if again := r.within(filepath.Join(filepath.Dir(tc.path), "main.go")); again != (s.checkPath(filepath.Join(filepath.Dir(tc.path), "main.go")) == nil) {
			t.Errorf("within(%s) after %s = %v, the session's check disagrees", filepath.Join(filepath.Dir(tc.path), "main.go"), tc.path, again)
		}
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

// TestSymbolLabel: the container is named unless the name starts with it
// (gopls's package-qualified names), so a package path is not said twice.
func TestSymbolLabel(t *testing.T) {
	for _, c := range []struct {
		name, container, want string
	}{
		{"ParseCheck", "example.com/m/checker", "function ParseCheck (in example.com/m/checker)"},
		{"example.com/m/checker_test.TestCheck", "example.com/m/checker_test", "function example.com/m/checker_test.TestCheck"},
		{"parser.checkNodeLimit", "example.com/m/parser", "function parser.checkNodeLimit (in example.com/m/parser)"},
		{"example.com/m/checkerX.F", "example.com/m/checker", "function example.com/m/checkerX.F (in example.com/m/checker)"},
		{"example.com/m/checker", "example.com/m/checker", "function example.com/m/checker (in example.com/m/checker)"},
		{"main", "", "function main"},
	} {
		if got := symbolLabel(symbolInfo{Name: c.name, Kind: 12, ContainerName: c.container}); got != c.want {
			t.Errorf("symbolLabel(%q in %q) = %q, want %q", c.name, c.container, got, c.want)
		}
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
