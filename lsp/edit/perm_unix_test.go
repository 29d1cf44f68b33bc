//go:build unix

package edit

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// permDirEnv carries the prepared workspace to the unprivileged child.
const permDirEnv = "ACP_LSP_EDIT_PERM_DIR"

// TestUnwritableDirectoryRollsBack applies an edit whose second file lives
// in a read-only directory: the first file is already rewritten when the
// second write fails with EACCES from the kernel, and must be restored.
// Root ignores permissions, so as root the test re-runs itself as user
// nobody, where the failure is real.
func TestUnwritableDirectoryRollsBack(t *testing.T) {
	base, err := os.MkdirTemp("", "acp-lsp-edit-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(base)
	})
	dir := filepath.Join(base, "ws")
	for p, mode := range map[string]fs.FileMode{base: 0o755, dir: 0o777, filepath.Join(dir, "locked"): 0o755} {
		if err := os.MkdirAll(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"a.go": "package a // 日本\n", "locked/b.go": "package b\n"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "locked"), 0o555); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)

	if os.Geteuid() != 0 {
		applyIntoLockedDir(t, dir)
	} else {
		// Run this package's test binary as nobody from a folder nobody
		// can read and run.
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(base, "edit.test")
		copyFile(t, self, bin)
		cmd := exec.Command(bin, "-test.run", "^TestUnwritableDirectoryChild$", "-test.v", "-test.count=1")
		cmd.Dir = base
		cmd.Env = append(os.Environ(), permDirEnv+"="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestUnwritableDirectoryChild") {
			t.Fatalf("child as nobody: %v\n%s", err, out)
		}
	}
	sameTree(t, before, snapshot(t, dir))
}

// TestUnwritableDirectoryChild is the unprivileged half of
// TestUnwritableDirectoryRollsBack; it does nothing unless started by it.
func TestUnwritableDirectoryChild(t *testing.T) {
	dir := os.Getenv(permDirEnv)
	if dir == "" {
		return
	}
	if os.Geteuid() == 0 {
		t.Fatal("child runs as root")
	}
	applyIntoLockedDir(t, dir)
}

func applyIntoLockedDir(t *testing.T, dir string) {
	t.Helper()
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		tde(uri(dir, "a.go"), te(0, 8, 0, 9, "A")),
		tde(uri(dir, "locked/b.go"), te(0, 8, 0, 9, "B")),
	}}
	_, err := Apply(context.Background(), we, Options{Root: dir})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "rolled back") {
		t.Fatalf("err = %v; want a permission error, rolled back", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if string(b) != "package a // 日本\n" {
		t.Fatalf("a.go = %q", b)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
