package component

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestCheckActionBreaksElsewhere: through the chain with gopls, a check
// of an edit to one file that breaks a use in a file it does not touch
// (a method renamed in its declaration only) shows that file's error
// added; the disk stays as it was and the diagnostics cache never holds
// the checked content's error.
func TestCheckActionBreaksElsewhere(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	tree := map[string]string{
		"go.mod": "module example.com/p\n\ngo 1.22\n",
		"t.go":   "package p\n\ntype T struct{}\n\nfunc (T) Foo() int { return 1 }\n",
		"u.go":   "package p\n\nfunc useU(t T) int { return t.Foo() }\n",
	}
	for name, text := range tree {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "check", "file": "t.go", "old_text": "Foo()", "new_text": "Bar()"})
	if isErr {
		t.Fatalf("check: %s", text)
	}
	for _, w := range []string{"check of t.go (nothing written): 1 added, 0 removed", "+ u.go:3:31 error: t.Foo undefined", "servers: gopls: fresh"} {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
	for name, want := range tree {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
			t.Errorf("disk after the check: %s is %q %v", name, b, err)
		}
	}
	for _, name := range []string{"t.go", "u.go"} {
		diags, _ := sc.stage.Tool().Cache().Get(edit.URIFromPath(filepath.Join(root, name)))
		for _, d := range diags {
			if strings.Contains(d.Message, "undefined") {
				t.Errorf("the cache holds the checked content's error for %s: %s", name, d.Message)
			}
		}
	}
}
