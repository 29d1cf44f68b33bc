package component

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

func rng(l1, c1, l2, c2 uint32) position.Range {
	return position.Range{Start: position.Position{Line: l1, Character: c1}, End: position.Position{Line: l2, Character: c2}}
}

// TestOutlineEnclosing: the enclosing symbol of a place is the innermost
// symbol whose range holds it, named with its parents; a declaration's
// name sits in its parent; a function's variables and parameters hold
// nothing; the flat SymbolInformation form is nested by its ranges.
func TestOutlineEnclosing(t *testing.T) {
	// class Loader (lines 0-9) { method run (1-4) { variable x (2:8-2:20) }
	// field n (5) }; function add (11-12) { parameter a (11:8) }; variable v
	// (14:0-14:17).
	tree := []wire.DocumentSymbol{
		{Name: "Loader", Kind: 5, Range: rng(0, 0, 9, 1), SelectionRange: rng(0, 6, 0, 12), Children: []wire.DocumentSymbol{
			{Name: "run", Kind: 6, Range: rng(1, 4, 4, 5), SelectionRange: rng(1, 4, 1, 7), Children: []wire.DocumentSymbol{
				{Name: "x", Kind: 13, Range: rng(2, 8, 2, 20), SelectionRange: rng(2, 8, 2, 9)},
			}},
			{Name: "n", Kind: 8, Range: rng(5, 4, 5, 14), SelectionRange: rng(5, 4, 5, 5)},
		}},
		{Name: "add", Kind: 12, Range: rng(11, 0, 12, 16), SelectionRange: rng(11, 4, 11, 7), Children: []wire.DocumentSymbol{
			{Name: "a", Kind: 13, Range: rng(11, 8, 11, 9), SelectionRange: rng(11, 8, 11, 9)},
		}},
		{Name: "v", Kind: 14, Range: rng(14, 0, 14, 17), SelectionRange: rng(14, 0, 14, 1)},
		{Name: "(*Loader).Run", Kind: 6, Range: rng(16, 0, 18, 1), SelectionRange: rng(16, 17, 16, 20)},
	}
	const uri = "file:///w/a.go"
	loc := func(r position.Range) *wire.Location { return &wire.Location{URI: uri, Range: r} }
	// The same symbols as a flat list, out of order, with one of another
	// file.
	flat := []wire.DocumentSymbol{
		{Name: "run", Kind: 6, Location: loc(rng(1, 4, 4, 5))},
		{Name: "v", Kind: 14, Location: loc(rng(14, 0, 14, 17))},
		{Name: "Loader", Kind: 5, Location: loc(rng(0, 0, 9, 1))},
		{Name: "add", Kind: 12, Location: loc(rng(11, 0, 12, 16))},
		{Name: "elsewhere", Kind: 12, Location: &wire.Location{URI: "file:///w/b.go", Range: rng(0, 0, 20, 0)}},
	}
	for _, tc := range []struct {
		name       string
		syms       []wire.DocumentSymbol
		line, char uint32
		want       string
	}{
		{"in a method, qualified by its class", tree, 3, 8, "method Loader.run"},
		{"in a local variable's initializer: the function", tree, 2, 12, "method Loader.run"},
		{"a method's own name: its class", tree, 1, 5, "class Loader"},
		{"in a field", tree, 5, 8, "field Loader.n"},
		{"a class's own name: top level", tree, 0, 7, ""},
		{"in a function, on a parameter", tree, 11, 8, "function add"},
		{"a top-level constant's initializer", tree, 14, 10, "constant v"},
		{"a name qualified already is not qualified again", tree, 17, 2, "method (*Loader).Run"},
		{"between symbols", tree, 10, 0, ""},
		{"at a range's end: outside it", tree, 12, 16, ""},
		{"flat: in a method", flat, 3, 8, "method Loader.run"},
		{"flat: in a function", flat, 12, 2, "function add"},
		{"flat: another file's symbol holds nothing here", flat, 19, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := outlineOf(uri, tc.syms).enclosing(position.Position{Line: tc.line, Character: tc.char})
			if got != tc.want {
				t.Errorf("enclosing(%d:%d) = %q, want %q", tc.line, tc.char, got, tc.want)
			}
		})
	}
}

