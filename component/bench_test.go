package component

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// BenchmarkHoverGopls compares a warm hover through the tool (MCP client →
// component → lsp.Manager → gopls) with the same request sent straight
// through the Manager, without the ACP chain (BenchmarkHoverChain has it).
func BenchmarkHoverGopls(b *testing.B) {
	m, main, cs := goplsTool(b, Config{}, mainGo)
	ctx := context.Background()
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
	// paired: each iteration times the tool and the direct request one
	// after the other, so both see the same machine load; ratio is the
	// figure to compare against the 1.3 goal.
	b.Run("paired", func(b *testing.B) {
		pairedHover(b, ctx, cs, args, m, main)
	})
	b.Run("direct", func(b *testing.B) {
		pos := position.Position{Line: 4, Character: 5}
		for b.Loop() {
			raw, err := managerHover(ctx, m, main, pos)
			if err != nil || len(raw) == 0 || string(raw) == "null" {
				b.Fatal(err, json.RawMessage(raw))
			}
		}
	})
}

// pairedHover runs the tool's hover and the same hover straight through
// the Manager back to back and reports both times and their ratio.
func pairedHover(b *testing.B, ctx context.Context, cs *mcp.ClientSession, args *mcp.CallToolParams, m *lsp.Manager, file string) {
	var tool, direct time.Duration
	pos := position.Position{Line: 4, Character: 5}
	for b.Loop() {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		t1 := time.Now()
		if _, err := managerHover(ctx, m, file, pos); err != nil {
			b.Fatal(err)
		}
		tool += t1.Sub(t0)
		direct += time.Since(t1)
	}
	reportPaired(b, tool, direct)
}

// managerRequest asks m for method at pos in path the way the adapter
// does for an `_lsp/request`: the LSP params go to Manager.Request as
// they are. extra is more members of the params (`,"key":value`) or "".
func managerRequest(ctx context.Context, m *lsp.Manager, path, method string, pos position.Position, extra string) (json.RawMessage, error) {
	uri, err := json.Marshal(edit.URIFromPath(path))
	if err != nil {
		return nil, err
	}
	params := fmt.Sprintf(`{"textDocument":{"uri":%s},"position":{"line":%d,"character":%d}%s}`, uri, pos.Line, pos.Character, extra)
	return m.Request(ctx, path, method, json.RawMessage(params))
}

// managerHover is textDocument/hover through managerRequest.
func managerHover(ctx context.Context, m *lsp.Manager, path string, pos position.Position) (json.RawMessage, error) {
	return managerRequest(ctx, m, path, "textDocument/hover", pos, "")
}

// reportPaired reports the mean times of the tool and of the direct
// request, and their ratio.
func reportPaired(b *testing.B, tool, direct time.Duration) {
	b.ReportMetric(float64(tool.Nanoseconds())/float64(b.N), "tool-ns/op")
	b.ReportMetric(float64(direct.Nanoseconds())/float64(b.N), "direct-ns/op")
	b.ReportMetric(float64(tool)/float64(direct), "ratio")
}

