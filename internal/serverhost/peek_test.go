package serverhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestPeekThroughHost: through the host, Peek reads a file in passing as
// the Manager's Peek does (asked unopened, nothing left open), while Ask
// opens the file and keeps it open. The enclosing symbols of a long
// references answer go through Peek: through the host as Ask, every file
// of the page would stay open and analysed in the shared server.
func TestPeekThroughHost(t *testing.T) {
	dir := hostDir(t)
	id := "peek000000000000"
	servers := fakeServers(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/documentSymbol": {
		Result: json.RawMessage(`[{"name":"F","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"selectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]`)}}})
	// The host goes first at the cleanup: its servers hold their
	// record files open, which Windows does not delete.
	serveHere(t, dir, id)
	root := t.TempDir()
	file := filepath.Join(root, "a.go")
	must(t, os.WriteFile(file, []byte("package a\nfunc F() {}\n"), 0o644))
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Identity: id})
	must(t, err)
	t.Cleanup(func() { c.Close(context.Background()) })
	params := json.RawMessage(`{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"}}`)
	open := func() int {
		n := 0
		for _, s := range c.Servers() {
			n += s.OpenDocuments
		}
		return n
	}
	if _, err := c.Peek(t.Context(), file, "textDocument/documentSymbol", params); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Errorf("after Peek: %d open documents, want 0", n)
	}
	if _, err := c.Ask(t.Context(), file, "textDocument/documentSymbol", params); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 1 {
		t.Errorf("after Ask: %d open documents, want 1", n)
	}
}
