package component

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// marks records when one tool call passed each point of the chain. Calls
// are made one at a time, so one set is enough.
type marks struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (m *marks) mark(name string) {
	now := time.Now()
	m.mu.Lock()
	if _, ok := m.at[name]; !ok {
		m.at[name] = now
	}
	m.mu.Unlock()
}

func (m *marks) reset() {
	m.mu.Lock()
	m.at = map[string]time.Time{}
	m.mu.Unlock()
}

// spy is a Nonblocking pass-through stage that marks when an `_lsp/*`
// request from the component passes it upward and when its answer
// passes it back.
type spy struct{ m *marks }

func (spy) Nonblocking() {}
func (spy) Name() string { return "spy" }
func (s spy) FromClient(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	if _, ext := lspext.Canonical(m.Method); m.Kind == proxy.KindResponse && ext {
		s.m.mark("adapter replied")
	}
	hop.ToAgent(m)
}
func (s spy) FromAgent(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	if _, ext := lspext.Canonical(m.Method); m.Kind == proxy.KindRequest && ext {
		s.m.mark("request at adapter")
	}
	hop.ToClient(m)
}

// markingBackend marks when the tool's request enters and leaves the
// Backend.
type markingBackend struct {
	Backend
	m *marks
}

func (b markingBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	b.m.mark("backend in")
	r, err := b.Backend.Request(ctx, uri, method, params)
	b.m.mark("backend out")
	return r, err
}

func (b markingBackend) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	b.m.mark("backend in")
	r, err := b.Backend.DiagnosticReport(ctx, uris, wait)
	b.m.mark("backend out")
	return r, err
}

// markingTransport marks the HTTP round trip of the tools/call POST.
type markingTransport struct {
	header, value string
	m             *marks
}

func (t *markingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(t.header, t.value)
	t.m.mark("http out")
	r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { t.m.mark("wrote") }}))
	resp, err := http.DefaultTransport.RoundTrip(r)
	t.m.mark("http back")
	return resp, err
}

// BenchmarkHoverBreakdown runs BenchmarkHoverChain's warm hover with
// marks along the path and reports the median time between consecutive
// marks (ns), so the tool's overhead over a bare request can be placed:
// the MCP client before the POST, HTTP and the SDK server up to the
// tool handler, the component before its request, the chain up to the
// adapter, the adapter and gopls, the chain back, the component's
// rendering, the SDK and HTTP back, the client after the response.
// -v logs median, p90 and mean of every segment.
//
// BREAKDOWN_WS names a copy of the bench's workspace (expr-lang/expr, see
// internal/test/bench) to hover Compile in expr.go there instead, with
// BREAKDOWN_GOMODCACHE its module cache (.cache/bench/gomod).
func BenchmarkHoverBreakdown(b *testing.B) { breakdown(b, "hover") }

// BenchmarkDiagnosticsBreakdown is BenchmarkHoverBreakdown for
// diagnostics after an edit: each call follows a new type error written
// into the file, and direct is the same edit followed by
// lsp.Manager.Diagnostics (fresh for the new content); the order of the
// two alternates, since gopls may still be busy with the previous edit.
func BenchmarkDiagnosticsBreakdown(b *testing.B) { breakdown(b, "diagnostics") }

// BenchmarkReferencesBreakdown is BenchmarkHoverBreakdown for references
// (on the bench's workspace, of a function used in three files).
func BenchmarkReferencesBreakdown(b *testing.B) { breakdown(b, "references") }

// BenchmarkSymbolsBreakdown is BenchmarkHoverBreakdown for workspace
// symbols (on the bench's workspace, its query), direct being the same
// workspace/symbol straight to the Manager: a large answer (44 symbols in
// 13 files there) shows what the layers above the Manager do per result.
func BenchmarkSymbolsBreakdown(b *testing.B) { breakdown(b, "symbols") }

