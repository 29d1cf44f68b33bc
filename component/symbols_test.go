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

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// TestWorkspaceSymbolsRankedPages: the tool ranks the server's answer
// (TestRankSymbols), pages over the ranked list so page one holds the best
// matches, and shows a page file by file, files in the order of their best
// match, a file's symbols in rank order.
func TestWorkspaceSymbolsRankedPages(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	for _, f := range []string{"a.py", "b.py", "z.py"} {
		os.WriteFile(filepath.Join(s.Root, f), []byte(strings.Repeat("    queryset = 1\n", 6)), 0o644)
	}
	sym := func(kind int, name, file string, line int) string {
		return fmt.Sprintf(`{"name":%q,"kind":%d,"location":{"uri":%q,"range":{"start":{"line":%d,"character":4},"end":{"line":%d,"character":8}}}}`,
			name, kind, edit.URIFromPath(filepath.Join(s.Root, file)), line, line)
	}
	// pyright's order: every fuzzy match file by file, the class last.
	fb.set("workspace/symbol", "["+strings.Join([]string{
		sym(13, "queryset", "a.py", 1), sym(13, "queryset", "a.py", 3),
		sym(13, "queryset", "b.py", 1), sym(12, "get_queryset", "b.py", 4),
		sym(13, "queryset", "z.py", 0), sym(5, "QuerySet", "z.py", 4),
	}, ",")+"]")
	for _, tc := range []struct {
		offset int
		want   []string
	}{
		{0, []string{"z.py:5:5 class QuerySet", "a.py:2:5 variable queryset", "a.py:4:5 variable queryset"}},
		{3, []string{"b.py:2:5 variable queryset", "b.py:5:5 function get_queryset", "z.py:1:5 variable queryset"}},
	} {
		text, isErr := callTool(t, cs, map[string]any{"action": "symbols", "query": "QuerySet", "limit": 3, "offset": tc.offset})
		if isErr {
			t.Fatal(text)
		}
		var got []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "  ") {
				got = append(got, strings.TrimSpace(line))
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("offset %d (-want +got):\n%s\n%s", tc.offset, diff, text)
		}
	}
}

// TestFindSymbolAmbiguousRanked: a symbol name alone that names several
// symbols lists them best first: a type before a variable, the
// workspace's before a vendored copy.
func TestFindSymbolAmbiguousRanked(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	for _, f := range []string{"vendor/x/x.go", "a.go", "b.go"} {
		p := filepath.Join(s.Root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("package x\n\ntype Config struct{}\n"), 0o644)
	}
	loc := func(file string) string {
		return fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":2,"character":5},"end":{"line":2,"character":11}}}`, edit.URIFromPath(filepath.Join(s.Root, file)))
	}
	fb.set("workspace/symbol", `[{"name":"Config","kind":23,"location":`+loc("vendor/x/x.go")+`},{"name":"Config","kind":13,"location":`+loc("a.go")+`},{"name":"Config","kind":23,"location":`+loc("b.go")+`}]`)
	text, isErr := callTool(t, cs, map[string]any{"action": "definition", "symbol": "Config"})
	if !isErr {
		t.Fatalf("want an error naming the candidates, got:\n%s", text)
	}
	want := "give file and line of one of:\n  b.go:3:6 struct Config\n  vendor/x/x.go:3:6 struct Config\n  a.go:3:6 variable Config"
	if !strings.Contains(text, want) {
		t.Errorf("want %q in:\n%s", want, text)
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
			got, _, err := s.workspaceSymbols(context.Background(), "q")
			var want []wire.SymbolInformation
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
		if got := symbolLabel(wire.SymbolInformation{Name: c.name, Kind: 12, ContainerName: c.container}); got != c.want {
			t.Errorf("symbolLabel(%q in %q) = %q, want %q", c.name, c.container, got, c.want)
		}
	}
}
