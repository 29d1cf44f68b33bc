package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestRFDOfferedDown: the initialize that reaches the agent offers ACP's
// LSP proposal, `lsp: {}`, under the key of its protocol version; every
// other value is the editor's (the adapter's own `_meta.lsp` aside).
func TestRFDOfferedDown(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		key          string
	}{
		{"v1", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true},"clientInfo":{"name":"ed"}}`, "clientCapabilities"},
		{"v1 editor says null", `{"protocolVersion":1,"clientCapabilities":{"lsp":null,"fs":{}}}`, "clientCapabilities"},
		{"v1 editor offers it", `{"protocolVersion":1,"clientCapabilities":{"lsp":{"x":1}}}`, "clientCapabilities"},
		{"v1 without capabilities", `{"protocolVersion":1}`, "clientCapabilities"},
		{"v2", `{"protocolVersion":2,"capabilities":{"fs":{"readTextFile":true}},"clientInfo":{"name":"ed"}}`, "capabilities"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, Config{NoLocal: true}, false)
			tc.Editor.Sendf(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":%s}`, tt.params)
			got := tc.Agent.Next(t)
			if lsp, ok := proxy.GetPath(got.Params, tt.key, "lsp"); !ok || string(lsp) != "{}" {
				t.Fatalf("%s.lsp = %s in %s", tt.key, lsp, got.Raw)
			}
			want := withoutChainKeys(t, json.RawMessage(tt.params))
			if have := withoutChainKeys(t, got.Params); !jsonEqual(have, want) {
				t.Errorf("params changed beyond lsp and _meta.lsp:\n%s\nwant\n%s", have, want)
			}
		})
	}
}

