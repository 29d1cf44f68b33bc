package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wait bounds every wait for a message in these tests: real servers
// (gopls loading a module) are slow on a shared machine; the tests are
// about what arrives, never about how fast.
const wait = 3 * time.Minute

// msg is one decoded JSON-RPC message seen by a test peer (Raw is the
// line as it arrived).
type msg = acptest.Msg

// peer is one end of a test chain (the editor or the agent): lines sent go
// into the chain; lines the chain writes arrive on in.
type peer struct {
	*acptest.Peer
	name string
	in   <-chan msg
}

func newPeer(name string) (*peer, *proxy.Stream) {
	p, st := acptest.New(name, nil)
	return &peer{Peer: p, name: name, in: p.Messages()}, st
}

func (p *peer) send(t testing.TB, format string, args ...any) {
	t.Helper()
	if err := p.SendLine(fmt.Sprintf(format, args...)); err != nil {
		t.Fatal(err)
	}
}

// recv returns the next message.
func (p *peer) recv(t testing.TB) msg {
	t.Helper()
	return p.Expect(t, wait)
}

// recvMethod returns the next message with method, passing over others
// (kept in skipped).
func (p *peer) recvMethod(t testing.TB, method string) (msg, []msg) {
	t.Helper()
	var skipped []msg
	for {
		m := p.recv(t)
		if m.Method == method {
			return m, skipped
		}
		skipped = append(skipped, m)
	}
}

// testChain is editor ⇄ adapter ⇄ [component] ⇄ agent over pipes.
type testChain struct {
	editor, agent *peer
	adapter       *Adapter
	stage         *component.Stage
	cancel        func()
}

