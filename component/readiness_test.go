package component

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// TestListsSayLoading: every list answer (references, definition,
// implementation, document and workspace symbols, callers, subtypes),
// empty or not, given by a server that had not loaded its project when
// it answered says so in words a model acts on ("may be incomplete; ask
// again"), with the progress the server reported, and in
// structuredContent's not_ready; the same answer from a ready server
// carries neither. Before, only an empty answer got a note, and only
// when status said a server was busy: a list of 18 references of 393
// read as complete.
func TestListsSayLoading(t *testing.T) {
	_, s, fb, _ := setup(t, Config{Budget: structuredBudget, StructuredContent: true})
	files := structuredWorkspace(t, s.Root)
	at := map[string]any{"file": files[0], "line": 1, "column": 2}
	with := func(args map[string]any, more map[string]any) map[string]any {
		out := map[string]any{}
		maps.Copy(out, args)
		maps.Copy(out, more)
		return out
	}
	forty := 40
	clangd := lspext.Readiness{Server: "clangd", State: lspext.ReadyLoading, Progress: []lspext.Progress{{Title: "indexing", Message: "600/1502", Percentage: &forty}}}
	pyright := lspext.Readiness{Server: "pyright", State: lspext.ReadyLoading}
	ready := lspext.Readiness{Server: "gopls", State: lspext.Ready}
	for _, a := range []struct {
		results string   // what structuredResults sets up
		methods []string // the requests whose answers carry the readiness
		args    map[string]any
	}{
		{"references", []string{"textDocument/references"}, with(at, map[string]any{"action": "references"})},
		{"definition", []string{"textDocument/definition"}, with(at, map[string]any{"action": "definition"})},
		{"document symbols", []string{"textDocument/documentSymbol"}, map[string]any{"action": "symbols", "file": files[0]}},
		{"workspace symbols", []string{"workspace/symbol"}, map[string]any{"action": "symbols", "query": "Symbol"}},
		{"callers", []string{"textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls"}, with(at, map[string]any{"action": "call_hierarchy"})},
		{"subtypes", []string{"textDocument/prepareTypeHierarchy", "typeHierarchy/subtypes"}, with(at, map[string]any{"action": "type_hierarchy", "direction": "subtypes"})},
	} {
		for _, tc := range []struct {
			name  string
			ready []lspext.Readiness
			want  []string // in the text; none: no note at all
		}{
			{"loading with progress", []lspext.Readiness{clangd}, []string{"clangd is still loading the project (indexing 40%: 600/1502): this list may be incomplete; ask again in a few seconds"}},
			{"loading without progress", []lspext.Readiness{pyright}, []string{"pyright is still loading the project (it reports no progress): this list may be incomplete"}},
			{"two servers, one loading", []lspext.Readiness{ready, pyright}, []string{"note: pyright is still loading the project"}},
			{"ready", []lspext.Readiness{ready}, nil},
		} {
			for _, n := range []int{3, 0} {
				name := a.results + "/" + tc.name + "/empty"
				if n > 0 {
					name = a.results + "/" + tc.name + "/3 results"
				}
				t.Run(name, func(t *testing.T) {
					structuredResults(t, fb, s.Root, files, a.results, n)
					for _, m := range a.methods {
						fb.setReadiness(m, tc.ready...)
					}
					text, sc := structuredCall(t, s, a.args)
					var got struct {
						NotReady []lspext.Readiness `json:"not_ready"`
					}
					if err := json.Unmarshal(sc, &got); err != nil {
						t.Fatal(err)
					}
					var want []lspext.Readiness
					for _, r := range tc.ready {
						if r.State != lspext.Ready {
							want = append(want, r)
						}
					}
					if !reflect.DeepEqual(got.NotReady, want) {
						t.Errorf("not_ready %+v, want %+v", got.NotReady, want)
					}
					for _, w := range tc.want {
						if !strings.Contains(text, w) {
							t.Errorf("text lacks %q:\n%s", w, text)
						}
					}
					if tc.want == nil && strings.Contains(text, "may be incomplete") {
						t.Errorf("a ready server's list says it may be incomplete:\n%s", text)
					}
				})
			}
		}
	}
}

// TestSymbolNotFoundWhileLoading: a symbol given alone and not found by a
// server that is still loading (pyright answers an empty workspace
// symbol list until it has listed the workspace's files) is not "no such
// symbol" alone: the error says the server is loading and to ask again.
func TestSymbolNotFoundWhileLoading(t *testing.T) {
	_, s, fb, _ := setup(t, Config{})
	fb.set("workspace/symbol", "[]")
	fb.setReadiness("workspace/symbol", lspext.Readiness{Server: "pyright", State: lspext.ReadyLoading})
	b, _ := json.Marshal(map[string]any{"action": "references", "symbol": "QuerySet"})
	res := s.toolResult(context.Background(), b)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, `no symbol named "QuerySet"`) ||
		!strings.Contains(text, "pyright is still loading the project (it reports no progress): this list may be incomplete; ask again in a few seconds") {
		t.Fatalf("answer: %v %s", res.IsError, text)
	}
}

// TestImpactSaysLoading: impact gathers references, callers,
// implementations and subtypes; when any of them came from a server
// still loading its project, the answer says its lists may be
// incomplete, and names the server in not_ready, as every list does.
func TestImpactSaysLoading(t *testing.T) {
	_, s, fb, _ := setup(t, Config{Budget: structuredBudget, StructuredContent: true})
	files := structuredWorkspace(t, s.Root)
	args := map[string]any{"action": "impact", "file": files[0], "line": 1, "column": 2}
	pyright := lspext.Readiness{Server: "pyright", State: lspext.ReadyLoading}
	for _, tc := range []struct {
		name    string
		method  string // the request whose answer carries the readiness
		loading bool
	}{
		{"references from a loading server", "textDocument/references", true},
		{"callers from a loading server", "callHierarchy/incomingCalls", true},
		{"every server ready", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			structuredResults(t, fb, s.Root, files, "references", 3)
			structuredResults(t, fb, s.Root, files, "callers", 3)
			for _, m := range []string{"textDocument/references", "textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls"} {
				fb.setReadiness(m, lspext.Readiness{Server: "pyright", State: lspext.Ready})
			}
			if tc.method != "" {
				fb.setReadiness(tc.method, pyright)
			}
			text, sc := structuredCall(t, s, args)
			var got struct {
				Listing struct {
					NotReady []lspext.Readiness `json:"not_ready"`
				} `json:"listing"`
			}
			if err := json.Unmarshal(sc, &got); err != nil {
				t.Fatal(err)
			}
			says := strings.Contains(text, "pyright is still loading the project (it reports no progress): this list may be incomplete")
			if says != tc.loading || (len(got.Listing.NotReady) > 0) != tc.loading {
				t.Errorf("loading %v: text says so %v, not_ready %+v:\n%s", tc.loading, says, got.Listing.NotReady, text)
			}
		})
	}
}