// BenchmarkHoverChain is the whole chain as an agent meets it: an MCP
// client over streamable HTTP with the bearer token → the component stage
// → the proxy chain → the adapter → gopls, paired with the same hover sent
// straight to the adapter's Manager.
func BenchmarkHoverChain(b *testing.B) {
	peers.Require(b, "gopls")
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	sc := startStack(b, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(b, root)
	ctx := context.Background()
	args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}}
	if res, err := cs.CallTool(ctx, args); err != nil || res.IsError { // warm up gopls
		b.Fatal(err, res)
	}
	b.Run("gosdk", func(b *testing.B) { pairedHover(b, ctx, cs, args, sc.adapter.Manager(), main) })
	// raw: the same call from the smallest client, one POST read whole (the
	// bench's -mcp-client lean), to tell the client's share from acp-lsp's.
	c := sc.stage.Tool()
	rc := dialRaw(b, c, c.SessionByACP("S1"))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`
	b.Run("raw", func(b *testing.B) {
		var tool, direct time.Duration
		for b.Loop() {
			t0 := time.Now()
			if r := rc.post(b, body, nil); r.status != http.StatusOK || !strings.Contains(string(r.body), "func add") {
				b.Fatal(r.status, string(r.body))
			}
			t1 := time.Now()
			if _, err := managerHover(ctx, sc.adapter.Manager(), main, position.Position{Line: 4, Character: 5}); err != nil {
				b.Fatal(err)
			}
			tool += t1.Sub(t0)
			direct += time.Since(t1)
		}
		reportPaired(b, tool, direct)
	})
}

// BenchmarkDiagnosticsAfterEdit times an edit on disk followed by the
// tool's diagnostics (waiting for gopls's answer for the new content),
// paired with the same edit followed by lsp.Manager.Diagnostics, which
// returns once gopls published for the new version: the tool's added
// latency over gopls's own publish time.
func BenchmarkDiagnosticsAfterEdit(b *testing.B) {
	m, main, cs := goplsTool(b, Config{DiagnosticsWait: time.Minute}, mainGo)
	ctx := context.Background()
	args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "diagnostics", "file": "main.go"}}
	// Each edit changes the error's argument, so every answer is new work.
	n := 0
	edit := func() {
		n++
		os.WriteFile(main, []byte(strings.Replace(mainGo, "add(3, 4)", fmt.Sprintf("add(%d)", n), 1)), 0o644)
	}
	edit()
	if res, err := cs.CallTool(ctx, args); err != nil || res.IsError { // warm up
		b.Fatal(err, res)
	}
	var tool, direct time.Duration
	viaTool := func() {
		edit()
		t0 := time.Now()
		res, err := cs.CallTool(ctx, args)
		if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "gopls: fresh") {
			b.Fatal(err, res)
		}
		tool += time.Since(t0)
	}
	viaManager := func() {
		edit()
		t1 := time.Now()
		rep, err := m.Diagnostics(ctx, []string{main}, lsp.DiagnosticsOptions{Timeout: time.Minute})
		if err != nil || rep.Files[0].Verdict != lsp.Fresh {
			b.Fatal(err, rep)
		}
		direct += time.Since(t1)
	}
	// The order alternates: gopls may still be busy with the previous
	// edit, which would always burden the same side.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			viaTool()
			viaManager()
		} else {
			viaManager()
			viaTool()
		}
	}
	reportPaired(b, tool, direct)
}

// BenchmarkToolOverhead isolates the component's own work: a hover and a
// workspace-symbol query answered by the canned backend (no server)
// against the floor, a call refused before any work, over the same
// in-memory MCP session. The difference is what the component adds per
// call.
func BenchmarkToolOverhead(b *testing.B) {
	root := b.TempDir()
	writeOld(b, filepath.Join(root, "main.go"), mainGo)
	fb := newFake()
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
	fb.set("workspace/symbol", benchSymbols(b, root, b.TempDir()))
	c, err := New(Config{Executable: "/bin/acp-lsp"}, fb)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession(root)
	if err != nil {
		b.Fatal(err)
	}
	cs := connect(b, s)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		args map[string]any
	}{
		{"floor", map[string]any{"action": ""}},
		{"hover", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}},
		{"symbols", map[string]any{"action": "symbols", "query": "ParseCheck"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			p := &mcp.CallToolParams{Name: "lsp", Arguments: bc.args}
			for b.Loop() {
				res, err := cs.CallTool(ctx, p)
				if err != nil || res.IsError != (bc.name == "floor") {
					b.Fatal(err, res)
				}
				fb.mu.Lock()
				fb.requests = fb.requests[:0]
				fb.mu.Unlock()
			}
		})
	}
}

// BenchmarkSymbolsAnswer is the component's work for a workspace-symbol
// query without the MCP session around it (BenchmarkToolOverhead has it):
// the canned answer of benchSymbols decoded, checked, placed and
// rendered, the tool result encoded as the HTTP fast path sends it.
func BenchmarkSymbolsAnswer(b *testing.B) {
	root := b.TempDir()
	fb := newFake()
	fb.set("workspace/symbol", benchSymbols(b, root, b.TempDir()))
	c, err := New(Config{Executable: "/bin/acp-lsp"}, fb)
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
	args := json.RawMessage(`{"action":"symbols","query":"ParseCheck"}`)
	b.ReportAllocs()
	for b.Loop() {
		res := s.toolResult(ctx, args)
		if _, ok := encodeToolResult(res); !ok || res.IsError {
			b.Fatal(res)
		}
		fb.mu.Lock()
		fb.requests = fb.requests[:0]
		fb.mu.Unlock()
	}
}

// benchSymbols writes files like those the bench's workspace-symbol query
// names and returns an answer shaped like gopls's to it: 44 symbols, 35 in
// 8 files of root (30 KB each, up to three folders deep), 9 in 5 files of
// outside, five folders deep like the standard library's.
func benchSymbols(b *testing.B, root, outside string) string {
	var body strings.Builder
	body.WriteString("package x\n\n")
	for i := range 1000 {
		fmt.Fprintf(&body, "func ParseCheck%d() {}\n", i)
	}
	files := []struct {
		dir  string
		path string
		n    int
	}{
		{root, "checker/checker_test.go", 24}, {root, "checker/checker.go", 1}, {root, "parser/parser.go", 1},
		{root, "expr_test.go", 1}, {root, "test/coredns/coredns.go", 1}, {root, "internal/difflib/difflib.go", 4},
		{root, "internal/testify/assert/assertions_test.go", 1}, {root, "test/bench/bench_call_test.go", 2},
		{outside, "go/src/text/template/parse/parse.go", 2}, {outside, "go/src/regexp/syntax/parse.go", 3},
		{outside, "go/src/vendor/golang.org/x/net/dns/dnsmessage/message.go", 1},
		{outside, "go/src/crypto/internal/fips140/rsa/rsa.go", 2}, {outside, "go/src/net/http/h2_bundle.go", 1},
	}
	var syms []string
	for i, f := range files {
		path := filepath.Join(f.dir, f.path)
		os.MkdirAll(filepath.Dir(path), 0o755)
		writeOld(b, path, body.String())
		for j := range f.n {
			line := 2 + (i*37+j*41)%1000
			syms = append(syms, fmt.Sprintf(`{"name":"ParseCheck%d","kind":12,"location":{"uri":%q,"range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":19}}},"containerName":"x"}`, line-2, edit.URIFromPath(path), line, line))
		}
	}
	return "[" + strings.Join(syms, ",") + "]"
}

// BenchmarkToolHTTP isolates the MCP-over-HTTP cost of a tool call with
// the canned backend (no server): the SDK's handler vs the fast path, each
// called by the MCP go-sdk client and by a raw net/http JSON-RPC client
// (one POST, the body read whole), for a call refused at once (floor) and
// a hover; "http" is a bare POST round trip to a handler that answers a
// fixed body, the transport's own floor.
func BenchmarkToolHTTP(b *testing.B) {
	root := b.TempDir()
	writeOld(b, filepath.Join(root, "main.go"), mainGo)
	fb := newFake()
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
	fb.report = &lspext.DiagnosticReportResult{
		Files:   []lspext.FileDiagnostics{{URI: edit.URIFromPath(filepath.Join(root, "main.go")), Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":7,"character":17},"end":{"line":7,"character":18}},"severity":1,"source":"compiler","code":"WrongArgCount","message":"not enough arguments in call to add\n\thave (number)\n\twant (int, int)"}]`)}},
		Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}},
	}
	c, err := New(Config{Executable: "/bin/acp-lsp"}, fb)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	hc := &headerClient{name: "Authorization", value: "Bearer " + s.token}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + c.HTTPAddr() + "/mcp", HTTPClient: hc.client()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	rc := dialRaw(b, c, s)
	calls := []struct {
		name string
		args map[string]any
	}{
		{"floor", map[string]any{"action": ""}},
		{"hover", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}},
		{"diagnostics", map[string]any{"action": "diagnostics", "file": "main.go"}},
	}
	for _, path := range []string{"sdk", "fast"} {
		for _, cl := range []string{"gosdk", "raw"} {
			for _, call := range calls {
				b.Run(path+"/"+cl+"/"+call.name, func(b *testing.B) {
					c.noFast.Store(path == "sdk")
					defer c.noFast.Store(false)
					b.ReportAllocs()
					p := &mcp.CallToolParams{Name: "lsp", Arguments: call.args}
					argJSON, _ := json.Marshal(call.args)
					body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":` + string(argJSON) + `}}`
					for b.Loop() {
						if cl == "gosdk" {
							if _, err := cs.CallTool(ctx, p); err != nil {
								b.Fatal(err)
							}
						} else if r := rc.post(b, body, nil); r.status != http.StatusOK {
							b.Fatal(r.status, string(r.body))
						}
						fb.mu.Lock()
						fb.requests = fb.requests[:0]
						fb.mu.Unlock()
					}
				})
			}
		}
	}
	b.Run("http", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"action is required"}],"isError":true}}`)
		}))
		defer srv.Close()
		raw := &rawMCP{url: srv.URL, token: "x", hc: srv.Client()}
		b.ReportAllocs()
		for b.Loop() {
			raw.post(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"action":""}}}`, nil)
		}
	})
}

// writeOld writes a file dated a minute ago, as a workspace's files are:
// the document cache reads a file written within its racy window anew on
// every call, which a benchmark's fresh file would otherwise measure.
func writeOld(b *testing.B, path, text string) {
	b.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		b.Fatal(err)
	}
}