func startChain(t testing.TB, cfg Config, withComponent bool) *testChain {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tc := &testChain{adapter: a}
	comps := []proxy.Stage{a}
	if withComponent {
		st, err := component.NewStage(component.Config{Executable: "/bin/acp-lsp", DiagnosticsWait: 90 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		tc.stage = st
		comps = append(comps, st)
	}
	editor, cep := newPeer("editor")
	agent, aep := newPeer("agent")
	tc.editor, tc.agent = editor, agent
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- proxy.NewChain(proxy.Config{Client: cep, Agent: aep, Stages: comps}).Run(ctx)
	}()
	var once bool
	tc.cancel = func() {
		if once {
			return
		}
		once = true
		cancel()
		editor.Close()
		agent.Close()
		<-done
		cep.Close()
		aep.Close()
		if err := a.Close(); err != nil {
			t.Errorf("adapter close: %v", err)
		}
		for range editor.in {
		}
		for range agent.in {
		}
	}
	t.Cleanup(tc.cancel)
	return tc
}

// stopAndCheckProcesses stops the chain and checks that no process of
// the given process groups is left.
func (tc *testChain) stopAndCheckProcesses(t *testing.T, pids []int) {
	t.Helper()
	tc.cancel()
	for _, pid := range pids {
		alive, err := fakelsp.Alive(pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(alive) > 0 {
			t.Errorf("process group %d still has %v after Close", pid, alive)
		}
	}
}

func serverPIDs(m *lsp.Manager) []int {
	var out []int
	for _, s := range m.Servers() {
		if s.PID > 0 {
			out = append(out, s.PID)
		}
	}
	return out
}

// initialize runs the initialize exchange with editorMeta as the editor's
// clientCapabilities._meta (raw JSON, "" for none) and returns what the
// agent and the editor saw.
func (tc *testChain) initialize(t testing.TB, editorMeta, agentMeta string) (atAgent, atEditor msg) {
	t.Helper()
	caps := `{"fs":{"readTextFile":true,"writeTextFile":true}}`
	if editorMeta != "" {
		caps = `{"fs":{"readTextFile":true,"writeTextFile":true},"_meta":` + editorMeta + `}`
	}
	tc.editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":%s}}`, caps)
	atAgent = tc.agent.recv(t)
	if atAgent.Method != "initialize" {
		t.Fatalf("agent got %s", atAgent.Raw)
	}
	agentCaps := `{"loadSession":true,"mcpCapabilities":{"http":true}}`
	if agentMeta != "" {
		agentCaps = `{"loadSession":true,"mcpCapabilities":{"http":true},"_meta":` + agentMeta + `}`
	}
	tc.agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":%s}}`, agentCaps)
	atEditor = tc.editor.recv(t)
	if string(atEditor.ID) != "0" || atEditor.Result == nil {
		t.Fatalf("editor got %s", atEditor.Raw)
	}
	return atAgent, atEditor
}

// newSession opens a session on root and returns the MCP entry the
// component injected (nil without component).
func (tc *testChain) newSession(t *testing.T, root string) *mcpEntry {
	t.Helper()
	tc.editor.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root)
	m := tc.agent.recv(t)
	if m.Method != "session/new" {
		t.Fatalf("agent got %s", m.Raw)
	}
	var p struct {
		MCPServers []mcpEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	tc.agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
	if r := tc.editor.recv(t); string(r.ID) != "1" {
		t.Fatalf("editor got %s", r.Raw)
	}
	if len(p.MCPServers) == 0 {
		return nil
	}
	return &p.MCPServers[0]
}

type mcpEntry struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	Headers []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
}

// headerTransport adds the entry's header, as an agent would.
type headerTransport struct{ name, value string }

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// toolClient connects to the injected lsp tool as the agent would.
func toolClient(t *testing.T, e *mcpEntry) *mcp.ClientSession {
	t.Helper()
	if e == nil || e.Type != "http" || len(e.Headers) == 0 {
		t.Fatalf("no http MCP entry injected: %+v", e)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	hc := &http.Client{Transport: &headerTransport{e.Headers[0].Name, e.Headers[0].Value}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		t.Fatalf("tool %v: %v", args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// goWorkspace writes a Go module with a known error into a fresh folder.
func goWorkspace(t *testing.T) (root, main string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	main = filepath.Join(root, "main.go")
	must(t, os.WriteFile(main, []byte(brokenGo), 0o644))
	return root, main
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const brokenGo = `package main

import "fmt"

func add(a, b int) int { return a + b }

func main() {
	fmt.Println(add(1, 2), add(3))
}
`

// TestLocalGoplsThroughChain runs editor ⇄ adapter ⇄ component ⇄ agent
// with an editor that offers no LSP: the agent's lsp tool calls travel up
// as _lsp/* and are answered by a real gopls the adapter started for the
// session's folder, with gopls's own words.
func TestLocalGoplsThroughChain(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := goWorkspace(t)
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, true)
	tc.initialize(t, "", "")
	cs := toolClient(t, tc.newSession(t, root))

	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		// Workspace-wide before anything is known: gopls is started on
		// a file found under the session folder.
		{map[string]any{"action": "diagnostics"}, []string{"main.go:8:", "not enough arguments in call to add", "gopls: fresh"}},
		{map[string]any{"action": "diagnostics", "file": "main.go"}, []string{"main.go:8:", "not enough arguments in call to add", "gopls: fresh"}},
		{map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, []string{"func add(a int, b int) int"}},
		{map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}, []string{"main.go:5:6"}},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"main.go:8:14", "main.go:8:25"}},
		{map[string]any{"action": "symbols", "file": "main.go"}, []string{"function add", "function main"}},
		{map[string]any{"action": "status"}, []string{"gopls"}},
		{map[string]any{"action": "capabilities", "file": "main.go"}, []string{"gopls"}},
		{map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 5, "symbol": "add"}, []string{"callers: 1", "main.go:7:6 function main"}},
		{map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 7, "symbol": "main", "direction": "outgoing"}, []string{"add"}},
		{map[string]any{"action": "symbols", "query": "add"}, []string{"main.go:5:6"}},
		{map[string]any{"action": "hover", "symbol": "add"}, []string{"func add(a int, b int) int"}},
		{map[string]any{"action": "format", "file": "main.go"}, nil},
		{map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum"}, []string{"+func sum(a, b int) int"}},
		{map[string]any{"action": "restart", "server": "gopls"}, []string{"restarted gopls"}},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"main.go:8:14"}},
	} {
		text, isErr := callTool(t, cs, c.args)
		if isErr {
			t.Errorf("%v: %s", c.args, text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: want %q in:\n%s", c.args, w, text)
				break
			}
		}
	}
	// Nothing of this reached the editor: it offers no LSP.
	select {
	case m := <-tc.editor.in:
		t.Errorf("editor got %s", m.Raw)
	default:
	}
	pids := serverPIDs(tc.adapter.Manager())
	if len(pids) != 1 {
		t.Errorf("local servers %+v, want one gopls", tc.adapter.Manager().Servers())
	}
	tc.stopAndCheckProcesses(t, pids)
}

// fakeWorkspace builds the fake language server running script and a
// workspace holding a.fk: it returns the workspace root (symlinks
// resolved), the file, and the configuration of a server "fake" for .fk
// files.
func fakeWorkspace(t *testing.T, script fakelsp.Script) (root, file string, servers []lsp.ServerConfig) {
	t.Helper()
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(path, script))
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	file = filepath.Join(root, "a.fk")
	must(t, os.WriteFile(file, []byte("func Foo() {}\n"), 0o644))
	servers = []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(path, filepath.Join(dir, "record")), Extensions: []string{"fk"}}}
	return root, file, servers
}
