package scriptagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
)

// roleVar makes the test binary run the agent on stdin/stdout, so that
// acpx can start it as a real process.
const roleVar = "ACP_LSP_TEST_SCRIPTAGENT"

func TestMain(m *testing.M) {
	peerrun.MaybeServeMCP()
	if os.Getenv(roleVar) == "agent" {
		if err := Serve(context.Background(), os.Stdin, os.Stdout, Options{Stderr: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line string
		tool string
		args string
	}{
		{`lsp {"action":"hover","file":"main.go","line":3,"symbol":"add"}`, "lsp", `{"action":"hover","file":"main.go","line":3,"symbol":"add"}`},
		{`  echo   {"text":"a b"}  `, "echo", `{"text":"a b"}`},
		{`acp-lsp_lsp {}`, "acp-lsp_lsp", `{}`},
		{"echo {}\r", "echo", `{}`},
		{`hello world`, "", ""},
		{`echo {"text":`, "", ""},
		{`echo ["not","an","object"]`, "", ""},
		{`echo`, "", ""},
		{`what? {}`, "", ""},
		{`?echo {"text":"a"}`, "echo", `{"text":"a"}`},
		{`_x/ping {}`, "_x/ping", `{}`},
		{`? {}`, "", ""},
		{``, "", ""},
	}
	for _, tt := range tests {
		got := ParseLine(tt.line)
		if got.Tool != tt.tool || string(got.Arguments) != tt.args {
			t.Errorf("ParseLine(%q) = %q %s, want %q %s", tt.line, got.Tool, got.Arguments, tt.tool, tt.args)
		}
		if got.Tool == "" && got.Text != strings.TrimRight(tt.line, "\r") {
			t.Errorf("ParseLine(%q).Text = %q", tt.line, got.Text)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add(`lsp {"action":"hover","file":"main.go","line":3}`)
	f.Add(`x {`)
	f.Add("echo {}\r")
	f.Fuzz(func(t *testing.T, line string) {
		l := ParseLine(line)
		if l.Tool != "" && !json.Valid(l.Arguments) {
			t.Fatalf("tool line %q with invalid arguments %q", line, l.Arguments)
		}
	})
}

// client records session updates as short strings and signals each one.
type client struct {
	mu      sync.Mutex
	permit  string
	asked   []string
	updates []string
	seen    chan string
}

func newClient() *client { return &client{seen: make(chan string, 100)} }

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	u := n.Update
	var s string
	switch {
	case u.AgentMessageChunk != nil:
		s = "text " + u.AgentMessageChunk.Content.Text.Text
	case u.ToolCall != nil:
		s = fmt.Sprintf("tool_call %s %s %v", u.ToolCall.Status, u.ToolCall.Title, u.ToolCall.RawInput)
	case u.ToolCallUpdate != nil:
		s = "tool_call_update " + string(*u.ToolCallUpdate.Status)
		for _, c := range u.ToolCallUpdate.Content {
			s += " " + c.Content.Content.Text.Text
		}
	default:
		s = "other"
	}
	c.mu.Lock()
	c.updates = append(c.updates, s)
	c.mu.Unlock()
	select {
	case c.seen <- s:
	default: // nobody is watching (benchmarks); the record above is enough
	}
	return nil
}

func (c *client) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.updates...)
}

// RequestPermission answers with c.permit: an option id, or "" to cancel.
func (c *client) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	permit := c.permit
	// Kept apart from updates: requests and notifications are handled on
	// different goroutines, so their relative order here is not defined.
	c.asked = append(c.asked, fmt.Sprintf("%s %v", *p.ToolCall.Title, p.ToolCall.RawInput))
	c.mu.Unlock()
	if permit == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: acp.PermissionOptionId(permit)}}}, nil
}

// HandleExtensionMethod answers _test/ping with its params; other
// extension methods are unknown.
func (c *client) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != "_test/ping" {
		return nil, acp.NewMethodNotFound(method)
	}
	return map[string]json.RawMessage{"pong": params}, nil
}
func (c *client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errors.New("not expected")
}
func (c *client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errors.New("not expected")
}
func (c *client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errors.New("not expected")
}
func (c *client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errors.New("not expected")
}
func (c *client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errors.New("not expected")
}
func (c *client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errors.New("not expected")
}
func (c *client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errors.New("not expected")
}

// connect runs the agent in-process behind an SDK client connection. The
// cleanup closes the client's end and waits for Serve to return.
func connect(t *testing.T) (*acp.ClientSideConnection, *client) { return connectB(t) }

func connectB(t testing.TB) (*acp.ClientSideConnection, *client) {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), toAgentR, toClientW, Options{})
		toClientW.Close()
	}()
	c := newClient()
	conn := acp.NewClientSideConnection(c, toAgentW, toClientR)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		toAgentW.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		<-conn.Done()
	})
	init, err := conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.McpCapabilities.Http || !init.AgentCapabilities.LoadSession || init.AgentInfo.Name != Name {
		t.Fatalf("initialize: %+v", init)
	}
	return conn, c
}

