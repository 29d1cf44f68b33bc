package component

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// signalHandler is a slog handler writing text to a buffer that also
// signals, on hit, each record whose message contains match.
type signalHandler struct {
	slog.Handler
	match string
	hit   chan string
}

func (h *signalHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r) // written before it is signalled
	if strings.Contains(r.Message, h.match) {
		h.hit <- r.Message
	}
	return err
}

// TestUnopenedServerWarning: a scripted agent that never opens the
// injected MCP server gets one warning per session: in the log, naming the
// agent (agentInfo) and the transport, once the bound has passed after the
// first prompt; and one line in the session, as the last update of the
// turn, just before its answer. The second turn carries no second line,
// and the errors the agent's write brought still reach its prompt. A v2
// agent that takes no transport gets no entry and the line of its own at
// the end of its first turn.
func TestUnopenedServerWarning(t *testing.T) {
	for _, tc := range []struct {
		name, result, logMatch, line string
	}{
		{"v1 stdio never opened", `{"protocolVersion":1,"agentInfo":{"name":"lazy-agent","version":"0.1"},"agentCapabilities":{}}`,
			"has not opened", "acp-lsp: lazy-agent 0.1 has not opened the lsp tool (an MCP server over stdio added to this session)"},
		{"v1 http never opened", `{"protocolVersion":1,"agentInfo":{"name":"lazy-agent"},"agentCapabilities":{"mcpCapabilities":{"http":true}}}`,
			"has not opened", "acp-lsp: lazy-agent has not opened the lsp tool (an MCP server over http added to this session)"},
		{"v2 no transport", `{"protocolVersion":2,"agentInfo":{"name":"v2-agent","version":"2"},"capabilities":{}}`,
			"no MCP transport", "acp-lsp: v2-agent 2 advertises no MCP transport acp-lsp can offer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "main.go")
			os.WriteFile(path, []byte(mainGo), 0o644)
			var logs syncbuf.Buffer
			h := &signalHandler{Handler: slog.NewTextHandler(&logs, nil), match: tc.logMatch, hit: make(chan string, 4)}
			// The shortest bound: the warning is due the moment the first
			// prompt goes down, which the test waits for in the log.
			st, err := NewStage(Config{Executable: "/opt/acp-lsp", ConnectWarning: time.Nanosecond, Logger: slog.New(h)})
			if err != nil {
				t.Fatal(err)
			}
			editor, agent, _ := runStage(t, st)
			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":0,"result":`+tc.result+`}`)
			editor.recv(t)
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
			editor.recv(t)

			chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`
			for turn := 2; turn <= 3; turn++ {
				editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"go on"}]}}`, turn))
				m := agent.recv(t)
				if turn == 2 {
					<-h.hit
					// The agent writes main.go through the editor, which
					// has an error for it: the next prompt must say so.
					uri := edit.URIFromPath(path)
					editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"_lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"severity":1,"message":"broken"}]}}`, uri))
					agent.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":50,"method":"fs/write_text_file","params":{"sessionId":"S1","path":%q,"content":"x"}}`, path))
					editor.recv(t)
					editor.send(t, `{"jsonrpc":"2.0","id":50,"result":null}`)
					agent.recv(t)
				} else if !strings.Contains(string(m["params"]), "main.go:1:1: error: broken") {
					t.Errorf("second prompt reached the agent without the new error: %s", m["params"])
				}
				agent.send(t, chunk)
				agent.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, turn))
				if got := editor.recv(t); !strings.Contains(string(got["params"]), `"text":"done"`) {
					t.Fatalf("turn %d: editor got %s before the agent's chunk", turn, got)
				}
				got := editor.recv(t)
				if turn == 2 {
					var p struct {
						SessionID string `json:"sessionId"`
						Update    struct {
							SessionUpdate string `json:"sessionUpdate"`
							Content       struct{ Type, Text string }
						} `json:"update"`
					}
					json.Unmarshal(got["params"], &p)
					if string(got["method"]) != `"session/update"` || p.SessionID != "S1" || p.Update.SessionUpdate != "agent_message_chunk" ||
						!strings.HasPrefix(p.Update.Content.Text, "\n\n"+tc.line) || strings.Count(p.Update.Content.Text, "\n") != 3 {
						t.Fatalf("turn 2 ended with %s, want the line %q", got, tc.line)
					}
					got = editor.recv(t)
				}
				if string(got["id"]) != fmt.Sprint(turn) || !strings.Contains(string(got["result"]), "end_turn") {
					t.Fatalf("turn %d: editor got %s, want the turn's answer", turn, got)
				}
			}
			if n := strings.Count(logs.String(), tc.logMatch); n != 1 {
				t.Errorf("%d warnings logged, want 1:\n%s", n, logs.String())
			}
			log := logs.String()
			for _, want := range []string{"agent=", "lazy-agent", "transport=stdio", "mcp.transport"} {
				if tc.name == "v1 stdio never opened" && !strings.Contains(log, want) {
					t.Errorf("log does not name %q:\n%s", want, log)
				}
			}
		})
	}
}

// TestReloadOfOpenedSession: an agent that opened a session's server and
// is then given a new entry by a session/load of that live session may keep
// its first connection (which still serves it): no warning, no line.
func TestReloadOfOpenedSession(t *testing.T) {
	root := t.TempDir()
	var logs syncbuf.Buffer
	st, err := NewStage(Config{Executable: "/opt/acp-lsp", ConnectWarning: time.Nanosecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	editor, agent, _ := runStage(t, st)
	editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}}`)
	editor.recv(t)
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
	m := agent.recv(t)
	var p struct {
		MCPServers []struct {
			URL     string
			Headers []struct{ Name, Value string }
		} `json:"mcpServers"`
	}
	json.Unmarshal(m["params"], &p)
	// The agent opens the entry: any request with its token.
	req, _ := http.NewRequest(http.MethodGet, p.MCPServers[0].URL, nil)
	req.Header.Set(p.MCPServers[0].Headers[0].Name, p.MCPServers[0].Headers[0].Value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
	editor.recv(t)
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"S1","cwd":%q,"mcpServers":[]}}`, root))
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":2,"result":null}`)
	editor.recv(t)
	if s := st.Tool().SessionByACP("S1"); !s.watch.isOpened() {
		t.Error("the reloaded session counts as unopened")
	}
	editor.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S1","prompt":[]}}`)
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`)
	if got := editor.recv(t); string(got["id"]) != "3" {
		t.Errorf("editor got %s, want the turn's answer alone", got)
	}
	if strings.Contains(logs.String(), "has not opened") {
		t.Errorf("warned:\n%s", logs.String())
	}
}
