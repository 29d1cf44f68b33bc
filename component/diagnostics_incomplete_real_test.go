package component

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestDiagnosticsCapGopls: `diagnostics *` on a clean Go module of 231
// files gopls handles (230 .go files and go.mod), more than a
// workspace-wide report checks, is answered by a real gopls for 200 of
// them and says that 31 were not checked, never "no problems".
func TestDiagnosticsCapGopls(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	for i := range 230 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.go", i)), []byte(fmt.Sprintf("package m\n\nfunc F%03d() int { return %d }\n", i, i)), 0o644)
	}
	opts := lsp.Options{Env: peers.Env(), Timeouts: lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(3 * time.Minute)}}
	sc := startStack(t, adapter.Config{LSP: opts}, Config{DiagnosticsWait: 3 * time.Minute, StructuredContent: true}, false)
	cs := sc.open(t, root)
	text, isErr, data := stacktest.CallTool(t, cs, map[string]any{"action": "diagnostics", "file": "*"})
	if isErr {
		t.Fatal(text)
	}
	if strings.Contains(text, "no problems") {
		t.Errorf("an answer that checked 200 of 231 files says no problems:\n%s", text)
	}
	for _, w := range []string{"gopls: fresh", "not known to be clean: nothing found in the 200 files checked; 31 files not checked"} {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
	var got struct {
		Coverage struct {
			Clean              bool
			Checked, Unchecked int
		} `json:"coverage"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Coverage; c.Clean || c.Checked != 200 || c.Unchecked != 31 {
		t.Errorf("coverage %+v, want not clean, 200 checked, 31 not; data %.300s", c, data)
	}
}
