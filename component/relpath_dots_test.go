package component

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestRelPathDotNames: a file in the workspace whose name starts with ".."
// ("..data", "...go") is inside it and shown relative; only a path that
// climbs out ("..", "../x") is shown as it is. An absolute glob naming such
// files is inside the workspace too.
func TestRelPathDotNames(t *testing.T) {
	for _, tc := range []struct{ root, path, want string }{
		{"/w", "/w/..a", "..a"},
		{"/w", "/w/..data/x.go", "..data/x.go"},
		{"/w", "/w/sub/..a.go", "sub/..a.go"},
		{"/w", "/w/...", "..."},
		{"/w", "/w/../x", "/w/../x"},
		{"/w", "/x/a.go", "/x/a.go"},
		{"/w/sub", "/w", "/w"},
	} {
		if got := relPath(tc.root, tc.path); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.root, tc.path, got, tc.want)
		}
	}

	// Through the tool: references in such a file.
	_, s, fb, cs := setup(t, Config{})
	dots := filepath.Join(s.Root, "..gen.go")
	if err := os.WriteFile(dots, []byte("package main\n\nvar x = add(1, 2)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fb.set("textDocument/references", fmt.Sprintf(`[{"uri":%q,"range":{"start":{"line":2,"character":8},"end":{"line":2,"character":11}}}]`, edit.URIFromPath(dots)))
	text, isErr := callTool(t, cs, map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"})
	if isErr || !strings.Contains(text, "\n  ..gen.go:3:9\n") || strings.Contains(text, s.Root) {
		t.Errorf("references in ..gen.go:\n%s", text)
	}
	// A glob given as an absolute path inside the workspace.
	if got, err := s.glob(t.Context(), filepath.Join(s.Root, "..gen*")); err != nil || len(got) != 1 || got[0] != dots {
		t.Errorf("glob of ..gen*: %q %v", got, err)
	}
}
