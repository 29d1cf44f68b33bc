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

// TestRealShellEditDependencyPyright: as TestRealShellEditDependency,
// with pyright (pull diagnostics; its own watcher globs, "**" among
// them): a.py's function gains a parameter by shell, b.py's call is
// reported at once, once (pyright registers its pull provider twice under
// one identifier), and the report is clean again when a.py is restored.
func TestRealShellEditDependencyPyright(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	const oldA = "def twice(x: int) -> int:\n    return 2 * x\n"
	root := disk.Tree(t, map[string]string{
		"pyrightconfig.json": "{}\n",
		"a.py":               oldA,
		"b.py":               "from a import twice\n\nprint(twice(2))\n",
	})
	a, b := filepath.Join(root, "a.py"), filepath.Join(root, "b.py")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	diags := freshDiagnostics(ctx, t, m, b)
	if msgs := diags("before"); len(msgs) != 0 {
		t.Fatalf("b.py before: %q", msgs)
	}
	if err := os.WriteFile(a, []byte("def twice(x: int, y: int) -> int:\n    return 2 * x * y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := diags("after a.py changed by shell")
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"y"`) {
		t.Fatalf("b.py after a.py's signature changed by shell: %q", msgs)
	}
	if err := os.WriteFile(a, []byte(oldA), 0o644); err != nil {
		t.Fatal(err)
	}
	if msgs := diags("after a.py was restored"); len(msgs) != 0 {
		t.Fatalf("b.py after a.py was restored by shell: %q", msgs)
	}
}
