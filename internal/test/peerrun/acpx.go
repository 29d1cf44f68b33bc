package peerrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// ACPX runs the real acpx client against an agent command.
type ACPX struct {
	// Env is the environment acpx (and so the agent it starts) runs in.
	Env *Env
	// Agent is the agent's command line, as acpx --agent takes it.
	Agent string
	// Cwd is the session's working folder; empty means Env.Dir.
	Cwd string
	// MCPServers are the session's MCP servers in ACP's McpServer shape
	// (stdio entries need name, command, args and env).
	MCPServers []any
}

// StdioServer builds an ACP stdio McpServer entry.
func StdioServer(name, command string, args []string, env map[string]string) map[string]any {
	vars := []map[string]string{}
	for k, v := range env {
		vars = append(vars, map[string]string{"name": k, "value": v})
	}
	if args == nil {
		args = []string{}
	}
	return map[string]any{"name": name, "command": command, "args": args, "env": vars}
}

// HTTPServer builds an ACP http McpServer entry.
func HTTPServer(name, url string) map[string]any {
	return map[string]any{"type": "http", "name": name, "url": url, "headers": []any{}}
}

// Exec runs `acpx --agent A --approve-all --format json --mcp-config F --cwd D
// exec PROMPT` in its own process group and returns its NDJSON transcript.
// A non-zero exit is an error that carries acpx's stderr; the transcript is
// returned with it.
func (x ACPX) Exec(ctx context.Context, t testing.TB, prompt string) (*Transcript, error) {
	t.Helper()
	bin := peers.Require(t, "acpx")
	cwd := x.Cwd
	if cwd == "" {
		cwd = x.Env.Dir
	}
	servers := x.MCPServers
	if servers == nil {
		servers = []any{}
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return nil, fmt.Errorf("acpx: mcp config: %w", err)
	}
	f, err := os.CreateTemp(x.Env.Dir, "mcp-*.json")
	if err != nil {
		return nil, fmt.Errorf("acpx: mcp config: %w", err)
	}
	if _, err := f.Write(cfg); err != nil {
		f.Close()
		return nil, fmt.Errorf("acpx: mcp config: %w", err)
	}
	f.Close()
	cmd := exec.CommandContext(ctx, bin, "--agent", x.Agent, "--approve-all", "--format", "json",
		"--mcp-config", f.Name(), "--cwd", cwd, "exec", prompt)
	cmd.Env, cmd.Dir = x.Env.Vars, x.Env.Dir
	reap.OwnGroup(cmd)
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	tr, perr := ParseTranscript(stdout.Bytes())
	if runErr != nil {
		return tr, fmt.Errorf("acpx exec: %w\nstderr:\n%s\nstdout:\n%s", runErr, stderr.String(), stdout.String())
	}
	if perr != nil {
		return tr, perr
	}
	if dir := os.Getenv("ACP_LSP_TRANSCRIPTS"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".ndjson"
		_ = os.WriteFile(filepath.Join(dir, name), stdout.Bytes(), 0o644)
	}
	return tr, nil
}

// Message is one JSON-RPC message of a transcript.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
	// Raw is the line as read.
	Raw json.RawMessage `json:"-"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Transcript is an ACP conversation as NDJSON, in order.
type Transcript struct {
	Messages []Message
}

// ParseTranscript reads NDJSON JSON-RPC messages; blank lines are skipped.
func ParseTranscript(b []byte) (*Transcript, error) {
	tr := &Transcript{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			return tr, fmt.Errorf("parse transcript line %d: %w: %q", n, err, line)
		}
		m.Raw = append(json.RawMessage(nil), line...)
		tr.Messages = append(tr.Messages, m)
	}
	if err := sc.Err(); err != nil {
		return tr, fmt.Errorf("parse transcript: %w", err)
	}
	return tr, nil
}

// Update is one session/update notification's update.
type Update struct {
	SessionID  string          `json:"-"`
	Kind       string          `json:"sessionUpdate"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Title      string          `json:"title,omitempty"`
	Status     string          `json:"status,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage `json:"rawOutput,omitempty"`
}

// Text returns the update's text: the text of an agent or user message
// chunk, or the joined text contents of a tool call.
func (u Update) Text() string {
	var one struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(u.Content, &one) == nil {
		return one.Text
	}
	var many []struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(u.Content, &many) == nil {
		var parts []string
		for _, c := range many {
			parts = append(parts, c.Content.Text)
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Updates returns every session/update's update, in order.
func (tr *Transcript) Updates() []Update {
	var out []Update
	for _, m := range tr.Messages {
		if m.Method != "session/update" {
			continue
		}
		var p struct {
			SessionID string `json:"sessionId"`
			Update    Update `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			p.Update.SessionID = p.SessionID
			out = append(out, p.Update)
		}
	}
	return out
}

// AgentText joins the text of every agent_message_chunk.
func (tr *Transcript) AgentText() string {
	var b strings.Builder
	for _, u := range tr.Updates() {
		if u.Kind == "agent_message_chunk" {
			b.WriteString(u.Text())
		}
	}
	return b.String()
}

// ToolCalls returns the final state of every tool call, by id, merging
// tool_call and tool_call_update messages, and the ids in first-seen order.
func (tr *Transcript) ToolCalls() (map[string]Update, []string) {
	calls := map[string]Update{}
	var order []string
	for _, u := range tr.Updates() {
		if u.Kind != "tool_call" && u.Kind != "tool_call_update" {
			continue
		}
		old, seen := calls[u.ToolCallID]
		if !seen {
			order = append(order, u.ToolCallID)
		}
		if u.Title != "" {
			old.Title = u.Title
		}
		if u.Status != "" {
			old.Status = u.Status
		}
		if len(u.Content) > 0 {
			old.Content = u.Content
		}
		if len(u.RawInput) > 0 {
			old.RawInput = u.RawInput
		}
		if len(u.RawOutput) > 0 {
			old.RawOutput = u.RawOutput
		}
		old.Kind, old.ToolCallID, old.SessionID = "tool_call", u.ToolCallID, u.SessionID
		calls[u.ToolCallID] = old
	}
	return calls, order
}

// Requests returns the messages that call method (requests and
// notifications), in order.
func (tr *Transcript) Requests(method string) []Message {
	var out []Message
	for _, m := range tr.Messages {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// StopReason returns the stopReason of the last prompt response, or "".
func (tr *Transcript) StopReason() string {
	reason := ""
	for _, m := range tr.Messages {
		var r struct {
			StopReason string `json:"stopReason"`
		}
		if m.Method == "" && len(m.Result) > 0 && json.Unmarshal(m.Result, &r) == nil && r.StopReason != "" {
			reason = r.StopReason
		}
	}
	return reason
}
