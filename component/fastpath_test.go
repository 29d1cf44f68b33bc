package component

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// rawMCP is the smallest streamable-HTTP MCP client: one POST per message,
// the bearer token, the session id and protocol version headers the SDK's
// client sends. Tests use it to send exactly the bytes they mean.
type rawMCP struct {
	url, token, session, version string
	hc                           *http.Client
}

type rawReply struct {
	status int
	header http.Header
	body   []byte
}

// post sends body with the client's headers, changed by edit when not nil.
func (c *rawMCP) post(t testing.TB, body string, edit func(h http.Header)) rawReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		h.Set("Mcp-Protocol-Version", c.version)
	}
	if edit != nil {
		edit(h)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawReply{resp.StatusCode, resp.Header, b}
}

// dialRaw initializes an MCP session over HTTP for s.
func dialRaw(t testing.TB, c *Tool, s *Session) *rawMCP {
	t.Helper()
	rc := &rawMCP{url: "http://" + c.HTTPAddr() + "/mcp", token: s.token, hc: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}
	t.Cleanup(rc.hc.CloseIdleConnections)
	r := rc.post(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	if r.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	rc.session = r.header.Get("Mcp-Session-Id")
	rc.version = "2025-06-18"
	if r := rc.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return rc
}

// startRaw starts a Component answering through backend over a workspace
// holding main.go, opens a session and an initialized raw MCP connection
// to it; the Component closes when the test ends.
func startRaw(t *testing.T, backend Backend) (*Tool, *rawMCP) {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644)
	c, s := startSession(t, Config{}, backend, root)
	return c, dialRaw(t, c, s)
}

// TestFastPathEquivalent sends every request twice, once with the fast
// path off (the SDK answers) and once with it on, and requires the same
// status, the same headers the SDK sets and the same body bytes; and that
// the fast path answered exactly the requests it is meant for. It does so
// for answers of text alone (the default) and with structuredContent.
func TestFastPathEquivalent(t *testing.T) {
	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprintf("structured_content=%v", structured), func(t *testing.T) {
			fastPathEquivalent(t, Config{StructuredContent: structured})
		})
	}
}