// documentSymbolsOf is the fake's textDocument/documentSymbol answer for
// mainGo: add on line 5, main on lines 7-9.
const documentSymbolsOf = `[{"name":"add","kind":12,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}},{"name":"main","kind":12,"range":{"start":{"line":6,"character":0},"end":{"line":8,"character":1}},"selectionRange":{"start":{"line":6,"character":5},"end":{"line":6,"character":9}}}]`

// symbolRequests are the URIs fb was asked the document symbols of.
func symbolRequests(fb *fakeBackend) []string {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	var uris []string
	for _, r := range fb.requests {
		if params, ok := strings.CutPrefix(r, "textDocument/documentSymbol "); ok {
			var p struct {
				TextDocument struct{ URI string } `json:"textDocument"`
			}
			json.Unmarshal([]byte(params), &p)
			uris = append(uris, p.TextDocument.URI)
		}
	}
	return uris
}

// TestEnclosingOutlineCached: a file's document symbols are asked once
// while its content stays the same (here rewritten with the same bytes,
// so the document cache reads it again), and again once it changes.
func TestEnclosingOutlineCached(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	main := filepath.Join(s.Root, "main.go")
	uri := edit.URIFromPath(main)
	fb.set("textDocument/references", `[{"uri":`+jsonString(uri)+`,"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}}}]`)
	fb.set("textDocument/documentSymbol", documentSymbolsOf)
	refs := map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}
	for i, tc := range []struct {
		write string // main.go's new content, "" to leave it
		asked int    // document symbol requests so far
	}{
		{"", 1},
		{"", 1},
		{mainGo, 1},
		{strings.Replace(mainGo, "main() {", "main()  {", 1), 2},
	} {
		if tc.write != "" {
			if err := os.WriteFile(main, []byte(tc.write), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text, isErr := callTool(t, cs, refs)
		if isErr || !strings.Contains(text, "main.go:8:14 in function main\n") {
			t.Fatalf("call %d: want the call in function main:\n%s", i, text)
		}
		if got := symbolRequests(fb); len(got) != tc.asked {
			t.Errorf("call %d: document symbols asked %d times, want %d: %v", i, len(got), tc.asked, got)
		}
	}
}

// TestEnclosingWithoutDocumentSymbol: a server that does not answer
// textDocument/documentSymbol (the fake refuses it) leaves the answer as it
// was without the lookup: no enclosing symbol, no error.
func TestEnclosingWithoutDocumentSymbol(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	fb.set("textDocument/references", `[{"uri":`+jsonString(uri)+`,"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}}}]`)
	text, isErr := callTool(t, cs, map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"})
	if want := "references: 1\n  main.go:8:14\n    fmt.Println(add(1, 2), add(3, 4))\n"; isErr || text != want {
		t.Errorf("got:\n%s\nwant:\n%s", text, want)
	}
	if got := symbolRequests(fb); len(got) != 1 {
		t.Errorf("document symbols asked %v, want once, for main.go", got)
	}
}

// TestEnclosingOutsideRule: of the files outside the workspace, only
// those whose line the answer shows (outside.go's rule: here a
// TypeScript file in node_modules, for a call on a TypeScript file) are
// asked for their symbols; a file in HOME is not, and its item has no
// enclosing symbol.
func TestEnclosingOutsideRule(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	dep := filepath.Join(base, "deps", "node_modules", "pkg", "index.d.ts")
	home := filepath.Join(base, "home", "notes.ts")
	for p, text := range map[string]string{
		filepath.Join(root, "a.ts"): "ok();\n",
		dep:                         "export declare namespace pkg {\n  function ok(): void;\n}\n",
		home:                        "export function ok() {\n  return 1;\n}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fb := newFake()
	at := func(path string, line int) string {
		return fmt.Sprintf(`{"uri":%s,"range":{"start":{"line":%d,"character":2},"end":{"line":%d,"character":4}}}`, jsonString(edit.URIFromPath(path)), line, line)
	}
	fb.set("textDocument/definition", "["+at(dep, 1)+","+at(home, 1)+"]")
	// Every file gets the same outline: a namespace over lines 1-3.
	fb.set("textDocument/documentSymbol", `[{"name":"pkg","kind":3,"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":1}},"selectionRange":{"start":{"line":0,"character":25},"end":{"line":0,"character":28}}}]`)
	_, s := startSession(t, Config{}, fb, root)
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "definition", "file": "a.ts", "line": 1, "symbol": "ok"}})
	if err != nil || res.IsError {
		t.Fatalf("definition: %v %v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "  "+dep+":2:3 in namespace pkg\n") || !strings.Contains(text, "  "+home+":2:3\n") {
		t.Errorf("want the dependency's place in namespace pkg, HOME's without:\n%s", text)
	}
	if got := symbolRequests(fb); len(got) != 1 || got[0] != edit.URIFromPath(dep) {
		t.Errorf("document symbols asked of %v, want only %s", got, dep)
	}
}

// FuzzDocumentSymbolOutline: whatever a server answers to
// textDocument/documentSymbol, building the outline and looking up a place
// in it never panics, and a symbol it names holds the place.
func FuzzDocumentSymbolOutline(f *testing.F) {
	for _, s := range []string{
		documentSymbolsOf, `null`, `[]`, `[{}]`,
		`[{"name":"a","kind":12,"location":{"uri":"file:///w/a.go","range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}}}},{"name":"b","kind":6,"location":{"uri":"file:///w/a.go","range":{"start":{"line":1,"character":0},"end":{"line":2,"character":0}}}}]`,
		`[{"name":"c","kind":5,"range":{"start":{"line":3,"character":0},"end":{"line":1,"character":0}},"selectionRange":{"start":{"line":3,"character":0},"end":{"line":3,"character":0}},"children":[{"name":"d","kind":13,"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":9}}}]}]`,
	} {
		f.Add([]byte(s), uint32(1), uint32(2))
	}
	f.Fuzz(func(t *testing.T, b []byte, line, char uint32) {
		var syms []wire.DocumentSymbol
		if json.Unmarshal(b, &syms) != nil {
			return
		}
		o := outlineOf("file:///w/a.go", syms)
		p := position.Position{Line: line % 16, Character: char % 16}
		got := o.enclosing(p)
		if got == "" {
			return
		}
		var holds func(outline) bool
		holds = func(o outline) bool {
			for _, s := range o {
				if s.label == got && contains(s.rng, p) || holds(s.children) {
					return true
				}
			}
			return false
		}
		if !holds(o) {
			t.Fatalf("enclosing(%v) = %q, which holds no such place in %s", p, got, b)
		}
	})
}

// TestRenderKeepsEnclosingSymbol: over the budget, the source lines go
// first and the enclosing symbols stay with their items (text and
// structuredContent alike); they go with the items, at the counts.
func TestRenderKeepsEnclosingSymbol(t *testing.T) {
	var items []item
	for i := range 20 {
		items = append(items, item{File: "a.go", Line: i + 1, Column: 2, In: "function main", Context: strings.Repeat("x", 60)})
	}
	l := &listing{Title: "references", Total: len(items), Items: items}
	full, _ := render(l, 1<<20, 0)
	for _, tc := range []struct {
		budget int
		form   string
		in     bool
	}{
		{len(full), "full", true},
		{len(full) - 1, "no_context", true},
		{300, "counts", false},
	} {
		text, data := render(l, tc.budget, 0)
		var got listing
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if got.Form != tc.form {
			t.Fatalf("budget %d: form %s, want %s:\n%s", tc.budget, got.Form, tc.form, text)
		}
		if has := strings.Contains(text, "a.go:1:2 in function main\n"); has != tc.in {
			t.Errorf("%s: enclosing symbol in the text: %v, want %v:\n%s", tc.form, has, tc.in, text)
		}
		if has := len(got.Items) > 0 && got.Items[0].In == "function main"; has != tc.in {
			t.Errorf("%s: enclosing symbol in the data: %v, want %v: %s", tc.form, has, tc.in, data)
		}
	}
}
