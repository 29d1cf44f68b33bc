package component

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// end is one side of a test chain: lines written to it go into the chain,
// lines the chain writes come out of recv.
type end struct{ *acptest.Peer }

func (e *end) send(t *testing.T, line string) {
	t.Helper()
	if err := e.SendLine(line); err != nil {
		t.Fatal(err)
	}
}

func (e *end) recv(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chainWait)
	defer cancel()
	m, err := e.Recv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(m.Raw), &out); err != nil {
		t.Fatalf("%s: %v", m.Raw, err)
	}
	return out
}

func pipeEnd() (*end, *proxy.Stream) {
	p, st := acptest.New("", nil)
	return &end{p}, st
}

// TestStageChain runs the Stage in a real proxy chain between a scripted
// editor and a scripted agent: the setup request gets the HTTP entry, the
// agent's session id is bound, editor notifications feed the cache, a tool
// call goes upstream as _lsp/request, and an applied rename asks the editor
// with session/request_permission before writing.
// runStage runs a chain of st alone between a scripted editor and agent
// until the test ends; ctx ends with it.
func runStage(t *testing.T, st *Stage) (editor, agent *end, ctx context.Context) {
	t.Helper()
	editor, cep := pipeEnd()
	agent, aep := pipeEnd()
	return editor, agent, runChain(t, editor, agent, cep, aep, nil, st)
}

// runChain runs a chain of comps between the endpoints cep and aep, whose
// outside ends are editor and agent, until the test ends: then the chain
// is cancelled, the outside ends closed, the chain waited for and the
// endpoints closed, and after (when not nil) runs last. It returns the
// chain's context.
func runChain(t testing.TB, editor, agent io.Closer, cep, aep *proxy.Stream, after func(), comps ...proxy.Stage) context.Context {
	t.Helper()
	return runChainConfig(t, editor, agent, proxy.Config{Client: cep, Agent: aep, Stages: comps}, after)
}

// runChainConfig is runChain with the chain's whole Config (its Client
// and Agent the endpoints of editor and agent).
func runChainConfig(t testing.TB, editor, agent io.Closer, cfg proxy.Config, after func()) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- proxy.NewChain(cfg).Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		editor.Close()
		agent.Close()
		<-done
		cfg.Client.Close()
		cfg.Agent.Close()
		if after != nil {
			after()
		}
	})
	return ctx
}

