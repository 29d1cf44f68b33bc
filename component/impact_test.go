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
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestIsTestCode: the one table of test-file conventions, for every
// language; folders above the workspace never count.
func TestIsTestCode(t *testing.T) {
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"calc/calc_test.go", true},
		{"calc/calc.go", false},
		{"calc/testing.go", false},
		{"tests/test_calc.py", true},
		{"pkg/test_calc.py", true},
		{"pkg/calc_test.py", true},
		{"conftest.py", true},
		{"pkg/testcalc.py", false},
		{"src/calc.test.ts", true},
		{"src/calc.spec.tsx", true},
		{"src/calc.spec.mjs", true},
		{"src/calc.ts", false},
		{"src/__tests__/calc.ts", true},
		{"test/helpers.js", true},
		{"tests/fixtures/data.rs", true},
		{"contest/calc.py", false},
		{"testdata/input.go", false},
		{"/home/u/tests/ws/lib/x.go", false}, // outside: folders do not count
		{"/usr/lib/go/src/fmt/fmt_test.go", true},
	} {
		if got := isTestCode(tc.file); got != tc.want {
			t.Errorf("isTestCode(%q) = %v, want %v", tc.file, got, tc.want)
		}
	}
}

// treeBackend answers incoming calls with fan callers per item, named
// after it ("f" calls nothing; "f3" is called by "f30" … "f39"), each on
// its own line of main.go, and refuses what the fake does not answer.
type treeBackend struct {
	*fakeBackend
	uri string
	fan int
}

func (b *treeBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	if method != "callHierarchy/incomingCalls" {
		return b.fakeBackend.Request(ctx, uri, method, params)
	}
	var p struct {
		Item struct {
			Name string `json:"name"`
		} `json:"item"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return lspext.RequestResult{}, err
	}
	var calls []string
	for i := range b.fan {
		name := fmt.Sprintf("%s%d", p.Item.Name, i)
		item, line := hierarchyItemJSON(b.uri, name)
		calls = append(calls, fmt.Sprintf(`{"from":%s,"fromRanges":[{"start":{"line":%d,"character":2},"end":{"line":%d,"character":3}}]}`, item, line+1, line+1))
	}
	return lspext.RequestResult{Result: json.RawMessage("[" + strings.Join(calls, ",") + "]")}, nil
}

// hierarchyItemJSON is a function item named name in uri, at a line of its
// own (a hash of its name), and that line.
func hierarchyItemJSON(uri, name string) (string, int) {
	line := 0
	for _, c := range name {
		line = line*31 + int(c)
	}
	line = line % 100000
	return fmt.Sprintf(`{"name":%q,"kind":12,"uri":%q,"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":9}},"selectionRange":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":6}}}`, name, uri, line, line+2, line, line), line
}

