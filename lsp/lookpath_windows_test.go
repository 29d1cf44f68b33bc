package lsp_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestLookPathOnWindows: a server is found as Windows finds a command: by
// the extensions of PATHEXT (gopls is gopls.exe), with no execute bits
// (Windows has none), and on the environment's PATH however it is spelled
// (Windows writes Path).
func TestLookPathOnWindows(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	other := filepath.Join(dir, "other")
	for _, d := range []string{bin, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{filepath.Join(bin, "srv.exe"), filepath.Join(bin, "plain"), filepath.Join(other, "srv.cmd")} {
		if err := os.WriteFile(name, []byte("MZ"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		cmd  string
		env  []string
		want string // "" for not found
	}{
		{"by PATHEXT's .exe", "srv", []string{"PATH=" + bin}, filepath.Join(bin, "srv.exe")},
		{"with its extension", "srv.exe", []string{"PATH=" + bin}, filepath.Join(bin, "srv.exe")},
		{"Path as Windows spells it", "srv", []string{"Path=" + bin}, filepath.Join(bin, "srv.exe")},
		{"the first folder with it wins", "srv", []string{"Path=" + other + ";" + bin}, filepath.Join(other, "srv.cmd")},
		{"the last PATH wins, however spelled", "srv", []string{"PATH=" + other, "Path=" + bin}, filepath.Join(bin, "srv.exe")},
		{"a file without an extension of PATHEXT is not a command", "plain", []string{"PATH=" + bin}, ""},
		{"an absolute path is taken as given", filepath.Join(bin, "srv"), []string{"PATH="}, filepath.Join(bin, "srv.exe")},
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
}
