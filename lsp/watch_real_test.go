package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealShellEditDependency: an agent edits a.go by shell (os.WriteFile,
// nobody tells the Manager) and at once asks for the diagnostics of b.go,
// which calls the function whose signature changed. gopls keeps a.go's old
// content unless the client reports the change, so the answer would say
// "no problems": the watcher must have told gopls before the request went
// out. Then the change is undone the same way, and the error must be gone.
// a.go is never opened by the client; b.go is, in one case, diagnosed
// before the change (gopls published "no problems" for its version).
func TestRealShellEditDependency(t *testing.T) {
	peers.Require(t, "gopls")
	const (
		oldA = "package main\n\n// twice doubles x.\nfunc twice(x int) int { return 2 * x }\n"
		newA = "package main\n\n// twice multiplies x by y twice.\nfunc twice(x, y int) int { return 2 * x * y }\n"
	)
	for _, bOpen := range []bool{false, true} {
		name := "b.go not open"
		if bOpen {
			name = "b.go open"
		}
		t.Run(name, func(t *testing.T) {
			root := disk.Tree(t, map[string]string{
				"go.mod": "module example.com/dep\n\ngo 1.22\n",
				"a.go":   oldA,
				"b.go":   "package main\n\nfunc main() { println(twice(2)) }\n",
			})
			a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if bOpen {
				rep, _ := m.Diagnostics(ctx, []string{b}, DiagnosticsOptions{})
				if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 0 {
					t.Fatalf("b.go before: %s %s %s", fd.Verdict, fd.Diagnostics, fd.Detail)
				}
			} else if err := m.Prewarm(ctx, b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(a, []byte(newA), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, _ := m.Diagnostics(ctx, []string{b}, DiagnosticsOptions{})
			fd := rep.Files[0]
			msgs := messages(t, fd.Diagnostics)
			if fd.Verdict != Fresh || len(msgs) != 1 || !strings.HasPrefix(msgs[0], "not enough arguments in call to twice") {
				t.Fatalf("b.go after a.go's signature changed on disk: %s %q %s", fd.Verdict, msgs, fd.Detail)
			}
			if err := os.WriteFile(a, []byte(oldA), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, _ = m.Diagnostics(ctx, []string{b}, DiagnosticsOptions{})
			if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 0 {
				t.Fatalf("b.go after a.go was restored on disk: %s %s %s", fd.Verdict, fd.Diagnostics, fd.Detail)
			}
			for _, st := range m.Servers() {
				if st.OpenDocuments != 1 {
					t.Errorf("%s: %d open documents, want 1 (b.go; a.go was never opened)", st.Name, st.OpenDocuments)
				}
				for _, r := range st.Registrations {
					t.Logf("registration %s %s", r.Method, r.RegisterOptions)
				}
			}
		})
	}
}

// TestRealShellNewPackage: the agent's shell makes a new package folder
// and a file in it, main.go (open) starts using it, and then the shell
// renames the function in the new folder's file: the folder made after
// the watch began is watched too, so gopls hears of the rename and
// main.go's diagnostics show the break.
func TestRealShellNewPackage(t *testing.T) {
	peers.Require(t, "gopls")
	root := disk.Tree(t, map[string]string{
		"go.mod":  "module example.com/newpkg\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
	})
	main, util := filepath.Join(root, "main.go"), filepath.Join(root, "util", "util.go")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	diags := freshDiagnostics(ctx, t, m, main)
	if msgs := diags("before"); len(msgs) != 0 {
		t.Fatalf("main.go before: %q", msgs)
	}
	if err := os.MkdirAll(filepath.Dir(util), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(util, []byte("package util\n\n// Half halves x.\nfunc Half(x int) int { return x / 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte("package main\n\nimport \"example.com/newpkg/util\"\n\nfunc main() { println(util.Half(4)) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msgs := diags("using the new package"); len(msgs) != 0 {
		t.Fatalf("main.go using the new package: %q", msgs)
	}
	if err := os.WriteFile(util, []byte("package util\n\n// Halve halves x.\nfunc Halve(x int) int { return x / 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msgs := diags("after the rename in util.go"); !slices.Contains(msgs, "undefined: util.Half") {
		t.Fatalf("main.go after util.go's function was renamed by shell: %q", msgs)
	}
}