func stdioServer(t testing.TB, name string) acp.McpServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return acp.McpServer{Stdio: &acp.McpServerStdio{Name: name, Command: exe, Args: []string{},
		Env: []acp.EnvVariable{{Name: peerrun.MCPRoleVar, Value: "stdio"}}}}
}

func httpServer(t testing.TB, name string) acp.McpServer {
	return acp.McpServer{Http: &acp.McpServerHttpInline{Type: "http", Name: name, Url: peerrun.ServeMCPHTTP(t), Headers: []acp.HttpHeader{{Name: "X-Test", Value: "1"}}}}
}

func sseServer(t testing.TB, name string) acp.McpServer {
	return acp.McpServer{Sse: &acp.McpServerSseInline{Type: "sse", Name: name, Url: peerrun.ServeMCPSSE(t), Headers: []acp.HttpHeader{}}}
}

func prompt(text string) []acp.ContentBlock { return []acp.ContentBlock{acp.TextBlock(text)} }

func TestPromptRunsToolsOfStdioHTTPAndSSEServers(t *testing.T) {
	conn, c := connect(t)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{stdioServer(t, "tools"), httpServer(t, "web"), sseServer(t, "old")}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: prompt(strings.Join([]string{
		"hello",
		`echo {"text":"one"}`,
		`web_echo {"text":"two"}`,
		`old_echo {"text":"three"}`,
		`fail {"message":"boom"}`,
		`nosuch {}`,
	}, "\n"))})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}
	nosuch := `no MCP server of this session offers tool "nosuch" (offered: tools/block, tools/echo, tools/fail, web/block, web/echo, web/fail, old/block, old/echo, old/fail)`
	want := []string{
		"text hello\n",
		"tool_call pending echo map[text:one]",
		"tool_call_update in_progress",
		"tool_call_update completed echo: one",
		"text echo: one\n",
		"tool_call pending web_echo map[text:two]",
		"tool_call_update in_progress",
		"tool_call_update completed echo: two",
		"text echo: two\n",
		"tool_call pending old_echo map[text:three]",
		"tool_call_update in_progress",
		"tool_call_update completed echo: three",
		"text echo: three\n",
		"tool_call pending fail map[message:boom]",
		"tool_call_update in_progress",
		"tool_call_update failed boom",
		"text boom\n",
		"tool_call pending nosuch map[]",
		"tool_call_update in_progress",
		"tool_call_update failed " + nosuch,
		"text " + nosuch + "\n",
	}
	if diff := cmp.Diff(want, c.got()); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}

func TestCancelStopsARunningTool(t *testing.T) {
	conn, c := connect(t)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{stdioServer(t, "tools")}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for s := range c.seen {
			if s == "tool_call_update in_progress" {
				_ = conn.Cancel(ctx, acp.CancelNotification{SessionId: sess.SessionId})
				return
			}
		}
	}()
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: prompt("block {}\necho {\"text\":\"never\"}")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
	for _, s := range c.got() {
		if strings.Contains(s, "never") {
			t.Errorf("a line after the cancelled call ran: %q", s)
		}
	}
	// The session still works after a cancelled turn.
	resp, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: prompt(`echo {"text":"again"}`)})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after cancel: %v %v", resp.StopReason, err)
	}
}

func TestSessionSetupErrors(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	_, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{
		{Stdio: &acp.McpServerStdio{Name: "missing", Command: "/nonexistent/mcp-server", Args: []string{}, Env: []acp.EnvVariable{}}},
	}})
	if err == nil || !strings.Contains(err.Error(), `mcp server \"missing\": fork/exec /nonexistent/mcp-server`) {
		t.Errorf("session/new with a missing server binary: %v, want an error naming the server", err)
	}
	_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: "nope", Prompt: prompt("hi")})
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("prompt for an unknown session: %v, want -32602", err)
	}
	// session/load of an id the agent never made works (no history) and
	// connects its servers.
	if _, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "loaded", Cwd: t.TempDir(), McpServers: []acp.McpServer{httpServer(t, "web")}}); err != nil {
		t.Fatal(err)
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: "loaded", Prompt: prompt(`echo {"text":"x"}`)})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt in a loaded session: %v %v", resp.StopReason, err)
	}
}

// TestWithACPX uses the real acpx client, which starts the agent as a
// process, with a real stdio MCP server; afterwards nothing of the run may
// be left in the process table.
func TestWithACPX(t *testing.T) {
	env := peerrun.NewEnv(t)
	env.Set(roleVar + "=agent")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	x := peerrun.ACPX{Env: env, Agent: peerrun.ShellJoin([]string{exe}), MCPServers: []any{peerrun.MCPStdioServer(t, "tools")}}
	tr, err := x.Exec(context.Background(), t, "start\n"+`echo {"text":"via acpx"}`+"\n"+`tools_fail {"message":"bad"}`)
	if err != nil {
		t.Fatal(err)
	}
	calls, order := tr.ToolCalls()
	if len(order) != 2 {
		t.Fatalf("tool calls %v, want 2", order)
	}
	if c := calls[order[0]]; c.Title != "echo" || c.Status != "completed" || c.Text() != "echo: via acpx" {
		t.Errorf("first call %+v (text %q)", c, c.Text())
	}
	if c := calls[order[1]]; c.Title != "tools_fail" || c.Status != "failed" || c.Text() != "bad" {
		t.Errorf("second call %+v (text %q)", c, c.Text())
	}
	if got, want := tr.AgentText(), "start\necho: via acpx\nbad\n"; got != want {
		t.Errorf("agent text %q, want %q", got, want)
	}
	if tr.StopReason() != "end_turn" {
		t.Errorf("stop reason %q", tr.StopReason())
	}
	env.RequireNoLeftovers(t)
}