func fastPathEquivalent(t *testing.T, cfg Config) {
	c, s, fb, _ := setup(t, cfg)
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int // <b> & \"q\" \u00e9"}}`)
	fb.set("textDocument/definition", `[{"uri":"file://`+filepath.Join(s.Root, "main.go")+`","range":{"start":{"line":3,"character":5},"end":{"line":3,"character":8}}}]`)
	other, err := c.NewSession(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	rc := dialRaw(t, c, s)
	rcOther := dialRaw(t, c, other)
	call := func(id, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"lsp","arguments":` + args + `}}`
	}
	hover := `{"action":"hover","file":"main.go","line":5,"symbol":"add"}`
	for _, tc := range []struct {
		name string
		body string
		edit func(h http.Header)
		fast bool // the fast path answers it
	}{
		{"hover", call("1", hover), nil, true},
		{"definition", call("2", `{"action":"definition","file":"main.go","line":8,"symbol":"add"}`), nil, true},
		{"string id", call(`"a<b>"`, hover), nil, true},
		{"id zero", call("0", hover), nil, true},
		{"fractional id", call("4.7", hover), nil, true},
		{"progress token", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lsp","arguments":` + hover + `,"_meta":{"progressToken":"p1"}}}`, nil, true},
		{"whitespace", " {\n\"jsonrpc\" : \"2.0\", \"id\":6, \"method\":\"tools/call\", \"params\":{\"arguments\":" + hover + ",\"name\":\"lsp\"}}\n", nil, true},
		{"no protocol version header", call("7", hover), func(h http.Header) { h.Del("Mcp-Protocol-Version") }, true},
		{"protocol 2025-11-25", call("8", hover), func(h http.Header) { h.Set("Mcp-Protocol-Version", "2025-11-25") }, true},
		{"tool error", call("9", `{"action":""}`), nil, true},
		{"unknown action", call("10", `{"action":"fly"}`), nil, true},
		{"unknown argument", call("11", `{"action":"hover","colour":"red"}`), nil, true},
		{"argument of the wrong type", call("12", `{"action":"hover","file":"main.go","line":"three","symbol":"add"}`), nil, true},
		{"number as a string", call("13", `{"action":"hover","file":"main.go","line":"5","symbol":"add"}`), nil, true},
		{"arguments not an object", call("14", `"hover"`), nil, true},
		{"arguments null", call("15", `null`), nil, true},
		{"no arguments", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"lsp"}}`, nil, true},
		{"outside the workspace", call("17", `{"action":"hover","file":"../x.go","line":1,"column":1}`), nil, true},
		{"unknown tool", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, nil, false},
		{"tools/list", `{"jsonrpc":"2.0","id":21,"method":"tools/list"}`, nil, false},
		{"batch", `[` + call("22", hover) + `]`, nil, false},
		{"malformed", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"lsp"`, nil, false},
		{"wrong version tag", `{"jsonrpc":"1.0","id":24,"method":"tools/call","params":{"name":"lsp","arguments":{}}}`, nil, false},
		{"params upper-case key", `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"Name":"lsp","arguments":{}}}`, nil, false},
		{"duplicate key", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"nope","name":"lsp","arguments":{}}}`, nil, false},
		{"trailing data", call("27", hover) + `{}`, nil, false},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"lsp","arguments":{}}}`, nil, false},
		{"unsupported protocol version", call("28", hover), func(h http.Header) { h.Set("Mcp-Protocol-Version", "1999-01-01") }, false},
		{"wrong session id", call("29", hover), func(h http.Header) { h.Set("Mcp-Session-Id", "nope") }, false},
		{"no session id", call("30", hover), func(h http.Header) { h.Del("Mcp-Session-Id") }, false},
		{"another session's MCP session id", call("31", hover), func(h http.Header) { h.Set("Mcp-Session-Id", rcOther.session) }, false},
		{"missing token", call("32", hover), func(h http.Header) { h.Del("Authorization") }, false},
		{"wrong token", call("33", hover), func(h http.Header) { h.Set("Authorization", "Bearer nope") }, false},
		{"text/plain", call("34", hover), func(h http.Header) { h.Set("Content-Type", "text/plain") }, false},
		{"accepts only JSON", call("35", hover), func(h http.Header) { h.Set("Accept", "application/json") }, false},
		{"foreign Host", call("36", hover), func(h http.Header) { h.Set("Host", "evil.example:80") }, false},
		// The SDK's decoder reads at most 1000 levels (the body's object,
		// params and arguments are three of them); encoding/json 10000.
		{"nesting as deep as the SDK reads", call("37", `{"action":"hover","params":`+strings.Repeat("[", 997)+strings.Repeat("]", 997)+`}`), nil, true},
		{"nesting deeper than the SDK reads", call("38", `{"action":"hover","params":`+strings.Repeat("[", 998)+strings.Repeat("]", 998)+`}`), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit := tc.edit
			if tc.name == "foreign Host" {
				edit = nil // Host is not a header net/http sends from the map
			}
			send := func(noFast bool) (rawReply, int64) {
				c.noFast.Store(noFast)
				before := c.fastHits.Load()
				var r rawReply
				if tc.name == "foreign Host" {
					r = postHost(t, rc, tc.body, "evil.example")
				} else {
					r = rc.post(t, tc.body, edit)
				}
				return r, c.fastHits.Load() - before
			}
			sdk, sdkHits := send(true)
			fast, fastHits := send(false)
			c.noFast.Store(false)
			if sdkHits != 0 {
				t.Fatalf("fast path answered with the fast path off")
			}
			if want := map[bool]int64{true: 1, false: 0}[tc.fast]; fastHits != want {
				t.Fatalf("fast path answered %d times, want %d (status %d, %s)", fastHits, want, fast.status, fast.body)
			}
			if sdk.status != fast.status {
				t.Fatalf("status: SDK %d, fast path %d\nSDK:  %s\nfast: %s", sdk.status, fast.status, sdk.body, fast.body)
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "Mcp-Session-Id", "WWW-Authenticate"} {
				if sdk.header.Get(h) != fast.header.Get(h) {
					t.Errorf("%s: SDK %q, fast path %q", h, sdk.header.Get(h), fast.header.Get(h))
				}
			}
			if !bytes.Equal(sdk.body, fast.body) {
				t.Fatalf("body differs\nSDK:  %s\nfast: %s", sdk.body, fast.body)
			}
			if tc.fast {
				var resp struct{ Result mcp.CallToolResult }
				if sdk.status != http.StatusOK || json.Unmarshal(sdk.body, &resp) != nil {
					t.Fatalf("not a JSON-RPC answer: %d %s", sdk.status, sdk.body)
				}
				if strings.Contains(tc.body, hover) && resp.Result.IsError {
					t.Fatalf("hover failed: %s", sdk.body)
				}
			}
		})
	}
}

// postHost posts body with a Host other than the listener's address.
func postHost(t testing.TB, rc *rawMCP, body, host string) rawReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rc.url, strings.NewReader(body))
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+rc.token)
	req.Header.Set("Mcp-Session-Id", rc.session)
	req.Header.Set("Mcp-Protocol-Version", rc.version)
	resp, err := rc.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawReply{resp.StatusCode, resp.Header, b}
}

