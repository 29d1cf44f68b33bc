package component

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// TestRankSymbols: workspace symbols are ordered by how the name matches
// the query, then kind, then place, then the lengths of container and
// path, then the server's order, whatever order the server answered in.
func TestRankSymbols(t *testing.T) {
	// sym is "kind name [container] path"; a path under /usr is outside
	// the workspace.
	sym := func(kind int, name, container, path string) wire.SymbolInformation {
		return wire.SymbolInformation{Name: name, Kind: kind, ContainerName: container,
			Location: wire.Location{URI: "file://" + path}}
	}
	where := func(uri string) (string, bool) {
		p := strings.TrimPrefix(uri, "file://")
		if rel, ok := strings.CutPrefix(p, "/w/"); ok {
			return rel, true
		}
		return p, false
	}
	const (
		class, method, function, variable, constant, module, iface, typeParam = 5, 6, 12, 13, 14, 2, 11, 26
	)
	for _, tc := range []struct {
		name  string
		query string
		in    []wire.SymbolInformation
		want  []string // names with their paths, best first
	}{
		{"class after locals (pyright's order)", "QuerySet", []wire.SymbolInformation{
			sym(variable, "queryset", "view_a", "/w/app/views.py"),
			sym(variable, "queryset", "view_b", "/w/app/views.py"),
			sym(class, "QuerySet", "", "/w/db/query.py"),
		}, []string{"QuerySet /w/db/query.py", "queryset /w/app/views.py", "queryset /w/app/views.py"}},
		{"exact, letter case, prefix, the rest", "Parse", []wire.SymbolInformation{
			sym(function, "MustParse", "", "/w/a.go"),
			sym(function, "ParseAll", "", "/w/a.go"),
			sym(function, "parse", "", "/w/a.go"),
			sym(function, "Parse", "", "/w/a.go"),
		}, []string{"Parse /w/a.go", "parse /w/a.go", "ParseAll /w/a.go", "MustParse /w/a.go"}},
		{"prefix ignores letter case", "quer", []wire.SymbolInformation{
			sym(variable, "aQuery", "", "/w/a.py"),
			sym(variable, "QueryDict", "", "/w/a.py"),
		}, []string{"QueryDict /w/a.py", "aQuery /w/a.py"}},
		{"the match beats the kind", "queryset", []wire.SymbolInformation{
			sym(class, "QuerySet", "", "/w/db/query.py"),
			sym(variable, "queryset", "view", "/w/app/views.py"),
		}, []string{"queryset /w/app/views.py", "QuerySet /w/db/query.py"}},
		{"a qualified name matches by its last part, after the name itself", "Run", []wire.SymbolInformation{
			sym(function, "Runner", "", "/w/a.go"),
			sym(function, "run", "", "/w/r.go"),
			sym(method, "Server.Run", "", "/w/s.go"),
			sym(function, "example.com/m/cmd.Run", "", "/w/cmd/run.go"),
			sym(function, "Run", "", "/w/cmd/longer/path/run.go"),
		}, []string{"Run /w/cmd/longer/path/run.go", "Server.Run /w/s.go", "example.com/m/cmd.Run /w/cmd/run.go", "run /w/r.go", "Runner /w/a.go"}},
		{"a qualified query matches the whole name", "Server.Run", []wire.SymbolInformation{
			sym(method, "Client.Run", "", "/w/c.go"),
			sym(method, "Server.Run", "", "/w/s.go"),
		}, []string{"Server.Run /w/s.go", "Client.Run /w/c.go"}},
		{"types, functions, modules, the rest", "Node", []wire.SymbolInformation{
			sym(typeParam, "Node", "", "/w/a.ts"),
			sym(constant, "Node", "", "/w/b.ts"),
			sym(module, "Node", "", "/w/c.ts"),
			sym(function, "Node", "", "/w/d.ts"),
			sym(iface, "Node", "", "/w/e.ts"),
			sym(class, "Node", "", "/w/f.ts"),
		}, []string{"Node /w/e.ts", "Node /w/f.ts", "Node /w/d.ts", "Node /w/c.ts", "Node /w/a.ts", "Node /w/b.ts"}},
		{"the workspace, its dependency folders, outside", "Get", []wire.SymbolInformation{
			sym(function, "Get", "", "/usr/lib/go/src/net/http/client.go"),
			sym(function, "Get", "", "/w/vendor/x/get.go"),
			sym(function, "Get", "", "/w/.venv/lib/python3.12/site-packages/r/api.py"),
			sym(function, "Get", "", "/w/node_modules/x/get.js"),
			sym(function, "Get", "", "/w/internal/deep/down/here/get.go"),
			sym(function, "Get", "", "/w/.hidden.go"),
		}, []string{"Get /w/.hidden.go", "Get /w/internal/deep/down/here/get.go", "Get /w/vendor/x/get.go",
			"Get /w/node_modules/x/get.js", "Get /w/.venv/lib/python3.12/site-packages/r/api.py", "Get /usr/lib/go/src/net/http/client.go"}},
		{"shorter container, then shorter path, then the server's order", "Close", []wire.SymbolInformation{
			sym(method, "Close", "LongTypeName", "/w/a.go"),
			sym(method, "Close", "T", "/w/deeper/b.go"),
			sym(method, "Close", "T", "/w/b.go"),
			sym(method, "Close", "T", "/w/c.go"),
		}, []string{"Close /w/b.go", "Close /w/c.go", "Close /w/deeper/b.go", "Close /w/a.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, rs := range rankSymbols(tc.query, tc.in, where) {
				got = append(got, rs.sym.Name+" "+strings.TrimPrefix(rs.sym.Location.URI, "file://"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}
