//go:build unix

package editorconfig

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestResolveFIFO: a FIFO named .editorconfig is skipped with an error
// naming it, without blocking on it (no writer ever comes); it is opened
// without blocking, so one swapped in after a look cannot block either.
func TestResolveFIFO(t *testing.T) {
	root := tree(t, map[string]string{".editorconfig": "root=true\n[*]\nindent_size=2\n"})
	fifo := filepath.Join(root, "a", ".editorconfig")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(filepath.Join(root, "a", "f.ts"))
	if err == nil || !strings.Contains(err.Error(), fifo+": not a regular file") {
		t.Errorf("error %v", err)
	}
	if p.IndentSize != 2 {
		t.Errorf("the other file's properties: %+v", p)
	}
}
