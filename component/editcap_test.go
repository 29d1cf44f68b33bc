package component

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestRenameEditFileOverCap: a language server whose rename answer edits a
// workspace file over the file-size cap (local.max_file_size, as the
// component is configured) gets the call refused as a whole, preview or
// apply: the model's tool error names the file, its size and the cap, the
// file is refused from its size (a 2 GiB sparse one allocates nothing near
// it), nothing on disk changes and no server is told of a change. Before,
// the edit read the file whole: such an answer grew acp-lsp to 12.8 GB.
func TestRenameEditFileOverCap(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		size  int64 // big.ev's size, sparse
		apply bool
		want  []string // what the tool error says
	}{
		{"preview, the default cap", Config{}, 2 << 30, false, []string{"big.ev", "2147483648 bytes", "over the cap of 10.0 MiB", "nothing was changed"}},
		{"apply, the default cap", Config{}, 2 << 30, true, []string{"big.ev", "2147483648 bytes", "over the cap of 10.0 MiB", "nothing was changed"}},
		{"apply, a cap of its own", Config{MaxFileSize: 1 << 20}, 4 << 20, true, []string{"big.ev", "4194304 bytes", "over the cap of 1.0 MiB", "nothing was changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s, fb, cs := setup(t, tt.cfg)
			big := filepath.Join(s.Root, "big.ev")
			f, err := os.Create(big)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(tt.size); err != nil {
				t.Fatal(err)
			}
			f.Close()
			was := dirState(t, s.Root)
			fb.set("textDocument/rename", fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"X"}]}}`, edit.URIFromPath(big)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": tt.apply})
			runtime.ReadMemStats(&after)
			if !isErr {
				t.Fatalf("rename editing a %d-byte file: not refused: %s", tt.size, text)
			}
			for _, want := range tt.want {
				if !strings.Contains(text, want) {
					t.Errorf("%q does not say %q", text, want)
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d bytes to refuse the file", grew)
			}
			if now := dirState(t, s.Root); now != was {
				t.Errorf("the workspace changed:\n%s\nwas:\n%s", now, was)
			}
			if len(fb.changed) != 0 {
				t.Errorf("servers told of changes: %+v", fb.changed)
			}
		})
	}
}

// dirState lists root's entries with their size and time, and main.go's
// content, to show that nothing was written.
func dirState(t *testing.T, root string) string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %v %d %v\n", e.Name(), fi.Mode(), fi.Size(), fi.ModTime())
	}
	main, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	return b.String() + string(main)
}
