//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTrustRefusesIrregularFile: 'acp-lsp trust' refuses a project file
// that is not a regular file, naming it, without reading or blocking on it.
func TestTrustRefusesIrregularFile(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("ACP_LSP_CONFIG", "")
	for _, tt := range []struct {
		name  string
		place func(path string) error
		want  string
	}{
		{"a FIFO", func(path string) error { return syscall.Mkfifo(path, 0o644) }, "not a regular file (a named pipe)"},
		{"a symlink to /dev/zero", func(path string) error { return os.Symlink("/dev/zero", path) }, "not a regular file (a character device)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			pf := filepath.Join(ws, ".acp-lsp.toml")
			if err := tt.place(pf); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := Main(context.Background(), []string{"trust", ws}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code == ExitOK || !strings.Contains(errb.String(), pf+": "+tt.want) {
				t.Fatalf("exit %d, want a failure saying %q of %s\nstdout:\n%s\nstderr:\n%s", code, tt.want, pf, out.String(), errb.String())
			}
		})
	}
}
