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
