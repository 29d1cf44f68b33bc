package lsp_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestLookPath: a command is found on the PATH of the environment a server
// gets, not this process's; only executable regular files count.
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	other := filepath.Join(dir, "other")
	for _, d := range []string{bin, other, filepath.Join(other, "srv-dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "srv"), 0o755)
	write(filepath.Join(other, "srv"), 0o644) // not executable
	write(filepath.Join(other, "only-other"), 0o755)
	for _, tt := range []struct {
		name string
		cmd  string
		env  []string
		want string // "" for not found
	}{
		{"on the env's PATH", "srv", []string{"PATH=" + bin}, filepath.Join(bin, "srv")},
		{"a file that is not executable is skipped", "srv", []string{"PATH=" + other + string(os.PathListSeparator) + bin}, filepath.Join(bin, "srv")},
		{"a folder of that name is skipped", "srv-dir", []string{"PATH=" + other}, ""},
		{"the last PATH wins", "only-other", []string{"PATH=" + other, "PATH=" + bin}, ""},
		{"an empty entry is not the working folder", "srv", []string{"PATH=" + string(os.PathListSeparator)}, ""},
		{"no PATH finds nothing", "srv", []string{"HOME=" + dir}, ""},
		{"an absolute path is taken as given", filepath.Join(bin, "srv"), []string{"PATH="}, filepath.Join(bin, "srv")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lsp.LookPath(tt.cmd, tt.env)
			if tt.want == "" {
				if !errors.Is(err, exec.ErrNotFound) {
					t.Errorf("LookPath(%q) = %q, %v; want exec.ErrNotFound", tt.cmd, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("LookPath(%q) = %q, %v; want %q", tt.cmd, got, err, tt.want)
			}
		})
	}
	t.Run("a . entry is the working folder, not this process's PATH", func(t *testing.T) {
		t.Chdir(bin)
		t.Setenv("PATH", other)
		if _, err := lsp.LookPath("srv", []string{"PATH=."}); err != nil {
			t.Errorf("LookPath(srv) = %v; want ./srv", err)
		}
		if got, err := lsp.LookPath("only-other", []string{"PATH=."}); !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("LookPath(only-other) = %q, %v; want exec.ErrNotFound", got, err)
		}
	})
	t.Run("nil env is this process's", func(t *testing.T) {
		t.Setenv("PATH", bin)
		if got, err := lsp.LookPath("srv", nil); err != nil || got != filepath.Join(bin, "srv") {
			t.Errorf("LookPath = %q, %v", got, err)
		}
	})
}
