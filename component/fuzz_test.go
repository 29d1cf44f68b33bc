package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// FuzzServerAnswers feeds arbitrary bytes to every parser of what servers
// and editors send: none may panic.
func FuzzServerAnswers(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`,
		`[{"targetUri":"file:///a","targetRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}]`,
		`{"contents":[{"language":"go","value":"x"},"y"]}`, `{"contents":{"kind":"markdown","value":"z"}}`,
		`[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","code":12}]`,
		`{"documentChanges":[{"kind":"rename","oldUri":"file:///a","newUri":"file:///b"}]}`, `{"changes":{"file:///a":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wire.ParseLocations(b)
		hoverText(b)
		markupText(b)
		decodeDiagnostics(b, false)
		decodeDiagnostics(b, true)
		withRename(b, "file:///a", "file:///b")
		c := NewDiagCache(2, 2)
		var p lspext.PublishDiagnosticsParams
		if json.Unmarshal(b, &p) == nil {
			c.Publish(p)
		}
		NormalizeURI(string(b))
	})
}

// FuzzAppendMCPServer checks the setup patch on arbitrary params: it either
// refuses or returns valid JSON holding the entry.
func FuzzAppendMCPServer(f *testing.F) {
	for _, s := range []string{`{"cwd":"/x","mcpServers":[]}`, `{"cwd":"/x"}`, `{"mcpServers":null}`, `[]`, `{"mcpServers":{}}`, `{"a":1,"mcpServers":[{"name":"q"}] }`, `{"mCpserverS":{}}`} {
		f.Add([]byte(s))
	}
	entry := json.RawMessage(`{"name":"acp-lsp","command":"/bin/acp-lsp","args":[],"env":[]}`)
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := AppendMCPServer(b, entry)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %s from %s", out, b)
		}
		// A map, not a struct: encoding/json matches struct fields without
		// regard to case, so a sibling key such as "mCpserverS" would be
		// taken for the list. ACP's key is exactly "mcpServers".
		var v map[string]json.RawMessage
		var list []json.RawMessage
		err = json.Unmarshal(out, &v)
		if err == nil {
			err = json.Unmarshal(v["mcpServers"], &list)
		}
		if err != nil || len(list) == 0 || string(list[len(list)-1]) != string(entry) {
			t.Fatalf("entry not last in %s (from %s): %v", out, b, err)
		}
	})
}

// FuzzToolArguments runs arbitrary tool arguments through every action
// against canned server answers: each call returns an answer or an error,
// never panics, never touches a file outside the workspace and never
// changes one without apply (the fake backend's edits are previews).
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"action":"hover","file":"main.go","line":5,"symbol":"add"}`,
		`{"action":"definition","file":"main.go","line":9,"column":14}`,
		`{"action":"references","symbol":"add"}`,
		`{"action":"impact","file":"main.go","line":5,"symbol":"add","depth":"9","offset":1}`,
		`{"action":"diagnostics","file":"*","severity":"hint"}`,
		`{"action":"symbols","query":"add","kind":"function","offset":3,"limit":1}`,
		`{"action":"rename","file":"main.go","line":5,"symbol":"add#2","new_name":"sum"}`,
		`{"action":"format","file":"main.go","line":1,"end_line":99,"end_column":-4}`,
		`{"action":"request","method":"textDocument/foldingRange","params":"{\"textDocument\":{}}"}`,
		`{"action":"call_hierarchy","file":"../../etc/passwd","line":1,"column":1}`,
		`{"action":"code_actions","file":"main.go","line":5,"index":-1,"apply":false}`,
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644); err != nil {
		f.Fatal(err)
	}
	fb := newFake()
	loc := `[{"uri":"file://` + root + `/main.go","range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`
	for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/typeDefinition", "textDocument/implementation"} {
		fb.set(m, loc)
	}
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
	fb.set("workspace/symbol", `[{"name":"add","kind":12,"location":`+loc[1:len(loc)-1]+`}]`)
	fb.set("textDocument/documentSymbol", `[{"name":"add","kind":12,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":40}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`)
	fb.set("textDocument/rename", `{"changes":{"file://`+root+`/main.go":[{"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}},"newText":"sum"}]}}`)
	c, err := New(Config{Executable: "/bin/acp-lsp", AllowMutating: map[string]bool{"request": true}}, fb)
	if err != nil {
		f.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close() })
	s, err := c.NewSession(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeInput(b)
		if err != nil {
			return
		}
		in.Apply = false
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := s.call(ctx, in)
		if err == nil && res == nil {
			t.Fatalf("%s: neither answer nor error", b)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "main.go")); string(got) != mainGo {
			t.Fatalf("%s changed main.go without apply", b)
		}
	})
}

// relPathRef is relPath as it was before its fast path: filepath.Rel
// alone (a name starting with ".." is not a climb out).
func relPathRef(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return path
}

