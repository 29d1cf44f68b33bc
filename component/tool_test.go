package component

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
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
		{"impact", map[string]any{"action": "impact", "file": "main.go", "line": 5, "symbol": "add"}},
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

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestDecodeInput: arguments as clients send them, numbers and booleans as
// strings included; unknown arguments and wrong types are refused with a
// message that says what to send.
func TestDecodeInput(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		want    Input
		wantErr string
	}{
		{`{"action":"hover","file":"a.go","line":5,"symbol":"x"}`, Input{Action: "hover", File: "a.go", Line: 5, Symbol: "x"}, ""},
		{`{"action":"hover","line":"5","column":" 7 ","apply":"true"}`, Input{Action: "hover", Line: 5, Column: 7, Apply: true}, ""},
		{`null`, Input{}, ""},
		{`{"action":"hover","line":"five"}`, Input{}, "argument line must be a int, not a string"},
		{`{"action":"hover","lines":5}`, Input{}, `unknown argument "lines"; the lsp tool takes: action, file, line`},
		{`{"action":"hover"} {}`, Input{}, "trailing data"},
		{`[1]`, Input{}, "arguments:"},
	} {
		got, err := decodeInput(json.RawMessage(tc.raw))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.raw, err, tc.wantErr)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v %v, want %+v", tc.raw, got, err, tc.want)
		}
	}
	schema, err := inputSchema()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(schema)
	for _, f := range inputFields() {
		if !strings.Contains(string(b), `"`+f+`":{`) {
			t.Errorf("schema lacks %s: %s", f, b)
		}
	}
}
