package component_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/bench"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// BenchmarkWorkspaceSymbols is the "workspace symbols (warm)" row of
// docs/benchmarks.md in process: the bench's workspace (fetched into
// .cache/bench as scripts/bench.sh does), column (a)'s bare client and
// column (b)'s chain, each with its own gopls on its own copy, asked for
// the bench's query in turn (pairBareManager alternates who goes first).
// "tool" is the whole tool call (MCP over HTTP, component, chain, adapter,
// Manager); "manager" is the same request straight to the adapter's
// lsp.Manager, to tell the Manager's share from the layers above it.
//
//	go test -run X -bench WorkspaceSymbols -benchtime 200x ./component/
func BenchmarkWorkspaceSymbols(b *testing.B) {
	bin := peers.Require(b, "gopls")
	ctx := context.Background()
	cache := filepath.Join(peers.ModuleRoot(), ".cache", "bench")
	w, err := bench.Fetch(ctx, cache, bench.DefaultSpec, peers.Env())
	if err != nil {
		b.Fatal(err)
	}
	rootA, err := w.Copy(filepath.Join(cache, "ws"), "symbench-bare")
	if err != nil {
		b.Fatal(err)
	}
	rootB, err := w.Copy(filepath.Join(cache, "ws"), "symbench-tool")
	if err != nil {
		b.Fatal(err)
	}
	t, err := bench.Locate(rootA, w.Spec)
	if err != nil {
		b.Fatal(err)
	}
	// The right answer names the declaration, as the bench judges it.
	want := t.DeclFile + ":" + strconv.Itoa(t.DeclLine)

	bare, err := bench.StartBare(ctx, bin, rootA, w.Env)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	st, err := bench.StartStack(ctx, lsp.Options{Env: w.Env}, component.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cs, err := st.NewSession(ctx, rootB)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	query := map[string]any{"query": t.Query}
	viaBare := func() error {
		_, err := bare.Call(ctx, "workspace/symbol", query)
		return err
	}
	args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "symbols", "query": t.Query}}
	viaTool := func() error {
		res, err := cs.CallTool(ctx, args)
		if err != nil {
			return err
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(text, want) {
			b.Fatalf("wrong answer (want %s):\n%s", want, text)
		}
		return nil
	}
	file := filepath.Join(rootB, t.DeclFile)
	params, _ := json.Marshal(query)
	viaManager := func() error {
		_, err := st.Adapter.Manager().Request(ctx, file, "workspace/symbol", params)
		return err
	}
	// gopls type-checks the whole workspace after its first answers; warm
	// calls in the meantime are slow for both sides alike but noisy.
	for range 30 {
		for _, f := range []func() error{viaBare, viaTool, viaManager} {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("tool", func(b *testing.B) { pairBareManager(b, viaBare, viaTool) })
	b.Run("manager", func(b *testing.B) { pairBareManager(b, viaBare, viaManager) })
}
