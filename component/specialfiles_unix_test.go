//go:build unix

package component

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPositionSpecialFiles: only regular files are read. A named pipe in
// the workspace is refused at once, saying what it is (before, opening it
// blocked until a writer came, and the hover never answered), as is a
// folder and a link to either; a link to /dev/zero points out of the
// workspace and is refused by the workspace check.
func TestPositionSpecialFiles(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"pipelink.go": "pipe.go", "dirlink.go": "dir.go", "zero.go": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	_, s := startSession(t, Config{}, newFake(), root)
	for _, tc := range []struct{ file, want string }{
		{"pipe.go", "not a regular file (a named pipe)"},
		{"pipelink.go", "not a regular file (a named pipe)"},
		{"dir.go", "not a regular file (a directory)"},
		{"dirlink.go", "not a regular file (a directory)"},
		{"zero.go", "outside the workspace"},
	} {
		for _, action := range []string{"hover", "definition"} {
			_, err := s.call(context.Background(), Input{Action: action, File: tc.file, Line: 1, Symbol: "x"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: %v, want an error saying %q", action, tc.file, err, tc.want)
			}
		}
	}
}