// withoutChainKeys drops what the chain sets in initialize params (lsp at
// both keys, clientCapabilities._meta.lsp) and the objects left empty.
func withoutChainKeys(t *testing.T, params json.RawMessage) any {
	t.Helper()
	var v map[string]any
	must(t, json.Unmarshal(params, &v))
	for _, key := range []string{"clientCapabilities", "capabilities"} {
		caps, _ := v[key].(map[string]any)
		if caps == nil {
			continue
		}
		delete(caps, "lsp")
		if meta, _ := caps["_meta"].(map[string]any); meta != nil {
			delete(meta, "lsp")
			if len(meta) == 0 {
				delete(caps, "_meta")
			}
		}
		if len(caps) == 0 {
			delete(v, key)
		}
	}
	return v
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// rfdCall sends the agent's RFD request and returns its result or its
// JSON-RPC error.
func (tc *testChain) rfdCall(t *testing.T, method string, params any) (json.RawMessage, *proxy.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := tc.Agent.Call(ctx, method, params)
	var pe *proxy.Error
	if errors.As(err, &pe) {
		return nil, pe
	}
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res, nil
}

// TestRFDAgentRefusals: what ACP's LSP proposal says a client must refuse,
// and the errors it defines, reach the agent as -32602 with the reason and
// the list that goes with it; a server's own error keeps its code, and its
// code, message and data travel in the error's data. The server's id
// stays across its restart.
func TestRFDAgentRefusals(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
		"textDocument/definition": {Error: -32001, ErrorMessage: "no definitions today"},
	}})
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
	tc.initialize(t, "", "")
	tc.NewSession(t, root)
	raw, perr := tc.rfdCall(t, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"})
	if perr != nil {
		t.Fatal(perr)
	}
	var list lspext.RFDServersResult
	must(t, json.Unmarshal(raw, &list))
	id := "fake@" + root
	if len(list.Servers) != 1 || list.Servers[0].ServerID != id || !list.Servers[0].Running() {
		t.Fatalf("servers %s", raw)
	}
	uri := edit.URIFromPath(file)
	pos := json.RawMessage(`{"textDocument":{"uri":"` + uri + `"},"position":{"line":0,"character":6}}`)
	outside := json.RawMessage(`{"textDocument":{"uri":"file:///etc/hosts"},"position":{"line":0,"character":0}}`)
	rq := func(session, server, method string, params json.RawMessage) lspext.RFDRequestParams {
		return lspext.RFDRequestParams{SessionID: session, ServerID: server, Method: method, Params: params}
	}
	for _, tt := range []struct {
		name       string
		params     lspext.RFDRequestParams
		wantCode   int
		wantReason string
		// check looks at the error's data.
		check func(t *testing.T, d lspext.RFDErrorData)
	}{
		{name: "didOpen", params: rq("S1", id, "textDocument/didOpen", json.RawMessage(`{"textDocument":{"uri":"`+uri+`","languageId":"fake","version":1,"text":""}}`)),
			wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "initialize", params: rq("S1", id, "initialize", json.RawMessage(`{}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "shutdown", params: rq("S1", id, "shutdown", nil), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "a notification", params: rq("S1", id, "$/progress", json.RawMessage(`{}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "didChangeWatchedFiles", params: rq("S1", id, "workspace/didChangeWatchedFiles", json.RawMessage(`{"changes":[]}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "willRenameFiles", params: rq("S1", id, "workspace/willRenameFiles", json.RawMessage(`{"files":[]}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "willCreateFiles", params: rq("S1", id, "workspace/willCreateFiles", json.RawMessage(`{"files":[]}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "willDeleteFiles", params: rq("S1", id, "workspace/willDeleteFiles", json.RawMessage(`{"files":[]}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "foldingRange", params: rq("S1", id, "textDocument/foldingRange", pos), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "selectionRange", params: rq("S1", id, "textDocument/selectionRange", pos), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "linkedEditingRange", params: rq("S1", id, "textDocument/linkedEditingRange", pos), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "onTypeFormatting", params: rq("S1", id, "textDocument/onTypeFormatting", pos), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "applyEdit", params: rq("S1", id, "workspace/applyEdit", json.RawMessage(`{}`)), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "not an LSP method", params: rq("S1", id, "textDocument/guess", pos), wantCode: -32602, wantReason: lspext.RFDMethodNotForwarded},
		{name: "unknown server", params: rq("S1", "fake@/elsewhere", "textDocument/hover", pos), wantCode: -32602, wantReason: lspext.RFDUnknownServer,
			check: func(t *testing.T, d lspext.RFDErrorData) {
				if len(d.Servers) != 1 || d.Servers[0].ServerID != id {
					t.Errorf("servers in the error: %+v", d.Servers)
				}
			}},
		{name: "server's own error", params: rq("S1", id, "textDocument/definition", pos), wantCode: -32001,
			check: func(t *testing.T, d lspext.RFDErrorData) {
				if d.Code == nil || *d.Code != -32001 || d.Message != "no definitions today" {
					t.Errorf("data %+v", d)
				}
			}},
		{name: "unknown session", params: rq("S9", id, "textDocument/hover", pos), wantCode: -32602},
		{name: "file outside the session", params: rq("S1", id, "textDocument/hover", outside), wantCode: -32602},
		{name: "no method", params: rq("S1", id, "", pos), wantCode: -32602},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, perr := tc.rfdCall(t, lspext.RFDRequest, tt.params)
			if perr == nil || perr.Code != tt.wantCode {
				t.Fatalf("error %v, want code %d", perr, tt.wantCode)
			}
			d, _ := lspext.ParseRFDErrorData(perr.Data)
			if d.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q (%s)", d.Reason, tt.wantReason, perr.Data)
			}
			if tt.wantReason == lspext.RFDMethodNotForwarded && !slices.Equal(d.AvailableMethods, list.AvailableMethods) {
				t.Errorf("availableMethods in the error %v, want %v", d.AvailableMethods, list.AvailableMethods)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
	// And what is forwarded is answered.
	raw, perr = tc.rfdCall(t, lspext.RFDRequest, rq("S1", id, "textDocument/hover", pos))
	if perr != nil || !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
		t.Fatalf("hover: %s %v", raw, perr)
	}
	// The id outlives a restart of the server: a new process, the same id,
	// and the agent's request under it answered.
	pid := tc.adapter.Manager().Servers()[0].PID
	must(t, tc.adapter.Manager().Restart(context.Background(), "fake", ""))
	raw, perr = tc.rfdCall(t, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"})
	if perr != nil {
		t.Fatal(perr)
	}
	must(t, json.Unmarshal(raw, &list))
	if st := tc.adapter.Manager().Servers(); len(list.Servers) != 1 || list.Servers[0].ServerID != id || !list.Servers[0].Running() || st[0].PID == pid {
		t.Fatalf("after a restart: %s (pid %d, was %d)", raw, st[0].PID, pid)
	}
	raw, perr = tc.rfdCall(t, lspext.RFDRequest, rq("S1", id, "textDocument/hover", pos))
	if perr != nil || !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
		t.Fatalf("hover after a restart: %s %v", raw, perr)
	}
}

// TestRFDAvailableMethodsForwardable: no method the chain lists as
// forwarded is one the proposal forbids.
func TestRFDAvailableMethodsForwardable(t *testing.T) {
	for _, m := range rfdAvailableMethods {
		if lspext.RFDNeverForwarded(m) {
			t.Errorf("%s listed, but never forwarded", m)
		}
	}
	if !slices.IsSorted(rfdAvailableMethods) {
		t.Error("rfdAvailableMethods not sorted")
	}
}

// TestRFDAgentServerNotRunning: a server that crashed and may not be
// restarted (the circuit is open) is listed not_running, and a request to
// it is refused with server_not_running and that state.
func TestRFDAgentServerNotRunning(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"initialize": {Crash: true}}})
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers, MaxRestarts: -1}}, false)
	tc.initialize(t, "", "")
	tc.NewSession(t, root)
	raw, perr := tc.rfdCall(t, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"})
	if perr != nil {
		t.Fatal(perr)
	}
	var list lspext.RFDServersResult
	must(t, json.Unmarshal(raw, &list))
	id := "fake@" + root
	if len(list.Servers) != 1 || list.Servers[0].ServerID != id || list.Servers[0].State != lspext.RFDStateNotRunning {
		t.Fatalf("servers %s", raw)
	}
	pos := json.RawMessage(`{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"},"position":{"line":0,"character":6}}`)
	_, perr = tc.rfdCall(t, lspext.RFDRequest, lspext.RFDRequestParams{SessionID: "S1", ServerID: id, Method: "textDocument/hover", Params: pos})
	if perr == nil || perr.Code != -32602 {
		t.Fatalf("error %v, want -32602", perr)
	}
	d, _ := lspext.ParseRFDErrorData(perr.Data)
	if d.Reason != lspext.RFDServerNotRunning || d.State != lspext.RFDStateNotRunning || d.ServerID != id {
		t.Errorf("data %s", perr.Data)
	}
}

// TestRFDAgentCancel: $/cancel_request for an lsp/request the server never
// answers is answered -32800, and the server is sent $/cancelRequest for
// its request; the cancel crosses the component on its way. The file the
// request names was opened by acp-lsp before it.
func TestRFDAgentCancel(t *testing.T) {
	// The fake publishes once on receiving the hover (FloodDiagnostics),
	// so the test knows the request is at the server before cancelling.
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
		"textDocument/hover": {NeverAnswer: true, FloodDiagnostics: 1},
	}})
	record := servers[0].Args[slices.Index(servers[0].Args, "-record")+1]
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, true)
	events, stop := tc.adapter.Manager().Subscribe(16)
	defer stop()
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	if _, perr := tc.rfdCall(t, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"}); perr != nil {
		t.Fatal(perr)
	}
	params, _ := json.Marshal(lspext.RFDRequestParams{SessionID: "S1", ServerID: "fake@" + root, Method: "textDocument/hover",
		Params: json.RawMessage(`{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"},"position":{"line":0,"character":6}}`)})
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":7,"method":"lsp/request","params":%s}`, params)
	for range 2 { // didOpen's publish, then the hover's
		select {
		case <-events:
		case <-time.After(stacktest.Wait):
			t.Fatal("the hover did not reach the server")
		}
	}
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
	for {
		m := tc.Agent.Next(t)
		if string(m.ID) != "7" {
			continue
		}
		if m.Error == nil || m.Error.Code != proxy.CodeRequestCancelled {
			t.Fatalf("answer %s, want -32800", m.Raw)
		}
		break
	}
	tc.cancel()
	msgs, err := fakelsp.ReadRecord(record)
	must(t, err)
	hovers := fakelsp.Requests(msgs, "textDocument/hover")
	if c := fakelsp.CancelledIDs(msgs); len(hovers) != 1 || !slices.Equal(c, []string{string(hovers[0].ID)}) {
		t.Fatalf("$/cancelRequest for %v; hovers %v", c, hovers)
	}
	// The agent opened nothing: acp-lsp opened the file for the request.
	methods := fakelsp.Methods(msgs)
	if open, hover := slices.Index(methods, "textDocument/didOpen"), slices.Index(methods, "textDocument/hover"); open < 0 || open > hover {
		t.Errorf("the server got %v: the file not opened before the request", methods)
	}
}

