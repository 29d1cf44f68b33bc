//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// TestConvertReadsRegularFilesOnly: converting positions reads the
// documents a server's answer names, wherever they are; only regular
// files under the size cap are read. A named pipe (which blocked the
// answer for good), /dev/zero (read without end) or a file over the cap
// (read whole) leaves the position as the server sent it, at once and
// without allocating the file's size.
func TestConvertReadsRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.go")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.go")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, path := range []string{pipe, huge, "/dev/zero"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw := `[{"uri":"` + edit.URIFromPath(path) + `","range":{"start":{"line":0,"character":7},"end":{"line":0,"character":9}}}]`
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out, err := newConverter(position.UTF8, position.UTF16, nil, DefaultMaxFileSize).convert([]byte(raw), "")
			runtime.ReadMemStats(&after)
			if err != nil || !strings.Contains(string(out), `"character":7`) {
				t.Errorf("converted %s: %v; want the position unchanged", out, err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d bytes converting a position in %s", grew, path)
			}
		})
	}
}
