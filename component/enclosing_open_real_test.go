package component

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestEnclosingLeavesNoDocumentsOpen: the outlines a references answer
// reads for its hits' enclosing symbols (through the real chain: adapter,
// Manager, gopls) leave open only the files the agent asked about: the
// file of the references request, and a file it asked about before, not
// the three other files the hits are in, which gopls would otherwise keep
// analysing. The answer still says where each hit sits.
func TestEnclosingLeavesNoDocumentsOpen(t *testing.T) {
	p := callerProjects[0]
	line, name := p.decl()
	for _, c := range []struct {
		name string
		// asked are files the agent asked about before the references.
		asked    []string
		wantOpen int
	}{
		{"only the asked file", nil, 1},
		{"a file asked about before stays", []string{"app/app.go"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			peers.Require(t, p.peer)
			root, _ := filepath.EvalSymlinks(t.TempDir())
			for name, text := range p.files {
				path := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
			cs := sc.open(t, root)
			call := func(args map[string]any) string {
				t.Helper()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%v: %v %v", args, err, res)
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			for _, f := range append([]string{p.open}, c.asked...) {
				call(map[string]any{"action": "diagnostics", "file": f})
			}
			text := call(map[string]any{"action": "references", "file": p.open, "line": line, "symbol": name})
			for _, want := range p.refs {
				if !strings.Contains(text, "  "+want+"\n") {
					t.Errorf("want %q in:\n%s", want, text)
				}
			}
			var open []int
			for _, st := range sc.adapter.Local().Servers() {
				open = append(open, st.OpenDocuments)
			}
			if len(open) != 1 || open[0] != c.wantOpen {
				t.Errorf("open documents per server %v, want [%d]", open, c.wantOpen)
			}
		})
	}
}