// TestRFDAgentEditorServers: with an editor that has language servers of
// its own, in ACP's LSP proposal or in the `_meta.lsp` dialect, the
// agent's lsp/servers lists them (ids prefixed "editor:"; the
// `_meta.lsp` dialect counts in utf-16, and its servers' capabilities say
// so) and its lsp/request reaches the editor, the LSP params untouched,
// for the editor's own server.
func TestRFDAgentEditorServers(t *testing.T) {
	const hover = `{"textDocument":{"uri":"file:///w/src/main.rs"},"position":{"line":3,"character":7}}`
	for _, tt := range []struct {
		name string
		// caps are the editor's clientCapabilities.
		caps                   string
		servers                func(root string) string
		wantID, wantEnc        string
		wantMethod, wantServer string
		// serverAt locates the server's name or id in the editor's
		// request.
		serverAt []string
	}{
		{name: "rfd", caps: `{"lsp":{}}`,
			servers: func(root string) string {
				return `{"servers":[{"serverId":"ra@` + root + `","name":"rust-analyzer","workspacePath":"` + root + `","state":"running","capabilities":{"positionEncoding":"utf-8","hoverProvider":true}}],"availableMethods":["textDocument/hover"]}`
			},
			wantID: "editor:ra@", wantEnc: "utf-8", wantMethod: lspext.RFDRequest, serverAt: []string{"serverId"}, wantServer: "ra@"},
		{name: "_meta.lsp", caps: `{"_meta":{"lsp":{"methods":["_lsp/servers","_lsp/request"]}}}`,
			servers: func(root string) string {
				return `{"servers":[{"name":"rust-analyzer","source":"editor","root":"` + root + `","state":"ready","capabilities":{"positionEncoding":"utf-8","hoverProvider":true}}]}`
			},
			wantID: "editor:rust-analyzer", wantEnc: "utf-16", wantMethod: lspext.Request, serverAt: []string{"server"}, wantServer: "rust-analyzer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tc := startChain(t, Config{NoLocal: true}, false)
			tc.Initialize(t, tt.caps, `{}`)
			tc.NewSession(t, root)
			asked := make(chan msg, 4)
			tc.runEditor(func(m msg) reply {
				switch m.Method {
				case lspext.RFDServers, lspext.Servers:
					return reply{result: tt.servers(root)}
				case lspext.RFDRequest:
					asked <- m
					return reply{result: `{"lspResult":{"contents":"from the editor"}}`}
				case lspext.Request:
					asked <- m
					return reply{result: `{"contents":"from the editor"}`}
				}
				return reply{code: proxy.CodeMethodNotFound, msg: "no"}
			})
			raw, perr := tc.rfdCall(t, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"})
			if perr != nil {
				t.Fatal(perr)
			}
			var list lspext.RFDServersResult
			must(t, json.Unmarshal(raw, &list))
			wantID := strings.TrimSuffix(tt.wantID, "@")
			if strings.HasSuffix(tt.wantID, "@") {
				wantID = tt.wantID + root
			}
			if len(list.Servers) != 1 || list.Servers[0].ServerID != wantID || !list.Servers[0].Running() {
				t.Fatalf("servers %s, want %s", raw, wantID)
			}
			if enc := lspext.RFDPositionEncoding(list.Servers[0].Capabilities); enc != tt.wantEnc {
				t.Errorf("positionEncoding %s, want %s", enc, tt.wantEnc)
			}
			raw, perr = tc.rfdCall(t, lspext.RFDRequest, lspext.RFDRequestParams{SessionID: "S1", ServerID: wantID, Method: "textDocument/hover", Params: json.RawMessage(hover)})
			if perr != nil {
				t.Fatal(perr)
			}
			if string(raw) != `{"lspResult":{"contents":"from the editor"}}` {
				t.Errorf("answer %s", raw)
			}
			m := <-asked
			if m.Method != tt.wantMethod {
				t.Errorf("editor asked %s, want %s", m.Method, tt.wantMethod)
			}
			wantServer := tt.wantServer
			if strings.HasSuffix(wantServer, "@") {
				wantServer += root
			}
			if s, _ := proxy.GetPath(m.Params, tt.serverAt...); string(s) != `"`+wantServer+`"` {
				t.Errorf("editor asked for server %s, want %s", s, wantServer)
			}
			if p, _ := proxy.GetPath(m.Params, "params"); string(p) != hover {
				t.Errorf("editor got LSP params %s, want %s", p, hover)
			}
		})
	}
}
