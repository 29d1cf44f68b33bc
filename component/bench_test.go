package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// BenchmarkHoverGopls compares a warm hover through the tool (MCP client →
// component → lsp.Manager → gopls) with the same request sent straight
// through the Manager. The chain's ACP hop is not included (the adapter is
// not there yet).
func BenchmarkHoverGopls(b *testing.B) {
	peers.Require(b, "gopls")
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: peers.Env()})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(context.Background())
	c, err := New(Config{Executable: "/bin/acp-lsp"}, &managerBackend{m: m, anyFile: main})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession(root)
	if err != nil {
		b.Fatal(err)
	}
	cs := connect(b, s)
	args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}}
	if _, err := cs.CallTool(ctx, args); err != nil { // warm up gopls
		b.Fatal(err)
	}
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			res, err := cs.CallTool(ctx, args)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	// floor: the same MCP round trip for a call the tool refuses at once
	// (no file read, no server): what the SDK and transport cost alone.
	floor := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": ""}}
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			if _, err := cs.CallTool(ctx, floor); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("backend", func(b *testing.B) {
		be := &managerBackend{m: m, anyFile: main}
		params := json.RawMessage(`{"textDocument":{"uri":"` + "file://" + main + `"},"position":{"line":4,"character":5}}`)
		for b.Loop() {
			if _, err := be.Request(ctx, "file://"+main, "textDocument/hover", params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		pos := lsp.Position{Line: 4, Character: 5}
		for b.Loop() {
			raw, err := m.Hover(ctx, main, pos)
			if err != nil || len(raw) == 0 || string(raw) == "null" {
				b.Fatal(err, json.RawMessage(raw))
			}
		}
	})
}
