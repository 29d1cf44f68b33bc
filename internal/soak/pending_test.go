//go:build acplsp_pending

package soak

// Fault tests that fail today because acp-lsp lacks what they check; each
// names the missing piece (see docs/testing.md, "Pending"). They are kept
// out of the default build so CI stays green, and run with
//
//	go test -tags acplsp_pending -run Pending ./internal/soak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/peers"
)

// TestPendingDeletedFileDependents: after a file the server had open is
// deleted (by the agent's shell, not through the tool), diagnostics of a
// file that used it must show the break. Today the server keeps the
// deleted file's open copy (no didClose, no deleted-file event), so main.go
// is reported "fresh, no problems" while it no longer compiles.
func TestPendingDeletedFileDependents(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/del\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { println(twice(2)) }\n",
		"gone.go": "package main\n\n// twice doubles x.\nfunc twice(x int) int { return 2 * x }\n",
	})
	_, cs := startStack(t, root)
	if text, isErr := toolCall(t, cs, map[string]any{"action": "hover", "file": "gone.go", "line": 4, "symbol": "twice"}); isErr {
		t.Fatalf("hover before delete: %s", text)
	}
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	text, isErr := toolCall(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
	if isErr || !strings.Contains(text, "undefined: twice") {
		t.Errorf("diagnostics of main.go after gone.go was deleted: error=%v, want undefined: twice:\n%s", isErr, text)
	}
}

// TestPendingHugeAndBinaryFiles: a Go file over the size cap (12 MiB; mcpls caps at 10 MB) and a file of
// binary content get a clear error naming the file and the reason, and the
// server keeps answering about the other files. Today lsp sends any size
// to the server (no cap) and binary content as text: gopls answers "no
// problems" for a file full of NUL bytes.
func TestPendingHugeAndBinaryFiles(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	huge := "package main\n\nvar Huge = `" + strings.Repeat("x", 12<<20) + "`\n"
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/big\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n",
		// testdata: go list skips it, so only the tool's own request
		// makes a server read these files.
		"testdata/huge.go": huge,
		"testdata/blob.go": "package main\n\x00\x01\x02\xff\xfe binary \x00 data\n",
	})
	_, cs := startStack(t, root)
	for _, c := range []struct {
		file, want string
	}{
		{"testdata/huge.go", "too large"},
		{"testdata/blob.go", "binary"},
	} {
		for _, action := range []string{"diagnostics", "symbols"} {
			text, isErr := toolCall(t, cs, map[string]any{"action": action, "file": c.file})
			if !isErr || !strings.Contains(text, c.file) || !strings.Contains(strings.ToLower(text), c.want) {
				t.Errorf("%s %s: error=%v, want a clear error with %q:\n%.500s", action, c.file, isErr, c.want, text)
			}
		}
	}
	if text, isErr := toolCall(t, cs, map[string]any{"action": "hover", "file": "main.go", "line": 3, "symbol": "add"}); isErr || !strings.Contains(text, "func add(a int, b int) int") {
		t.Errorf("hover in main.go after the bad files: error=%v:\n%s", isErr, text)
	}
}
