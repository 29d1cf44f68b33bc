package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestServerApplyEditFileCap: a server's own workspace/applyEdit reads the
// files it names under Options.MaxFileSize, as everything acp-lsp sends to
// a server does: an edit of a file over it is not applied, the answer's
// failureReason names the file, its size and the cap, and the file is left
// as it was; a negative cap reads any size. Before, the edit went through
// edit.OS with no cap of acp-lsp's, so a server could make acp-lsp read a
// file of any size whole.
func TestServerApplyEditFileCap(t *testing.T) {
	tests := []struct {
		name   string
		limit  int64
		want   string // the answer, or what its failureReason says; PATH is the file
		result string // the file after
	}{
		{"over the cap", 4, "read PATH: too large: 6 bytes, over the cap of 4 bytes", "alpha\n"},
		{"at the cap", 6, `{"applied":true}`, "Xalpha\n"},
		{"no cap", -1, `{"applied":true}`, "Xalpha\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "a.ev")
			if err := os.WriteFile(path, []byte("alpha\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, p := bareProc()
			s.ceiling = dir
			s.mgr.opts.MaxFileSize = tt.limit
			params, err := encode(map[string]any{"edit": map[string]any{"changes": map[string]any{
				edit.URIFromPath(path): []any{map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "newText": "X"}},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			res, rerr := p.serverRequest("workspace/applyEdit", params)
			if rerr != nil {
				t.Fatalf("workspace/applyEdit: %v", rerr)
			}
			got, err := encode(res)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(tt.want, "PATH", path); !strings.Contains(string(got), want) {
				t.Errorf("answer %s; want it to say %s", got, want)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != tt.result {
				t.Errorf("a.ev = %q, %v; want %q", b, err, tt.result)
			}
		})
	}
}