// blockingBackend blocks hover until the call's ctx ends.
type blockingBackend struct {
	*fakeBackend
	entered chan struct{}
}

func (b *blockingBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	if method != "textDocument/hover" {
		return b.fakeBackend.Request(ctx, uri, method, params)
	}
	b.entered <- struct{}{}
	<-ctx.Done()
	return lspext.RequestResult{}, ctx.Err()
}

func (b *blockingBackend) Status(ctx context.Context) ([]lspext.ServerInfo, error) { return nil, nil }

// TestFastPathCancel: notifications/cancelled for a call the fast path is
// answering cancels it, as the SDK cancels its own, and still reaches the
// SDK (202).
func TestFastPathCancel(t *testing.T) {
	bb := &blockingBackend{fakeBackend: newFake(), entered: make(chan struct{}, 1)}
	_, rc := startRaw(t, bb)
	for _, id := range []string{`7`, `"seven"`} {
		done := make(chan rawReply, 1)
		go func() {
			done <- rc.post(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`, nil)
		}()
		select {
		case <-bb.entered:
		case <-time.After(time.Minute):
			t.Fatal("the call never reached the backend")
		}
		if r := rc.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"user"}}`, nil); r.status != http.StatusAccepted {
			t.Fatalf("cancel: %d %s", r.status, r.body)
		}
		var r rawReply
		select {
		case r = <-done:
		case <-time.After(time.Minute):
			t.Fatal("the cancelled call never answered")
		}
		var resp struct {
			ID     json.RawMessage
			Result mcp.CallToolResult
		}
		if err := json.Unmarshal(r.body, &resp); err != nil || string(resp.ID) != id || !resp.Result.IsError {
			t.Fatalf("cancelled call answered %d %s", r.status, r.body)
		}
		if text := resp.Result.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "canceled") {
			t.Fatalf("cancelled call says %q", text)
		}
	}
}

// TestFastPathSessionEnds: a call on the fast path is cancelled when its
// MCP session is closed (DELETE, then CloseSession) or the component
// closes, as the SDK cancels its own; it is answered all the same.
func TestFastPathSessionEnds(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644)
	bb := &blockingBackend{fakeBackend: newFake(), entered: make(chan struct{}, 1)}
	c, err := New(Config{Executable: "/bin/acp-lsp"}, bb)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hover := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`
	for _, end := range []string{"DELETE", "CloseSession", "Close"} {
		t.Run(end, func(t *testing.T) {
			s, err := c.NewSession(root)
			if err != nil {
				t.Fatal(err)
			}
			rc := dialRaw(t, c, s)
			done := make(chan rawReply, 1)
			go func() { done <- rc.post(t, hover, nil) }()
			select {
			case <-bb.entered:
			case <-time.After(time.Minute):
				t.Fatal("the call never reached the backend")
			}
			switch end {
			case "DELETE":
				req, _ := http.NewRequest(http.MethodDelete, rc.url, nil)
				req.Header.Set("Authorization", "Bearer "+rc.token)
				req.Header.Set("Mcp-Session-Id", rc.session)
				resp, err := rc.hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			case "CloseSession":
				c.CloseSession(s)
			case "Close":
				c.Close()
			}
			select {
			case r := <-done:
				if !bytes.Contains(r.body, []byte("canceled")) {
					t.Fatalf("the call answered %d %s", r.status, r.body)
				}
			case <-time.After(time.Minute):
				t.Fatal("the call was not cancelled")
			}
		})
	}
}

// TestFastPathConcurrent: calls of several MCP sessions at once, each
// answered with its own id (run with -race).
func TestFastPathConcurrent(t *testing.T) {
	c, s, fb, _ := setup(t, Config{})
	fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
	var wg sync.WaitGroup
	for i := range 4 {
		rc := dialRaw(t, c, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				id := fmt.Sprint(i*100 + j)
				r := rc.post(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`, nil)
				var resp struct {
					ID     json.RawMessage
					Result mcp.CallToolResult
				}
				if err := json.Unmarshal(r.body, &resp); err != nil || string(resp.ID) != id || resp.Result.IsError {
					t.Errorf("call %s answered %d %s", id, r.status, r.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	if c.fastHits.Load() != 40 {
		t.Fatalf("fast path answered %d of 40 calls", c.fastHits.Load())
	}
}

// FuzzParseFast: whatever a POST body holds, parseFast never panics, and a
// body it takes is valid JSON that encoding/json reads the same way: the
// version, the method (tools/call only), the id as the SDK keeps it, the
// tool's name and the arguments.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"lsp","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"arguments":null,"name":"lsp"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"r"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","name":"x"}}`,
		`{"json\u0072pc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp"}} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok := parseFast(body)
		if !ok {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("took invalid JSON %q", body)
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      any             `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Method != req.method {
			t.Fatalf("took %q as %+v; encoding/json: %+v %v", body, req, m, err)
		}
		switch req.method {
		case "tools/call":
			if id, _ := rpcID(mustJSON(m.ID)); id != req.id {
				t.Fatalf("id %v, encoding/json reads %v", req.id, m.ID)
			}
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || p.Name != "lsp" || !bytes.Equal(p.Arguments, req.args) {
				t.Fatalf("params %s read as %q %s", m.Params, p.Name, req.args)
			}
		default:
			t.Fatalf("took method %q", req.method)
		}
	})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// TestEncodeResponseMatchesSDK: the fast path's one-pass encoding of a
