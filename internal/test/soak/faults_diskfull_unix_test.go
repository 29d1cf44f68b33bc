//go:build unix

package soak

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestFaultDiskFullDuringRenameApply: the disk fills up while a rename is
// written (simulated with RLIMIT_FSIZE, which makes a write past the limit
// fail with EFBIG as a full disk fails with ENOSPC, and works as root where
// permissions do not). The tool answers that nothing was changed, and every
// file is byte for byte what it was. Read-only files and directories are
// covered by lsp/edit's TestUnwritableDirectoryRollsBack (as user nobody).
func TestFaultDiskFullDuringRenameApply(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	const limit = 64 << 10
	pad := "// " + strings.Repeat("padding ", (limit+4096)/8) + "\n"
	files := map[string]string{
		"go.mod":      "module example.com/full\n\ngo 1.22\n",
		"a_small.go":  "package main\n\n// Target is renamed.\nfunc Target() int { return 1 }\n",
		"main.go":     "package main\n\nfunc main() { println(Target()) }\n",
		"z_bigger.go": "package main\n\n" + pad + "var _ = Target()\n",
	}
	writeFiles(t, root, files)
	_, cs := startStack(t, root)
	rename := map[string]any{"action": "rename", "file": "a_small.go", "line": 4, "symbol": "Target", "new_name": "Renamed"}
	// The preview first: it must touch all three files, or the test
	// proves nothing.
	text, isErr := toolCall(t, cs, rename)
	for _, f := range []string{"a_small.go", "main.go", "z_bigger.go"} {
		if isErr || !strings.Contains(text, f) {
			t.Fatalf("preview does not change %s: error=%v\n%.2000s", f, isErr, text)
		}
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	rename["apply"] = true
	text, isErr = toolCall(t, cs, rename)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if !isErr || !strings.Contains(text, "nothing was changed") {
		t.Errorf("apply on a full disk: error=%v, want 'nothing was changed':\n%.2000s", isErr, text)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(got) != want {
			t.Errorf("%s changed after the failed apply (%v)", name, err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(leftovers) != len(files) {
		t.Errorf("workspace holds %v, want only the %d original files", leftovers, len(files))
	}
	// With room again the same rename applies.
	if text, isErr := toolCall(t, cs, rename); isErr || !strings.Contains(text, "applied") {
		t.Errorf("apply with room: error=%v\n%.2000s", isErr, text)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); !strings.Contains(string(b), "Renamed()") {
		t.Errorf("main.go after the rename:\n%s", b)
	}
}