// TestCLIAgentWithACPX runs the built `acp-lsp agent` subcommand under acpx.
func TestCLIAgentWithACPX(t *testing.T) {
	bin := peerrun.BuildACPLSP(t)
	env := peerrun.NewEnv(t)
	x := peerrun.ACPX{Env: env, Agent: peerrun.ShellJoin([]string{bin, "agent"}),
		MCPServers: []any{peerrun.HTTPServer("web", peerrun.ServeMCPHTTP(t))}}
	tr, err := x.Exec(context.Background(), t, `echo {"text":"cli"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.AgentText(), "echo: cli\n"; got != want {
		t.Errorf("agent text %q, want %q", got, want)
	}
	var init struct {
		AgentCapabilities struct {
			McpCapabilities struct {
				HTTP bool `json:"http"`
			} `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	for _, m := range tr.Messages {
		if m.Method == "" && len(m.Result) > 0 && strings.Contains(string(m.Result), "agentCapabilities") {
			if err := json.Unmarshal(m.Result, &init); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !init.AgentCapabilities.McpCapabilities.HTTP || init.AgentInfo.Name != Name {
		t.Errorf("initialize result %+v", init)
	}
	env.RequireNoLeftovers(t)
}

// BenchmarkToolCallRoundTrip measures one prompt with one tool call through
// the agent to a stdio MCP server and back, with all its session updates.
func BenchmarkToolCallRoundTrip(b *testing.B) {
	for _, kind := range []string{"stdio", "http"} {
		b.Run(kind, func(b *testing.B) {
			conn, _ := connectB(b)
			ctx := context.Background()
			var srv acp.McpServer
			if kind == "stdio" {
				srv = stdioServer(b, "tools")
			} else {
				srv = httpServer(b, "tools")
			}
			sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: b.TempDir(), McpServers: []acp.McpServer{srv}})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: prompt(`echo {"text":"x"}`)})
				if err != nil || resp.StopReason != acp.StopReasonEndTurn {
					b.Fatal(resp.StopReason, err)
				}
			}
		})
	}
}

func TestPermissionAndExtensionLines(t *testing.T) {
	conn, c := connect(t)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{httpServer(t, "web")}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(permit, text string) acp.StopReason {
		t.Helper()
		c.mu.Lock()
		c.permit, c.updates, c.asked = permit, nil, nil
		c.mu.Unlock()
		resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: prompt(text)})
		if err != nil {
			t.Fatal(err)
		}
		return resp.StopReason
	}
	tests := []struct {
		permit, prompt string
		stop           acp.StopReason
		want           []string
		asked          []string
	}{
		{"allow", `?echo {"text":"ok"}`, acp.StopReasonEndTurn, []string{
			"tool_call pending echo map[text:ok]", "tool_call_update in_progress",
			"tool_call_update completed echo: ok", "text echo: ok\n"}, []string{"echo map[text:ok]"}},
		{"reject", `?echo {"text":"no"}`, acp.StopReasonEndTurn, []string{
			"tool_call pending echo map[text:no]",
			"tool_call_update failed permission denied by the client", "text permission denied by the client\n"}, []string{"echo map[text:no]"}},
		{"", "?echo {\"text\":\"stop\"}\nnot reached", acp.StopReasonCancelled, []string{
			"tool_call pending echo map[text:stop]"}, []string{"echo map[text:stop]"}},
		{"allow", "_test/ping {\"n\":1}\n_test/unknown {}", acp.StopReasonEndTurn, []string{
			`text _test/ping -> {"pong":{"n":1}}` + "\n",
			`text _test/unknown failed: {"code":-32601,"message":"Method not found","data":{"method":"_test/unknown"}}` + "\n"}, nil},
	}
	for _, tt := range tests {
		if stop := run(tt.permit, tt.prompt); stop != tt.stop {
			t.Errorf("%q: stop reason %q, want %q", tt.prompt, stop, tt.stop)
		}
		if diff := cmp.Diff(tt.want, c.got()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.prompt, diff)
		}
		c.mu.Lock()
		asked := c.asked
		c.mu.Unlock()
		if diff := cmp.Diff(tt.asked, asked); diff != "" {
			t.Errorf("%q: permission requests (-want +got):\n%s", tt.prompt, diff)
		}
	}
}