func breakdown(b *testing.B, action string) {
	peers.Require(b, "gopls")
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	env := peers.Env()
	file, line, symbol, pos := "main.go", 5, "add", position.Position{Line: 4, Character: 5}
	// references: of a declaration used in other files on the bench's
	// workspace.
	refFile, refLine, refSymbol, refPos := "main.go", 5, "add", position.Position{Line: 4, Character: 5}
	if ws := os.Getenv("BREAKDOWN_WS"); ws != "" { // e.g. a copy of the bench's expr workspace
		root, main = ws, filepath.Join(ws, "expr.go")
		file, line, symbol, pos = "expr.go", 208, "Compile", position.Position{Line: 207, Character: 5}
		refFile, refLine, refSymbol, refPos = "checker/checker.go", 52, "ParseCheck", position.Position{Line: 51, Character: 5}
		env = append(env, "GOMODCACHE="+os.Getenv("BREAKDOWN_GOMODCACHE"), "GOFLAGS=-mod=mod -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local")
	}
	mk := &marks{at: map[string]time.Time{}}

	a, err := adapter.New(adapter.Config{LSP: lsp.Options{Env: env}})
	if err != nil {
		b.Fatal(err)
	}
	st, err := NewStage(Config{Executable: "/bin/acp-lsp", DiagnosticsWait: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	st.c.backend = markingBackend{st.c.backend, mk}
	b.Cleanup(func() { a.Close() }) // registered first: runs after the chain is closed
	chain := stacktest.Run(b, stacktest.Config{Stages: []proxy.Stage{a, spy{mk}, st}})
	ctx := b.Context()
	// session/new through the chain, as open does, with a marking client.
	chain.Initialize(b, `{}`, `{"mcpCapabilities":{"http":true}}`)
	m, entries := chain.NewSession(b, root)
	if len(entries) != 1 {
		b.Fatalf("session/new reached the agent as %s", m.Raw)
	}
	e := entries[0]
	s := st.c.SessionByACP("S1")
	s.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			mk.mark("tool in")
			r, err := next(ctx, method, req)
			mk.mark("tool out")
			return r, err
		}
	})
	hc := &http.Client{Transport: &markingTransport{e.Headers[0].Name, e.Headers[0].Value, mk}}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: hc}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "hover", "file": file, "line": line, "symbol": symbol}}
	if res, err := cs.CallTool(ctx, args); err != nil || res.IsError { // warm up gopls
		b.Fatal(err, res)
	}
	orig, err := os.ReadFile(main)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(main, orig, 0o644)
	edits := 0
	edit := func() { // a new type error at the end of the file
		edits++
		os.WriteFile(main, fmt.Appendf(slices.Clip(orig), "\nvar benchEdit%d int = \"e%d\"\n", edits, edits), 0o644)
	}
	direct := func() error {
		_, err := managerHover(ctx, a.Manager(), main, pos)
		return err
	}
	if action == "references" {
		args = &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "references", "file": refFile, "line": refLine, "symbol": refSymbol}}
		direct = func() error {
			_, err := managerRequest(ctx, a.Manager(), filepath.Join(root, refFile), "textDocument/references", refPos, `,"context":{"includeDeclaration":true}`)
			return err
		}
		if res, err := cs.CallTool(ctx, args); err != nil || res.IsError { // warm up
			b.Fatal(err, res)
		}
	}
	if action == "symbols" {
		args = &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "symbols", "query": refSymbol}}
		direct = func() error {
			_, err := a.Manager().Request(ctx, filepath.Join(root, refFile), "workspace/symbol", json.RawMessage(`{"query":"`+refSymbol+`"}`))
			return err
		}
		if res, err := cs.CallTool(ctx, args); err != nil || res.IsError { // warm up
			b.Fatal(err, res)
		}
	}
	if action == "diagnostics" {
		args = &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "diagnostics", "file": file}}
		direct = func() error {
			edit()
			rep, err := a.Manager().Diagnostics(ctx, []string{main}, lsp.DiagnosticsOptions{Timeout: time.Minute})
			if err == nil && (rep.Files[0].Verdict != lsp.Fresh || !strings.Contains(string(rep.Files[0].Diagnostics), fmt.Sprintf("e%d", edits))) {
				err = fmt.Errorf("not fresh: %+v", rep.Files[0])
			}
			return err
		}
	}
	if action == "layers" {
		layers(b, a, st, s, main, pos, symbol, cs, args)
		return
	}
	// Both paths in one run, so both see the same machine: the SDK's
	// handler (fast path off), then the HTTP fast path.
	for _, path := range []string{"sdk", "fast"} {
		b.Run(path, func(b *testing.B) {
			st.c.noFast.Store(path == "sdk")
			defer st.c.noFast.Store(false)
			// "tool in" and "tool out" are the SDK's tool handler: a call the
			// HTTP fast path answers passes neither, and its segments span them.
			order := []string{"call", "http out", "wrote", "tool in", "backend in", "request at adapter", "adapter replied", "backend out", "tool out", "http back", "return"}
			type segment struct{ from, to string }
			var segs []segment
			samples := map[segment][]time.Duration{}
			var directD []time.Duration
			timeDirect := func() {
				t0 := time.Now()
				if err := direct(); err != nil {
					b.Fatal(err)
				}
				directD = append(directD, time.Since(t0))
			}
			for i := 0; b.Loop(); i++ {
				if action == "diagnostics" {
					if i%2 == 1 {
						timeDirect()
					}
					edit()
				}
				mk.reset()
				mk.mark("call")
				res, err := cs.CallTool(ctx, args)
				mk.mark("return")
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				if action == "diagnostics" && !strings.Contains(res.Content[0].(*mcp.TextContent).Text, fmt.Sprintf("e%d", edits)) {
					b.Fatalf("stale answer: %s", res.Content[0].(*mcp.TextContent).Text)
				}
				mk.mu.Lock()
				prev := "call"
				for _, name := range order[1:] {
					t1, ok := mk.at[name]
					if !ok {
						continue
					}
					sg := segment{prev, name}
					if _, seen := samples[sg]; !seen {
						segs = append(segs, sg)
					}
					samples[sg] = append(samples[sg], t1.Sub(mk.at[prev]))
					prev = name
				}
				mk.mu.Unlock()
				if action != "diagnostics" || i%2 == 0 {
					timeDirect()
				}
			}
			stat := func(d []time.Duration) (med, p90, mean time.Duration) {
				slices.Sort(d)
				var sum time.Duration
				for _, x := range d {
					sum += x
				}
				return d[len(d)/2], d[len(d)*9/10], sum / time.Duration(len(d))
			}
			for i, sg := range segs {
				med, p90, mean := stat(samples[sg])
				b.ReportMetric(float64(med.Nanoseconds()), strings.ReplaceAll(fmt.Sprintf("%d:%s→%s-ns", i+1, sg.from, sg.to), " ", "_"))
				b.Logf("%-40s median %8s p90 %8s mean %8s (%d calls)", sg.from+" → "+sg.to, med, p90, mean, len(samples[sg]))
			}
			med, p90, mean := stat(directD)
			b.ReportMetric(float64(med.Nanoseconds()), "direct-ns")
			b.Logf("%-40s median %8s p90 %8s mean %8s", "direct (lsp.Manager)", med, p90, mean)
		})
	}
}