// TestImpactBounds: callers are walked level by level to the depth asked
// (2 by default, at most 5: more is cut with a note), and stop at 200 found,
// saying so; pages of the rows keep the counts, and a budget too small for
// the rows keeps them too.
func TestImpactBounds(t *testing.T) {
	fb := newFake()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := edit.URIFromPath(filepath.Join(root, "main.go"))
	fb.set("textDocument/references", `[]`)
	fb.set("textDocument/implementation", `[]`)
	f, _ := hierarchyItemJSON(uri, "f")
	fb.set("textDocument/prepareCallHierarchy", "["+f+"]")
	fb.set("textDocument/prepareTypeHierarchy", `null`)
	_, s := startSession(t, Config{StructuredContent: true}, &treeBackend{fakeBackend: fb, uri: uri, fan: 10}, root)
	cs := connect(t, s)
	call := func(args map[string]any) (string, impactCounts, listing) {
		t.Helper()
		args["action"], args["file"], args["line"], args["symbol"] = "impact", "main.go", 5, "add"
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("impact %v: %v %v", args, err, res)
		}
		var data struct {
			Counts  impactCounts `json:"counts"`
			Listing listing      `json:"listing"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, data.Counts, data.Listing
	}
	for _, tc := range []struct {
		name    string
		args    map[string]any
		callers []int
		rows    int
		line    string // the callers line
		note    string
	}{
		{"default depth", map[string]any{}, []int{10, 100}, 110,
			"callers: 10 at depth 1, 100 at depth 2 (walked 2 levels up; depth up to 5 walks further)", ""},
		{"depth 1", map[string]any{"depth": 1}, []int{10}, 10,
			"callers: 10 at depth 1 (walked 1 level up; depth up to 5 walks further)", ""},
		{"stops at 200", map[string]any{"depth": 3}, []int{10, 100, 90}, 200,
			"callers: 10 at depth 1, 100 at depth 2, 90 at depth 3 (walked 3 levels up; depth up to 5 walks further) (stopped at 200: the rest not asked)", ""},
		{"over the most", map[string]any{"depth": 9}, []int{10, 100, 90, 0, 0}, 200,
			"callers: 10 at depth 1, 100 at depth 2, 90 at depth 3 (stopped at 200: the rest not asked)",
			"note: depth 9 is over the most, 5: callers were walked 5 levels up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, counts, l := call(tc.args)
			if diff := cmp.Diff(tc.callers, counts.Callers); diff != "" {
				t.Errorf("callers per depth (-want +got):\n%s\n%s", diff, text)
			}
			if l.Total != tc.rows || !strings.Contains(text, "\n"+tc.line+"\n") {
				t.Errorf("want %d rows and %q:\n%s", tc.rows, tc.line, text)
			}
			if tc.note != "" && !strings.Contains(text, tc.note+"\n") {
				t.Errorf("want %q:\n%s", tc.note, text)
			}
		})
	}
	t.Run("pages keep the counts", func(t *testing.T) {
		text, counts, l := call(map[string]any{"depth": 1, "offset": 8, "limit": 5})
		if l.Offset != 8 || l.Shown != 2 || l.Total != 10 || counts.Callers[0] != 10 ||
			!strings.HasPrefix(text, "impact of function f at main.go:5:6: 10 (showing 9-10)\nreferences: none\ncallers: 10 at depth 1") {
			t.Errorf("page 9-10 of 10, counts first:\n%s", text)
		}
	})
	t.Run("a small budget keeps the counts", func(t *testing.T) {
		_, s := startSession(t, Config{Budget: 1000, StructuredContent: true}, &treeBackend{fakeBackend: fb, uri: uri, fan: 10}, root)
		cs = connect(t, s)
		text, counts, l := call(map[string]any{})
		if l.Form != "counts" || counts.Callers[1] != 100 || !strings.HasPrefix(text, "impact of function f at main.go:5:6: 110 (showing 1-50)\nreferences: none\ncallers: 10 at depth 1, 100 at depth 2") {
			t.Errorf("form %s: want the per-file counts with the impact's counts first:\n%s", l.Form, text)
		}
	})
}

// TestImpactFilesBound: the symbols holding references are looked up in
// the first 100 files (a documentSymbol request each); the references in
// the files beyond are grouped by file, counted as held by no symbol and
// not at top level, and a note says so.
func TestImpactFilesBound(t *testing.T) {
	fb := newFake()
	root := t.TempDir()
	var locs []string
	for i := range impactMaxFiles + 5 {
		p := filepath.Join(root, fmt.Sprintf("f%03d.go", i))
		if err := os.WriteFile(p, []byte("package p\n\nfunc F() { add(1, 2); add(3, 4) }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{11, 22} {
			locs = append(locs, fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":2,"character":%d},"end":{"line":2,"character":%d}}}`, edit.URIFromPath(p), c, c+3))
		}
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	fb.set("textDocument/references", "["+strings.Join(locs, ",")+"]")
	fb.set("textDocument/implementation", `[]`)
	fb.set("textDocument/prepareCallHierarchy", `[]`)
	fb.set("textDocument/prepareTypeHierarchy", `[]`)
	fb.set("textDocument/documentSymbol", `[{"name":"F","kind":12,"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":34}},"selectionRange":{"start":{"line":2,"character":5},"end":{"line":2,"character":6}}}]`)
	_, s := startSession(t, Config{}, fb, root)
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{
		"action": "impact", "file": "main.go", "line": 5, "symbol": "add", "offset": 98, "limit": 4}})
	if err != nil || res.IsError {
		t.Fatalf("impact: %v %v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{
		"impact of add at main.go:5:6: 105 (showing 99-102)\n",
		"references: 210 in 105 files: held by 100 symbols\n",
		"  f099.go:3:12 in function F: 2 references (3:12, 3:23)\n",
		"  f100.go:3:12 2 references (3:12, 3:23)\n",
		"note: the symbols holding the places were looked up in the first 100 files only: the references in the others are grouped by file\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in:\n%s", want, text)
		}
	}
	if got := len(symbolRequests(fb)); got != impactMaxFiles {
		t.Errorf("document symbols asked for %d files, want %d", got, impactMaxFiles)
	}
}