// tool's answer is byte for byte what the SDK's JSON-RPC layer writes
// (marshalNoEscape of the CallToolResult inside the response), for every
// shape and awkward text, and shapes it does not know take the SDK's way.
func TestEncodeResponseMatchesSDK(t *testing.T) {
	listing, _ := json.Marshal(map[string]any{"title": "a <b> & \"c\"", "items": []int{1, 2}, "note": "\u2028"})
	for _, tc := range []struct {
		name string
		id   any
		res  *mcp.CallToolResult
	}{
		{"text and structure", int64(3), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x.go:1:2 <T> & \"q\" é\n"}}, StructuredContent: json.RawMessage(listing)}},
		{"id zero", int64(0), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}}},
		{"string id", "a<b>", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}}},
		{"error", int64(-1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "file is required"}}, IsError: true}},
		{"control, invalid UTF-8, separators", int64(1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "\x00\x1f\xff\u2028\u2029\t"}}}},
		{"empty text", int64(1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ""}}}},
		{"structure with spaces (not json.Marshal's)", int64(1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}, StructuredContent: json.RawMessage(`{ "a" : [1, 2] , "b":"x y" }`)}},
		{"structure as a value", int64(1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}, StructuredContent: map[string]int{"a": 1}}},
		{"two contents", int64(1), &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}},
		{"meta", int64(1), &mcp.CallToolResult{Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: "a"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result, err := marshalNoEscape(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			want, err := marshalNoEscape(struct {
				VersionTag string          `json:"jsonrpc"`
				ID         any             `json:"id,omitempty"`
				Result     json.RawMessage `json:"result,omitempty"`
			}{"2.0", tc.id, result})
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeResponse(tc.id, tc.res)
			if err != nil || string(got) != string(want) {
				t.Errorf("got  %s, %v\nwant %s", got, err, want)
			}
		})
	}
}

// BenchmarkEncodeResponse compares the fast path's encoding of a tool
// answer with encoding/json's nested one (the SDK's), for a small answer
// and a workspace-symbols-sized one.
func BenchmarkEncodeResponse(b *testing.B) {
	for _, n := range []int{3, 60} {
		items := make([]item, n)
		for i := range items {
			items[i] = item{File: "checker/checker.go", Line: 52 + i, Column: 6, Label: "function ParseCheck", Context: "func ParseCheck(tree *parser.Tree, config *conf.Config) (reflect.Type, error) {"}
		}
		data, _ := json.Marshal(&listing{Title: "symbols", Items: items, Total: n})
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("checker/checker.go:52:6 function ParseCheck\n", n)}}, StructuredContent: json.RawMessage(data)}
		b.Run(fmt.Sprintf("%d items/one pass", n), func(b *testing.B) {
			for b.Loop() {
				encodeResponse(int64(7), res)
			}
		})
		b.Run(fmt.Sprintf("%d items/encoding-json", n), func(b *testing.B) {
			for b.Loop() {
				r, _ := marshalNoEscape(res)
				marshalNoEscape(struct {
					VersionTag string          `json:"jsonrpc"`
					ID         any             `json:"id,omitempty"`
					Result     json.RawMessage `json:"result,omitempty"`
				}{"2.0", int64(7), r})
			}
		})
	}
}

// BenchmarkParseFast is the fast path's reading of a tools/call body, a
// hover's and one whose arguments are long (an edit's new text).
func BenchmarkParseFast(b *testing.B) {
	for name, args := range map[string]string{
		"hover":     `{"action":"hover","file":"main.go","line":5,"symbol":"add"}`,
		"edit-8KiB": `{"action":"rename","file":"main.go","line":5,"symbol":"add","new_name":"` + strings.Repeat(`sum \"x\" `, 900) + `"}`,
	} {
		body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lsp","arguments":` + args + `,"_meta":{"progressToken":"p1"}}}`)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := parseFast(body); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
