package component

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestRenameChecked: through the chain with gopls, a rename's preview
// says what the edit would add and remove before anything is written: a
// rename that breaks the file (f to init: an init function cannot return
// a value), one that changes nothing (a local), one that fixes an error
// (f to y, which g calls); a rename over two files is checked as one
// edit and adds nothing;
// the disk stays as it was through the previews, and the applied answer
// carries the check too.
func TestRenameChecked(t *testing.T) {
	peers.Require(t, "gopls")
	const pgo = "package p\n\nfunc f() int {\n\tx := 1\n\treturn x\n}\n\nfunc g() int {\n\treturn y()\n}\n"
	const qgo = "package p\n\nfunc h() int { return g() }\n"
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range map[string]string{"go.mod": "module example.com/p\n\ngo 1.22\n", "p.go": pgo, "q.go": qgo} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	const head = "check of the edit to p.go before writing it: "
	for _, c := range []struct {
		name  string
		args  map[string]any
		want  []string
		wrote bool
	}{
		{"breaks", map[string]any{"action": "rename", "file": "p.go", "line": 3, "symbol": "f", "new_name": "init"},
			[]string{"(preview, nothing written", head + "1 added, 0 removed", "+ p.go:3:6 error: func init must have no arguments and no return values", "servers: gopls: fresh"}, false},
		{"changes nothing", map[string]any{"action": "rename", "file": "p.go", "line": 4, "symbol": "x", "new_name": "z"},
			[]string{head + "0 added, 0 removed", "servers: gopls: fresh"}, false},
		{"fixes", map[string]any{"action": "rename", "file": "p.go", "line": 3, "symbol": "f", "new_name": "y"},
			[]string{head + "0 added, 1 removed", "- p.go:9:9 error: undefined: y"}, false},
		{"two files", map[string]any{"action": "rename", "file": "p.go", "line": 8, "symbol": "g", "new_name": "k"},
			[]string{"check of the edit to 2 files before writing it: 0 added, 0 removed", "servers: gopls: fresh"}, false},
		{"applied", map[string]any{"action": "rename", "file": "p.go", "line": 3, "symbol": "f", "new_name": "init", "apply": true},
			[]string{": applied", head + "1 added, 0 removed", "func init must have no arguments"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, isErr, _ := stacktest.CallTool(t, cs, c.args)
			if isErr {
				t.Fatalf("rename: %s", text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("want %q in:\n%s", w, text)
				}
			}
			b, err := os.ReadFile(filepath.Join(root, "p.go"))
			if err != nil {
				t.Fatal(err)
			}
			if wrote := !bytes.Equal(b, []byte(pgo)); wrote != c.wrote {
				t.Errorf("p.go written %v, want %v:\n%s", wrote, c.wrote, b)
			}
		})
	}
}

// TestRenameCheckedKeepsErrors: through the chain with gopls, renaming a
// type that errors in two files already name (as the demo did) previews
// a check of 0 added, 0 removed: those errors are the ones they were,
// the new name in their messages where the old one was.
func TestRenameCheckedKeepsErrors(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range map[string]string{
		"go.mod": "module example.com/p\n\ngo 1.22\n",
		"p.go":   "package p\n\ntype Foo struct{}\n\nvar x int = Foo{}\n",
		"q.go":   "package p\n\nvar y int = Foo{}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "rename", "file": "p.go", "line": 3, "symbol": "Foo", "new_name": "Bar"})
	if isErr {
		t.Fatalf("rename: %s", text)
	}
	if want := "check of the edit to 2 files before writing it: 0 added, 0 removed"; !strings.Contains(text, want) {
		t.Errorf("want %q in:\n%s", want, text)
	}
}