func TestStageChain(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "main.go")
	os.WriteFile(path, []byte(mainGo), 0o644)
	st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
	if err != nil {
		t.Fatal(err)
	}
	editor, agent, ctx := runStage(t, st)

	editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}}`)
	editor.recv(t)
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
	m := agent.recv(t)
	var params struct {
		MCPServers []struct {
			Type, URL string
			Headers   []struct{ Name, Value string }
		} `json:"mcpServers"`
	}
	json.Unmarshal(m["params"], &params)
	if len(params.MCPServers) != 1 || params.MCPServers[0].Type != "http" {
		t.Fatalf("session/new reached the agent as %s", m["params"])
	}
	agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
	editor.recv(t)
	if st.Tool().SessionByACP("S1") == nil {
		t.Fatal("session id not bound")
	}
	uri := edit.URIFromPath(path)
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"severity":1,"message":"pushed"}]}}`, uri))

	// The agent calls the tool over HTTP, as a real agent would.
	e := params.MCPServers[0]
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	hc := &headerClient{name: e.Headers[0].Name, value: e.Headers[0].Value}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: hc.client()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type result struct {
		text  string
		isErr bool
	}
	call := func(args map[string]any) chan result {
		ch := make(chan result, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
			if err != nil {
				ch <- result{err.Error(), true}
				return
			}
			ch <- result{res.Content[0].(*mcp.TextContent).Text, res.IsError}
		}()
		return ch
	}
	hover := call(map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"})
	m = editor.recv(t)
	var req lspext.RequestParams
	json.Unmarshal(m["params"], &req)
	if string(m["method"]) != `"_lsp/request"` || req.Method != "textDocument/hover" || req.URI != uri {
		t.Fatalf("editor got %s %s", m["method"], m["params"])
	}
	editor.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":{"contents":"func add(a, b int) int"}}`)
	if r := <-hover; r.isErr || r.text != "func add(a, b int) int" {
		t.Errorf("hover: %+v", r)
	}

	rename := call(map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true})
	m = editor.recv(t) // _lsp/request textDocument/rename
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"changes":{%q:[{"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}},"newText":"sum"}]}}}`, m["id"], uri))
	// The edit is checked before it is written: an editor that does
	// not know _lsp/check refuses it, and the prompt says the check was
	// not done.
	m = editor.recv(t)
	if string(m["method"]) != `"_lsp/check"` {
		t.Fatalf("editor got %s %s, want the edit's check", m["method"], m["params"])
	}
	editor.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"error":{"code":-32601,"message":"method not found"}}`)
	m = editor.recv(t)
	if string(m["method"]) != `"session/request_permission"` || !strings.Contains(string(m["params"]), `"sessionId":"S1"`) || !strings.Contains(string(m["params"]), `+func sum`) ||
		!strings.Contains(string(m["params"]), `check of the edit to main.go before writing it: not done`) {
		t.Fatalf("editor got %s %s", m["method"], m["params"])
	}
	editor.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	m = editor.recv(t)
	if string(m["method"]) != `"_lsp/filesChanged"` {
		t.Errorf("after apply editor got %s", m["method"])
	}
	if r := <-rename; r.isErr {
		t.Errorf("rename: %+v", r)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "func sum(") {
		t.Errorf("file not renamed:\n%s", b)
	}
	// An editor notification the adapter marked for the agent is cached
	// and passed on; the unmarked push above never reached the agent (its
	// next message is this one).
	marked := fmt.Sprintf(`{"jsonrpc":"2.0","method":"_lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[],"_meta":{"acp-lsp/forwardToAgent":true}}}`, edit.URIFromPath(filepath.Join(root, "other.go")))
	editor.send(t, marked)
	if m = agent.recv(t); string(m["method"]) != `"_lsp/publishDiagnostics"` {
		t.Errorf("agent got %s instead of the marked notification", m["method"])
	}
	// The applied edit touched main.go; its cached errors reach the next
	// prompt once.
	editor.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"go on"}]}}`)
	m = agent.recv(t)
	if !strings.Contains(string(m["params"]), `main.go:1:1: error: pushed`) {
		t.Errorf("prompt reached the agent as %s", m["params"])
	}
}

// TestStageSetupMethods: session/new, load, resume and fork (both fork
// spellings) each reach the agent with the lsp entry appended and the
// client's bytes kept; the transport is HTTP exactly when the agent
// advertised mcpCapabilities.http (unless configured), and the ACP
// session id is bound from the params (load/resume/fork) or the response
// (new).
func TestStageSetupMethods(t *testing.T) {
	for _, tc := range []struct {
		name      string
		agentCaps string
		transport Transport
		wantType  string // "http" or "" (stdio)
		wantStdio bool
	}{
		{"agent with http", `{"mcpCapabilities":{"http":true}}`, TransportAuto, "http", false},
		{"agent without http", `{"mcpCapabilities":{"http":false,"sse":true}}`, TransportAuto, "", true},
		{"agent without mcpCapabilities", `{}`, TransportAuto, "", true},
		{"configured stdio", `{"mcpCapabilities":{"http":true}}`, TransportStdio, "", true},
		{"configured http", `{}`, TransportHTTP, "http", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			st, err := NewStage(Config{Executable: "/opt/acp-lsp", Transport: tc.transport})
			if err != nil {
				t.Fatal(err)
			}
			editor, agent, _ := runStage(t, st)
			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":`+tc.agentCaps+`}}`)
			editor.recv(t)
			for i, method := range []string{"session/new", "session/load", "session/resume", "session/fork", "session/unstable_fork"} {
				sid := fmt.Sprintf("S%d", i)
				idPart := `"sessionId":"` + sid + `",`
				if method == "session/new" {
					idPart = ""
				}
				client := `{"name":"mine","command":"/x","args":[],"env":[]}`
				editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"cwd":%q,"mcpServers":[%s],"_meta":{"keep":  true}}}`, 10+i, method, idPart, root, client))
				m := agent.recv(t)
				var p struct {
					MCPServers []struct {
						Type    string   `json:"type"`
						Name    string   `json:"name"`
						Command string   `json:"command"`
						Args    []string `json:"args"`
					} `json:"mcpServers"`
				}
				json.Unmarshal(m["params"], &p)
				if len(p.MCPServers) != 2 || p.MCPServers[1].Name != "acp-lsp" || p.MCPServers[1].Type != tc.wantType ||
					(tc.wantStdio && (p.MCPServers[1].Command != "/opt/acp-lsp" || p.MCPServers[1].Args[0] != "mcp-bridge")) {
					t.Errorf("%s reached the agent as %s", method, m["params"])
				}
				if !strings.Contains(string(m["params"]), client) || !strings.Contains(string(m["params"]), `"_meta":{"keep":  true}`) {
					t.Errorf("%s: client's bytes changed: %s", method, m["params"])
				}
				agent.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q}}`, 10+i, sid))
				editor.recv(t)
				if st.Tool().SessionByACP(sid) == nil {
					t.Errorf("%s: session %s not bound", method, sid)
				}
			}
			// A fork is bound to the new session's id from the answer; the
			// source session keeps its own.
			c := st.Tool()
			s0 := c.SessionByACP("S0")
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":98,"method":"session/fork","params":{"sessionId":"S0","cwd":%q,"mcpServers":[]}}`, root))
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":98,"result":{"sessionId":"F1"}}`)
			editor.recv(t)
			if f := c.SessionByACP("F1"); f == nil || f == s0 || c.SessionByACP("S0") != s0 {
				t.Errorf("fork bound %p, source %p (was %p)", f, c.SessionByACP("S0"), s0)
			}
			// A setup the agent refuses leaves no MCP server behind and
			// does not take over the live session's id.
			c.mu.Lock()
			before := len(c.sessions)
			c.mu.Unlock()
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":99,"method":"session/load","params":{"sessionId":"S0","cwd":%q,"mcpServers":[]}}`, root))
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":99,"error":{"code":-32002,"message":"no such session"}}`)
			editor.recv(t)
			c.mu.Lock()
			after := len(c.sessions)
			c.mu.Unlock()
			if after != before || c.SessionByACP("S0") != s0 {
				t.Errorf("refused session/load left a session (%d → %d) or took the id", before, after)
			}
		})
	}
}

