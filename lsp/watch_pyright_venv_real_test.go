package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealVenvInstall: with pyright and a project's .venv (skipped by the
// workspace watch, but its site-packages watched one level deep), a
// package "installed" by the shell into site-packages after pyright
// reported the import missing is seen: pyright asks for "**".
func TestRealVenvInstall(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	// The virtual environment's layout, as python3 -m venv makes it
	// (pyright reads no interpreter from it, only its site-packages).
	root := disk.Tree(t, map[string]string{
		"pyrightconfig.json": `{"venvPath": ".", "venv": ".venv"}` + "\n",
		"main.py":            "import fancypkg\n\nprint(fancypkg.VALUE)\n",
		".venv/pyvenv.cfg":   "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n",
		".venv/lib/python3.11/site-packages/placeholder.txt": "",
	})
	site := filepath.Join(root, ".venv", "lib", "python3.11", "site-packages")
	main := filepath.Join(root, "main.py")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	diags := freshDiagnostics(ctx, t, m, main)
	if msgs := diags("before"); len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), `"fancypkg" could not be resolved`) {
		t.Fatalf("main.py before the install: %q", msgs)
	}
	diags("once more") // pyright's registration is in by now
	pkg := filepath.Join(site, "fancypkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte("VALUE = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msgs := diags("after the install"); len(msgs) != 0 {
		t.Fatalf("main.py after fancypkg was installed into .venv: %q", msgs)
	}
}
