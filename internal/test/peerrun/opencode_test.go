package peerrun

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	MaybeServeMCP()
	goleak.VerifyTestMain(m)
}

// TestOpencodeCallsStdioMCPToolThroughACPX drives real acpx → real opencode
// → fake model → a stdio MCP server that acpx passed in session/new.
func TestOpencodeCallsStdioMCPToolThroughACPX(t *testing.T) {
	model, err := fakemodel.Start(fakemodel.Script{Calls: []fakemodel.Call{
		{Tool: `^tools_echo$`, Arguments: `{"text":"hello from the model"}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	oc := NewOpencode(t, model)
	x := ACPX{Env: oc.Env, Agent: oc.CommandLine(), MCPServers: []any{MCPStdioServer(t, "tools")}}
	tr, err := x.Exec(context.Background(), t, "please echo something")
	if err != nil {
		t.Fatal(err)
	}
	want := EchoPrefix + "hello from the model"

	calls, order := tr.ToolCalls()
	if len(order) != 1 {
		t.Fatalf("tool calls in transcript: %v, want 1\n%s", order, tr.AgentText())
	}
	c := calls[order[0]]
	if c.Status != "completed" || !strings.Contains(string(c.RawOutput)+c.Text(), want) {
		t.Errorf("tool call %s: status %q, output %s %q; want completed with %q", c.ToolCallID, c.Status, c.RawOutput, c.Text(), want)
	}
	if got := tr.AgentText(); !strings.Contains(got, fakemodel.FinalPrefix+want) {
		t.Errorf("agent text %q does not quote the tool result %q", got, want)
	}
	if tr.StopReason() != "end_turn" {
		t.Errorf("stop reason %q", tr.StopReason())
	}

	var sawOffer, sawResult bool
	for _, r := range model.Requests() {
		sawOffer = sawOffer || r.Offers("tools_echo")
		for _, res := range r.ToolResults() {
			sawResult = sawResult || strings.Contains(res, want)
		}
	}
	if !sawOffer || !sawResult {
		t.Errorf("model saw the tool offered: %v, its result: %v", sawOffer, sawResult)
	}
	oc.RequireNoLeftovers(t)
}

// TestOpencodeDirectHTTPToolSequence starts opencode itself, speaks ACP to
// it with the SDK client, gives it a streamable-HTTP MCP server, and has the
// fake model call two tools in one turn. Closing stdin must end opencode and
// everything it started.
func TestOpencodeDirectHTTPToolSequence(t *testing.T) {
	ctx := context.Background()
	model, err := fakemodel.Start(fakemodel.Script{Calls: []fakemodel.Call{
		{Tool: `^web_echo$`, Arguments: `{"text":"first"}`},
		{Tool: `^web_fail$`, Arguments: `{"message":"second failed"}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	oc := NewOpencode(t, model)
	p := oc.Start(t, "")
	client := NewClient()
	conn := p.Connect(client)
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err, p.Stderr())
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: oc.Dir, McpServers: []acp.McpServer{
		{Http: &acp.McpServerHttpInline{Type: "http", Name: "web", Url: ServeMCPHTTP(t), Headers: []acp.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err, p.Stderr())
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("run both")}})
	if err != nil {
		t.Fatal(err, p.Stderr())
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q", resp.StopReason)
	}

	// The model saw the first result before it asked for the second tool,
	// and both before it answered.
	var calls []string
	var lastResults []string
	for _, r := range model.Requests() {
		if r.Answer.ToolCall != nil {
			calls = append(calls, r.Answer.ToolCall.Name)
		}
		if r.Offers("web_echo") {
			lastResults = r.ToolResults()
		}
	}
	if diff := cmp.Diff([]string{"web_echo", "web_fail"}, calls); diff != "" {
		t.Errorf("tool calls the model made (-want +got):\n%s", diff)
	}
	if len(lastResults) != 2 || lastResults[0] != EchoPrefix+"first" || !strings.Contains(lastResults[1], "second failed") {
		t.Errorf("tool results the model finally saw: %q", lastResults)
	}
	var text strings.Builder
	statuses := map[acp.ToolCallId]acp.ToolCallStatus{}
	for _, n := range client.Updates() {
		u := n.Update
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			statuses[u.ToolCallUpdate.ToolCallId] = *u.ToolCallUpdate.Status
		}
	}
	if !strings.Contains(text.String(), fakemodel.FinalPrefix) || !strings.Contains(text.String(), "second failed") {
		t.Errorf("agent text %q does not quote the last tool result", text.String())
	}
	var got []string
	for _, s := range statuses {
		got = append(got, string(s))
	}
	sort.Strings(got)
	if diff := cmp.Diff([]string{"completed", "failed"}, got); diff != "" {
		t.Errorf("final tool call statuses (-want +got):\n%s", diff)
	}

	// opencode exits when its stdin closes, leaving nothing behind.
	p.Stdin.Close()
	<-p.Done()
	oc.RequireNoLeftovers(t)
}

// TestLeftoversSeesMarkedProcess proves the leftover check can fail: a
// marked process is found while it runs and gone once reaped.
func TestLeftoversSeesMarkedProcess(t *testing.T) {
	env := NewEnv(t)
	p, err := StartProcess(env.Vars, env.Dir, "sleep", "1000")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := Leftovers(env.Mark)
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 1 || procs[0].PID != p.Cmd.Process.Pid || !strings.Contains(procs[0].Cmdline, "sleep 1000") {
		t.Errorf("Leftovers = %+v, want the sleep process %d", procs, p.Cmd.Process.Pid)
	}
	if err := reap.KillGroup(p.Cmd.Process); err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	env.RequireNoLeftovers(t)
	if err := p.Stop(); err != nil {
		t.Errorf("Stop after exit: %v", err)
	}
}

func TestTranscript(t *testing.T) {
	nd := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}

{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"echo","status":"pending","rawInput":{"text":"x"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"echo: x"}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}
{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}
`
	tr, err := ParseTranscript([]byte(nd))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Messages) != 5 || len(tr.Requests("session/prompt")) != 1 || len(tr.Updates()) != 3 {
		t.Fatalf("parsed %d messages, %d updates", len(tr.Messages), len(tr.Updates()))
	}
	calls, order := tr.ToolCalls()
	c := calls["c1"]
	if diff := cmp.Diff([]string{"c1"}, order); diff != "" || c.Title != "echo" || c.Status != "completed" || c.Text() != "echo: x" || string(c.RawInput) != `{"text":"x"}` {
		t.Errorf("tool call %+v %s", c, diff)
	}
	if tr.AgentText() != "done" || tr.StopReason() != "end_turn" {
		t.Errorf("text %q stop %q", tr.AgentText(), tr.StopReason())
	}
	if _, err := ParseTranscript([]byte("{\"id\":1}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
}

func FuzzParseTranscript(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[{"content":{"text":"t"}}]}}}`))
	f.Add([]byte("{}\n\n[]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ParseTranscript(b)
		if err != nil {
			return
		}
		tr.ToolCalls()
		tr.AgentText()
		tr.StopReason()
	})
}

func TestShellJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"/bin/opencode", "acp"}, "/bin/opencode acp"},
		{[]string{"acp-lsp", "--", "my agent", "it's"}, `acp-lsp -- 'my agent' 'it'\''s'`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		if got := ShellJoin(tt.argv); got != tt.want {
			t.Errorf("ShellJoin(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}

// TestInspectorSeesTestMCPServer checks the test MCP server against a real
// MCP client, with strict schema checks, over stdio and streamable HTTP.
func TestInspectorSeesTestMCPServer(t *testing.T) {
	ctx := context.Background()
	env := NewEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The inspector does not pass its environment on: hand the mark over
	// too, so the leftover check sees the server it spawns.
	stdio := []string{exe, "-e", MCPRoleVar + "=stdio", "-e", MarkVar + "=" + env.Mark}
	for _, server := range [][]string{stdio, {ServeMCPHTTP(t)}} {
		out, err := Inspector(ctx, t, env, append(server, "--method", "tools/list", "--strict")...)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := json.Unmarshal(out, &list); err != nil {
			t.Fatalf("tools/list output %q: %v", out, err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if diff := cmp.Diff([]string{"block", "echo", "fail"}, names); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", server[0], diff)
		}
		out, err = Inspector(ctx, t, env, append(server, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"text": "echo: hi"`) {
			t.Errorf("%s: echo answered %s", server[0], out)
		}
	}
	env.RequireNoLeftovers(t)
}

func TestEnvIsolatesHomeButKeepsGoCaches(t *testing.T) {
	env := NewEnv(t)
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "env", "GOCACHE", "GOMODCACHE")
	cmd.Env = env.Vars
	inside, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(inside) != string(out) {
		t.Errorf("go caches inside the sandbox %q, outside %q", inside, out)
	}
	if h := env.Home(); !strings.HasPrefix(h, env.Dir) || env.Get("XDG_CONFIG_HOME") != filepath.Join(h, ".config") {
		t.Errorf("HOME %q, XDG_CONFIG_HOME %q not under %q", h, env.Get("XDG_CONFIG_HOME"), env.Dir)
	}
	if env.Get(MarkVar) != env.Mark || env.Mark == "" {
		t.Errorf("mark %q, var %q", env.Mark, env.Get(MarkVar))
	}
}

// TestEnvTelemetryOff: go commands run in the sandbox leave no telemetry
// behind (a detached child writing there raced the folder's removal).
func TestEnvTelemetryOff(t *testing.T) {
	env := NewEnv(t)
	cmd := exec.Command("go", "telemetry")
	cmd.Env = env.Vars
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "off" {
		t.Errorf("go telemetry in the sandbox: %q, want off", out)
	}
	if _, err := os.Stat(filepath.Join(env.Get("XDG_CONFIG_HOME"), "go", "telemetry", "local")); err == nil {
		t.Error("telemetry counters written in the sandbox")
	}
}
