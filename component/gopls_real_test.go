package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// managerBackend answers the Backend straight from package lsp's Manager:
// what the adapter does for local servers, without the chain, so the tool
// can be tested and benchmarked against a real gopls without the ACP hop.
type managerBackend struct {
	m *lsp.Manager
	// anyFile is sent for workspace-wide requests, which need a file to
	// pick the server.
	anyFile string
}

func (b *managerBackend) path(uri string) (string, error) {
	if uri == "" {
		return b.anyFile, nil
	}
	return edit.PathFromURI(uri)
}

func (b *managerBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	p, err := b.path(uri)
	if err != nil {
		return lspext.RequestResult{}, err
	}
	a, err := b.m.Ask(ctx, p, method, params)
	r := a.Readiness
	return lspext.RequestResult{Result: a.Result, Readiness: []lspext.Readiness{{Server: r.Server, State: string(r.State)}}}, err
}

func (b *managerBackend) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	var paths []string
	for _, u := range uris {
		p, err := edit.PathFromURI(u)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	rep, err := b.m.Diagnostics(ctx, paths, lsp.DiagnosticsOptions{Timeout: wait})
	if err != nil {
		return nil, err
	}
	out := &lspext.DiagnosticReportResult{}
	for _, f := range rep.Files {
		out.Files = append(out.Files, lspext.FileDiagnostics{URI: f.URI, Server: f.Server, Diagnostics: f.Diagnostics})
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: f.Server, Verdict: string(f.Verdict), URIs: []string{f.URI}, Detail: f.Detail})
	}
	return out, nil
}

func (b *managerBackend) Servers(ctx context.Context, uri string) ([]lspext.ServerInfo, error) {
	return b.Status(ctx)
}

func (b *managerBackend) Status(ctx context.Context) ([]lspext.ServerInfo, error) {
	var out []lspext.ServerInfo
	for _, s := range b.m.Servers() {
		out = append(out, lspext.ServerInfo{Name: s.Name, Source: "local", Root: s.Root, State: string(s.State), PID: s.PID, RSS: s.RSSBytes, LastError: s.LastError, Capabilities: s.Capabilities})
	}
	return out, nil
}

func (b *managerBackend) Restart(ctx context.Context, server, uri string) error { return nil }

func (b *managerBackend) FilesChanged(ctx context.Context, changes []lspext.FileChange) error {
	var paths []string
	for _, c := range changes {
		if p, err := edit.PathFromURI(c.URI); err == nil {
			paths = append(paths, p)
		}
	}
	return b.m.FileChanged(ctx, paths...)
}

const brokenGo = `package main

import "fmt"

func add(a, b int) int { return a + b }

func main() {
	fmt.Println(add(1, 2), add(3))
}
`

// TestRealGopls drives the tool against a real gopls: diagnostics with
// gopls's exact message and a fresh verdict, definition, references,
// hover, symbols, and a rename applied on disk.
func TestRealGopls(t *testing.T) {
	_, main, cs := goplsTool(t, Config{DiagnosticsWait: 60 * time.Second}, brokenGo)

	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"action": "diagnostics", "file": "main.go"}, []string{"main.go:8:", "not enough arguments in call to add", "gopls: fresh"}},
		{map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}, []string{"main.go:5:6", "func add(a, b int) int"}},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"references: 3", "main.go:8:14", "main.go:8:25"}},
		{map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, []string{"func add(a int, b int) int"}},
		{map[string]any{"action": "symbols", "file": "main.go"}, []string{"main.go:5:6 function add", "main.go:7:6 function main"}},
		{map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true}, []string{"applied"}},
	} {
		text, isErr := callTool(t, cs, tc.args)
		for _, w := range tc.want {
			if isErr || !strings.Contains(text, w) {
				t.Errorf("%v: want %q in:\n%s", tc.args, w, text)
				break
			}
		}
	}
	if b, _ := os.ReadFile(main); strings.Count(string(b), "sum(") != 3 {
		t.Errorf("rename not applied:\n%s", b)
	}
}

// goplsTool starts the tool on a Go module holding main.go with text,
// answered by a Manager with real gopls: it returns the Manager, main.go's
// path and an MCP client session on the tool (all closed with t).
func goplsTool(t testing.TB, cfg Config, text string) (*lsp.Manager, string, *mcp.ClientSession) {
	t.Helper()
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(text), 0o644)
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: peers.Env()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	_, s := startSession(t, cfg, &managerBackend{m: m, anyFile: main}, root)
	return m, main, connect(t, s)
}