// BenchmarkHoverLayers asks the same warm hover through each layer of the
// tool's path in turn, one call each per iteration, all on the same gopls
// (so every mode finds it in the same state: a gopls asked more often
// than another answers faster, its threads still awake):
//
//   - manager: lsp.Manager, as the adapter asks (within a few per cent of
//     the bench's bare client, BenchmarkManagerVsBare);
//   - rawrelay-manager: a relay calling the Manager that reads and writes
//     HTTP/1.1 itself on one loopback connection, posted to by a client
//     that does the same: the least a tool over HTTP can add;
//   - relay-manager: the same relay on net/http (server and client);
//   - relay-backend: that relay calling the component's Backend, the hop
//     through the chain to the adapter;
//   - tool-raw: the tool over HTTP (the fast path) with a plain net/http
//     client;
//   - tool-gosdk: the tool with the MCP go-sdk client.
//
// Reported: medians (-us) and ratios to the Manager (-x). BREAKDOWN_WS
// and BREAKDOWN_GOMODCACHE pick the bench's workspace as in
// BenchmarkHoverBreakdown.
//
//	BREAKDOWN_WS=... BREAKDOWN_GOMODCACHE=... go test -run X -bench HoverLayers -benchtime 500x ./component
func BenchmarkHoverLayers(b *testing.B) { breakdown(b, "layers") }