// FuzzRelPath: relPath's fast path for clean paths below the root says
// what filepath.Rel says, for any root and path (paths come from servers'
// answers).
func FuzzRelPath(f *testing.F) {
	for _, c := range [][2]string{
		{"/w", "/w/a.go"}, {"/w", "/w"}, {"/w", "/wx/a.go"}, {"/w", "/w/../x"}, {"/w", "/w//a"},
		{"/w", "/w/a/"}, {"/w", "/w/.git/x"}, {"/w", "/w/..a"}, {"/", "/a/b"}, {"/w/", "/w/a"},
		{"/w", "w/a"}, {"/w/./x", "/w/./x/a"}, {"/w", "/w/a/./b"}, {"", "a"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, root, path string) {
		if got, want := relPath(root, path), relPathRef(root, path); got != want {
			t.Fatalf("relPath(%q, %q) = %q, filepath.Rel says %q", root, path, got, want)
		}
	})
}

// FuzzResolveFile: whatever the tool's file argument, it is refused or
// resolves to a clean absolute path whose deepest existing ancestor, links
// resolved, is inside one of the session's roots (the cwd or an additional
// directory); an existing file is given by its real path; one longer than
// any path is refused. The workspace holds a file, a folder, links inside,
// out (relative and absolute) and in a loop.
func FuzzResolveFile(f *testing.F) {
	real := func(dir string) string {
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			f.Fatal(err)
		}
		return r
	}
	root, extra, outside := real(f.TempDir()), real(f.TempDir()), real(f.TempDir())
	for _, p := range []string{filepath.Join(root, "main.go"), filepath.Join(root, "sub", "a.go"), filepath.Join(extra, "e.go"), filepath.Join(outside, "secret.go")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"in": "sub", "out": "../" + filepath.Base(outside), "abs": filepath.Join(outside, "secret.go"),
		"loop": "loop", "toextra": extra, "sub/up": "..",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{
		"main.go", "sub/a.go", "in/a.go", "in/../main.go", "out/secret.go", "out/new.go", "abs", "loop/x",
		"toextra/e.go", "sub/up/main.go", "sub/up/out/x", "../x", "/etc/passwd", root + "/main.go",
		extra + "/e.go", extra + "/../x", outside, "main.go/x", "a\x00b", ".", "..", "//", "~/x",
		strings.Repeat("a/", 2100), strings.Repeat("../", 50) + filepath.Base(root),
	} {
		f.Add(s)
	}
	c, _ := startSession(f, Config{}, newFake(), root)
	s, err := c.NewSession(root, extra)
	if err != nil {
		f.Fatal(err)
	}
	roots := []string{root, extra}
	f.Fuzz(func(t *testing.T, file string) {
		p, exists, err := s.resolveExists(file)
		if err != nil {
			return
		}
		if len(file) > maxPathLen {
			t.Fatalf("a file argument of %d bytes resolved to %s", len(file), p)
		}
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			t.Fatalf("%q resolved to %q, not a clean absolute path", file, p)
		}
		if exists {
			if r, err := filepath.EvalSymlinks(p); err != nil || r != p {
				t.Fatalf("%q resolved to %q, an existing file whose real path is %q (%v)", file, p, r, err)
			}
		}
		for a := p; ; a = filepath.Dir(a) {
			r, err := filepath.EvalSymlinks(a)
			if err != nil {
				if filepath.Dir(a) == a {
					t.Fatalf("%q resolved to %q, nothing of which exists", file, p)
				}
				continue
			}
			if !slices.ContainsFunc(roots, func(root string) bool { return edit.Within(root, r) }) {
				t.Fatalf("%q resolved to %q, whose ancestor %s is %s, outside %v", file, p, a, r, roots)
			}
			return
		}
	})
}

// FuzzRequestResult feeds arbitrary bytes as `_lsp/request`'s answer
// asked with readiness: it never panics; an answer that is not the
// envelope (an upstream that did not know the flag) is the raw result
// itself, and an envelope's result is its "result" value, byte for byte.
func FuzzRequestResult(f *testing.F) {
	for _, s := range []string{
		`{"result":[1],"readiness":[{"server":"pyright","state":"loading"}]}`,
		`{"result":null}`, `[{"uri":"file:///a"}]`, `{"contents":"x"}`, `null`, ``,
		`{"result":[],"readiness":[{"server":"clangd","state":"loading","progress":[{"title":"indexing","percentage":40,"message":"600/1502"}]}]}`,
		`{"result":{},"readiness":5}`, `{"result":1,"result":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := requestResult(b)
		var env map[string]json.RawMessage
		isEnvelope := json.Unmarshal(b, &env) == nil && env["result"] != nil
		result := env["result"]
		switch {
		case err != nil:
			if !isEnvelope {
				t.Fatalf("%q: %v for an answer that is no envelope", b, err)
			}
		case !isEnvelope && string(res.Result) != string(b):
			t.Fatalf("%q: result %q, want the answer itself", b, res.Result)
		case isEnvelope && string(res.Result) != string(result):
			t.Fatalf("%q: result %q, want %q", b, res.Result, result)
		}
	})
}
