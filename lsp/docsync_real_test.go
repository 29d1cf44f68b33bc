package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestRealDeletedDependency: gopls had gone.go open; the file is deleted
// on disk with nobody telling the Manager. Diagnostics of main.go, which
// calls twice from gone.go, must show the break, whether main.go was
// open before (gopls had published "no problems" for its version: the
// resend makes it publish again) or not; a request about gone.go says
// "no such file".
func TestRealDeletedDependency(t *testing.T) {
	peers.Require(t, "gopls")
	for _, mainOpen := range []bool{false, true} {
		name := "main.go not open"
		if mainOpen {
			name = "main.go open"
		}
		t.Run(name, func(t *testing.T) {
			root := disk.Tree(t, map[string]string{
				"go.mod":  "module example.com/del\n\ngo 1.22\n",
				"main.go": "package main\n\nfunc main() { println(twice(2)) }\n",
				"gone.go": "package main\n\n// twice doubles x.\nfunc twice(x int) int { return 2 * x }\n",
			})
			main, gone := filepath.Join(root, "main.go"), filepath.Join(root, "gone.go")
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if mainOpen {
				rep, _ := m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
				if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 0 {
					t.Fatalf("main.go before: %s %s %s", fd.Verdict, fd.Diagnostics, fd.Detail)
				}
			}
			if raw, err := hover(ctx, m, gone, at(t, gone, "func twice", "twice", 1)); err != nil || !strings.Contains(string(raw), "func twice(x int) int") {
				t.Fatalf("hover in gone.go: %s %v", raw, err)
			}
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			rep, _ := m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
			if fd := rep.Files[0]; fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), "undefined: twice") {
				t.Fatalf("main.go after gone.go was deleted: %s %s %s", fd.Verdict, fd.Diagnostics, fd.Detail)
			}
			if _, err := hover(ctx, m, gone, Position{Line: 3, Character: 6}); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), gone) {
				t.Fatalf("hover in the deleted gone.go: %v", err)
			}
			if st := m.Servers(); st[0].OpenDocuments != 1 {
				t.Fatalf("open documents %d, want 1 (main.go)", st[0].OpenDocuments)
			}
		})
	}
}

// TestRealFileCaps: with gopls, a Go file over the default cap (12 MiB)
// and one with binary content get clear errors, not gopls's "no
// problems", and gopls keeps answering about main.go.
func TestRealFileCaps(t *testing.T) {
	peers.Require(t, "gopls")
	root := disk.Tree(t, map[string]string{
		"go.mod":           "module example.com/big\n\ngo 1.22\n",
		"main.go":          "package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n",
		"testdata/huge.go": "package main\n\nvar Huge = `" + strings.Repeat("x", 12<<20) + "`\n",
		"testdata/blob.go": "package main\n\x00\x01\x02\xff\xfe binary \x00 data\n",
	})
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, c := range []struct {
		file, want string
		is         error
	}{
		{"testdata/huge.go", "too large for a language server: 12.0 MiB", ErrFileTooLarge},
		{"testdata/blob.go", "binary content", ErrBinaryFile},
	} {
		path := filepath.Join(root, c.file)
		if _, err := documentSymbols(ctx, m, path); !errors.Is(err, c.is) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("symbols of %s: %v, want %q", c.file, err, c.want)
		}
		rep, _ := m.Diagnostics(ctx, []string{path}, DiagnosticsOptions{})
		if fd := rep.Files[0]; fd.Verdict != Failed || !strings.Contains(fd.Detail, path) || !strings.Contains(fd.Detail, c.want) {
			t.Errorf("diagnostics of %s: %s %q", c.file, fd.Verdict, fd.Detail)
		}
	}
	main := filepath.Join(root, "main.go")
	if raw, err := hover(ctx, m, main, at(t, main, "func add", "add", 1)); err != nil || !strings.Contains(string(raw), "func add(a int, b int) int") {
		t.Fatalf("hover in main.go after the bad files: %s %v", raw, err)
	}
}

// TestRealSymbolScope: gopls's built-in configuration searches only the
// workspace's packages for workspace/symbol; a configuration that drops
// symbolScope (initializationOptions of its own) searches the standard
// library too, which shows the built-in value is what keeps it out.
func TestRealSymbolScope(t *testing.T) {
	peers.Require(t, "gopls")
	for _, c := range []struct {
		name        string
		initOptions json.RawMessage // nil: the built-in
		wantOutside bool
	}{
		{"built-in", nil, false},
		{"initialization options of its own", json.RawMessage(`{}`), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := disk.Tree(t, map[string]string{
				"go.mod":  "module example.com/scope\n\ngo 1.22\n",
				"main.go": "package main\n\nimport \"fmt\"\n\n// Println is the workspace's own.\nfunc Println() { fmt.Println() }\n\nfunc main() { Println() }\n",
			})
			servers := DefaultServers()
			if c.initOptions != nil {
				servers[0].InitializationOptions = c.initOptions
			}
			m := newRealManager(t, root, func(o *Options) { o.Servers = servers })
			defer m.Close(context.Background())
			main := filepath.Join(root, "main.go")
			raw, err := m.Request(t.Context(), main, "workspace/symbol", json.RawMessage(`{"query":"Println"}`))
			if err != nil {
				t.Fatal(err)
			}
			var syms []struct {
				Name     string `json:"name"`
				Location struct {
					URI string `json:"uri"`
				} `json:"location"`
			}
			if err := decode(raw, &syms); err != nil {
				t.Fatal(err)
			}
			inside, outside := 0, 0
			for _, s := range syms {
				p, err := edit.PathFromURI(s.Location.URI)
				if err == nil && edit.Within(root, p) {
					inside++
				} else {
					outside++
				}
			}
			if inside == 0 || (outside > 0) != c.wantOutside {
				t.Fatalf("%d symbols in the workspace, %d outside (want outside: %v): %s", inside, outside, c.wantOutside, raw)
			}
		})
	}
}