func layers(b *testing.B, a *adapter.Adapter, st *Stage, s *Session, main string, pos position.Position, symbol string, cs *mcp.ClientSession, args *mcp.CallToolParams) {
	ctx := context.Background()
	uri := edit.URIFromPath(main)
	hoverParams, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": pos.Line, "character": pos.Character}})
	// The relays write gopls's answer back, as a tool writes one.
	relay := func(f func(context.Context) (json.RawMessage, error)) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			res, err := f(r.Context())
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(res)
		}))
	}
	manager := func(ctx context.Context) (json.RawMessage, error) { return managerHover(ctx, a.Manager(), main, pos) }
	backend := func(ctx context.Context) (json.RawMessage, error) {
		res, err := st.c.backend.Request(ctx, uri, "textDocument/hover", hoverParams)
		return res.Result, err
	}
	srvM, srvB := relay(manager), relay(backend)
	defer srvM.Close()
	defer srvB.Close()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	post := func(url string) func() error {
		return func() error {
			resp, err := hc.Post(url, "application/json", strings.NewReader("{}"))
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return nil
		}
	}
	rc := dialRaw(b, st.c, s)
	argJSON, _ := json.Marshal(args.Arguments)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":` + string(argJSON) + `}}`
	// The least HTTP: a relay that reads and writes HTTP/1.1 itself on one
	// loopback connection, posted to by a client that does the same.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for {
			if _, err := readHTTP(br); err != nil {
				return
			}
			res, err := manager(ctx)
			if err != nil {
				return
			}
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(res), res)
		}
	}()
	rawConn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer rawConn.Close()
	rawBr := bufio.NewReader(rawConn)
	names := []string{"manager", "rawrelay-manager", "relay-manager", "relay-backend", "tool-raw", "tool-gosdk"}
	calls := []func() error{
		func() error { _, err := manager(ctx); return err },
		func() error {
			if _, err := io.WriteString(rawConn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
				return err
			}
			_, err := readHTTP(rawBr)
			return err
		},
		post(srvM.URL),
		post(srvB.URL),
		func() error {
			if r := rc.post(b, body, nil); r.status != http.StatusOK || !strings.Contains(string(r.body), symbol) {
				return fmt.Errorf("tool: %d %s", r.status, r.body)
			}
			return nil
		},
		func() error {
			res, err := cs.CallTool(ctx, args)
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error")
			}
			return err
		},
	}
	ds := make([][]time.Duration, len(calls))
	for b.Loop() {
		for i, call := range calls {
			t0 := time.Now()
			if err := call(); err != nil {
				b.Fatalf("%s: %v", names[i], err)
			}
			ds[i] = append(ds[i], time.Since(t0))
		}
	}
	b.StopTimer()
	var first time.Duration
	for i, d := range ds {
		slices.Sort(d)
		med := d[len(d)/2]
		if i == 0 {
			first = med
		}
		b.ReportMetric(float64(med.Microseconds()), names[i]+"-us")
		if i > 0 {
			b.ReportMetric(float64(med)/float64(first), names[i]+"-x")
		}
	}
}

// readHTTP reads one HTTP/1.1 message with a Content-Length body.
func readHTTP(br *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, errors.New("no Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}