// TestNotificationsAndInjection: publishDiagnostics and didSave in both
// spellings feed the cache (didSave fetching fresh diagnostics); the next
// session/prompt gets one block with the new errors of touched files only
// (warnings only when configured), within the budget, and nothing when
// nothing is new; agent writes (fs/write_text_file) count as touched.
func TestNotificationsAndInjection(t *testing.T) {
	diag := func(line, sev int, msg string) string {
		return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":1}},"severity":%d,"message":%q}`, line, line, sev, msg)
	}
	for _, spelling := range []string{"_lsp/", "lsp/"} {
		for _, warnings := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s warnings=%v", spelling, warnings), func(t *testing.T) {
				c, s, fb, _ := setup(t, Config{InjectWarnings: warnings, InjectBudget: 300})
				c.Bind(s, "s1")
				uri := func(n string) string { return edit.URIFromPath(filepath.Join(s.Root, n)) }
				fb.reports = make(chan []string, 4)
				fb.report = &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{{URI: uri("a.go"), Diagnostics: json.RawMessage("[" + diag(0, 1, "saved error") + "," + diag(1, 2, "saved warning") + "]")}}}
				p, _ := json.Marshal(lspext.URIParams{URI: uri("a.go")})
				if !c.HandleNotification(context.Background(), spelling+"didSave", p) {
					t.Fatal("didSave not consumed")
				}
				if got := <-fb.reports; len(got) != 1 || got[0] != uri("a.go") {
					t.Errorf("didSave fetched %v", got)
				}
				c.fetches.Wait()
				// A push for a file nobody touched is cached but not injected.
				pp, _ := json.Marshal(lspext.PublishDiagnosticsParams{URI: uri("b.go"), Native: true, Diagnostics: json.RawMessage("[" + diag(0, 1, "untouched") + "]")})
				c.HandleNotification(context.Background(), spelling+"publishDiagnostics", pp)
				if _, ok := c.Cache().Get(uri("b.go")); !ok {
					t.Error("push not cached")
				}
				got := c.PromptContext("s1")
				if !strings.Contains(got, "a.go:1:1: error: saved error") || strings.Contains(got, "untouched") ||
					strings.Contains(got, "saved warning") != warnings {
					t.Errorf("block: %q", got)
				}
				// Many new errors in a written file: the block keeps its budget.
				var many []string
				for i := range 40 {
					many = append(many, diag(i, 1, fmt.Sprintf("error number %d", i)))
				}
				pp, _ = json.Marshal(lspext.PublishDiagnosticsParams{URI: uri("c.go"), Native: true, Diagnostics: json.RawMessage("[" + strings.Join(many, ",") + "]")})
				c.HandleNotification(context.Background(), spelling+"publishDiagnostics", pp)
				c.MarkWritten(filepath.Join(s.Root, "c.go"))
				got = c.PromptContext("s1")
				if len(got) > 300 || !strings.Contains(got, "more (call the lsp tool with action=diagnostics)") {
					t.Errorf("budgeted block (%d chars): %q", len(got), got)
				}
				if again := c.PromptContext("s1"); again != "" {
					t.Errorf("nothing new, yet: %q", again)
				}
			})
		}
	}
}

// TestSaveAndInjectionSwitches: with diagnostics on save and context
// injection turned off, didSave fetches nothing and prompts stay as sent.
func TestSaveAndInjectionSwitches(t *testing.T) {
	c, s, fb, _ := setup(t, Config{NoDiagnosticsOnSave: true, NoContextInjection: true})
	c.Bind(s, "s1")
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	fb.reports = make(chan []string, 1)
	p, _ := json.Marshal(lspext.URIParams{URI: uri})
	c.HandleNotification(context.Background(), "_lsp/didSave", p)
	c.fetches.Wait()
	select {
	case got := <-fb.reports:
		t.Errorf("didSave fetched %v although turned off", got)
	default:
	}
	c.Cache().Put(uri, "gopls", nil, []wire.Diagnostic{{Severity: 1, Message: "boom"}})
	params := json.RawMessage(`{"sessionId":"s1","prompt":[]}`)
	if out := c.InjectPrompt(params); string(out) != string(params) {
		t.Errorf("injected although turned off: %s", out)
	}
}
