package component

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
)

// The entries a session setup may reach the agent with, the values that
// differ per run (socket, address, token) written as SOCK, URL and TOKEN.
const (
	entryStdioV1 = `{"args":["mcp-bridge","--socket","SOCK"],"command":"/opt/acp-lsp","env":[],"name":"acp-lsp"}`
	entryStdioV2 = `{"args":["mcp-bridge","--socket","SOCK"],"command":"/opt/acp-lsp","env":[],"name":"acp-lsp","type":"stdio"}`
	entryHTTP    = `{"headers":[{"name":"Authorization","value":"Bearer TOKEN"}],"name":"acp-lsp","type":"http","url":"URL"}`
	entryNone    = ""
)

// TestEntryPerProtocolVersion: the lsp entry a session/new reaches the
// agent with, for what the agent's initialize result says. v1: stdio
// without "type" (agents exist that reject one), http only when
// agentCapabilities.mcpCapabilities.http is true. v2 (protocolVersion 2):
// the transports under capabilities.mcp or capabilities.session.mcp (both
// snapshots of the draft), {} taken, null or absent not; http preferred,
// stdio entries with "type":"stdio", neither: no entry, a warning in the
// log, and the session still set up (new errors still reach prompts). A
// configured transport is used whatever the agent says.
func TestEntryPerProtocolVersion(t *testing.T) {
	for _, tc := range []struct {
		name      string
		result    string
		transport Transport
		want      string
	}{
		{"v1 no mcpCapabilities", `{"protocolVersion":1,"agentCapabilities":{}}`, TransportAuto, entryStdioV1},
		{"v1 http true", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, TransportAuto, entryHTTP},
		{"v1 http false", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":false,"sse":true}}}`, TransportAuto, entryStdioV1},
		{"v1 http null", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":null}}}`, TransportAuto, entryStdioV1},
		{"v1 http {}", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":{}}}}`, TransportAuto, entryStdioV1},
		{"no protocolVersion", `{"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, TransportAuto, entryHTTP},
		{"v1 ignores v2 keys", `{"protocolVersion":1,"capabilities":{"mcp":{"http":{}}}}`, TransportAuto, entryStdioV1},
		{"empty result", `{}`, TransportAuto, entryStdioV1},

		{"v2 mcp stdio", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":{}}}}`, TransportAuto, entryStdioV2},
		{"v2 mcp http", `{"protocolVersion":2,"capabilities":{"mcp":{"http":{}}}}`, TransportAuto, entryHTTP},
		{"v2 mcp both", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":{},"http":{}}}}`, TransportAuto, entryHTTP},
		{"v2 mcp neither", `{"protocolVersion":2,"capabilities":{"mcp":{}}}`, TransportAuto, entryNone},
		{"v2 mcp stdio null", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":null}}}`, TransportAuto, entryNone},
		{"v2 mcp stdio null http {}", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":null,"http":{}}}}`, TransportAuto, entryHTTP},
		{"v2 mcp http null stdio {}", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":{},"http":null}}}`, TransportAuto, entryStdioV2},
		{"v2 mcp stdio false", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":false}}}`, TransportAuto, entryNone},
		{"v2 mcp null", `{"protocolVersion":2,"capabilities":{"mcp":null}}`, TransportAuto, entryNone},
		{"v2 no capabilities", `{"protocolVersion":2}`, TransportAuto, entryNone},
		{"v2 session.mcp stdio", `{"protocolVersion":2,"capabilities":{"session":{"mcp":{"stdio":{}}}}}`, TransportAuto, entryStdioV2},
		{"v2 session.mcp http", `{"protocolVersion":2,"capabilities":{"session":{"mcp":{"http":{}}}}}`, TransportAuto, entryHTTP},
		{"v2 session.mcp both", `{"protocolVersion":2,"capabilities":{"session":{"load":{},"mcp":{"stdio":{},"http":{}}}}}`, TransportAuto, entryHTTP},
		{"v2 session.mcp neither", `{"protocolVersion":2,"capabilities":{"session":{"mcp":{"stdio":null,"http":null}}}}`, TransportAuto, entryNone},
		{"v2 session without mcp", `{"protocolVersion":2,"capabilities":{"session":{"load":{}}}}`, TransportAuto, entryNone},
		{"v2 spellings mixed", `{"protocolVersion":2,"capabilities":{"mcp":{"stdio":{}},"session":{"mcp":{"http":{}}}}}`, TransportAuto, entryHTTP},
		{"v2 ignores v1 keys", `{"protocolVersion":2,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, TransportAuto, entryNone},

		{"v2 neither, stdio configured", `{"protocolVersion":2}`, TransportStdio, entryStdioV2},
		{"v2 neither, http configured", `{"protocolVersion":2}`, TransportHTTP, entryHTTP},
		{"v1 http, stdio configured", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, TransportStdio, entryStdioV1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var logs syncbuf.Buffer
			st, err := NewStage(Config{Executable: "/opt/acp-lsp", Transport: tc.transport, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			editor, agent, _ := runStage(t, st)
			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":0,"result":`+tc.result+`}`)
			editor.recv(t)
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
			m := agent.recv(t)
			var p struct {
				MCPServers []map[string]any `json:"mcpServers"`
			}
			if err := json.Unmarshal(m["params"], &p); err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(p.MCPServers) > 1 {
				t.Fatalf("%d entries: %s", len(p.MCPServers), m["params"])
			}
			if len(p.MCPServers) == 1 {
				got = normalizeEntry(st.Tool(), p.MCPServers[0])
			}
			if got != tc.want {
				t.Errorf("entry\n got %s\nwant %s", got, tc.want)
			}
			agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
			editor.recv(t)
			if st.Tool().SessionByACP("S1") == nil {
				t.Error("session not bound: new errors would not reach its prompts")
			}
			if warned := strings.Contains(logs.String(), "no MCP transport"); warned != (tc.want == entryNone) {
				t.Errorf("warning logged: %v, want %v; log:\n%s", warned, tc.want == entryNone, logs.String())
			}
		})
	}
}

// normalizeEntry writes an entry as canonical JSON with its per-run values
// replaced by SOCK, URL and TOKEN (when they are c's).
func normalizeEntry(c *Tool, e map[string]any) string {
	if args, ok := e["args"].([]any); ok && len(args) == 3 {
		if s, ok := args[2].(string); ok && strings.HasPrefix(s, c.SocketDir()+"/") {
			args[2] = "SOCK"
		}
	}
	if e["url"] == "http://"+c.HTTPAddr()+"/mcp" {
		e["url"] = "URL"
	}
	if hs, ok := e["headers"].([]any); ok && len(hs) == 1 {
		if h, ok := hs[0].(map[string]any); ok {
			if v, ok := h["value"].(string); ok && strings.HasPrefix(v, "Bearer ") && len(v) > len("Bearer ") {
				h["value"] = "Bearer TOKEN"
			}
		}
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// FuzzParseAgentMCP: ParseAgentMCP takes any initialize result without
// panicking, a v1 agent always takes stdio, and for valid JSON its verdict
// is the one a plain decode of the same result gives.
func FuzzParseAgentMCP(f *testing.F) {
	for _, s := range []string{
		`{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}},"agentInfo":{"name":"a","version":"1"}}`,
		`{"protocolVersion":2,"capabilities":{"mcp":{"stdio":{},"http":null}}}`,
		`{"protocolVersion":2,"capabilities":{"session":{"mcp":{"http":{}}}}}`,
		`{"protocolVersion":2.0,"capabilities":{"mcp":{"stdio":true}}}`,
		`{"protocolVersion":"2"}`, `{"protocolVersion":2,"capabilities":{"mcp":[]}}`, `null`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a := ParseAgentMCP(b)
		if a.Version < 1 || (a.Version < 2 && !a.Stdio) {
			t.Fatalf("%s: %+v", b, a)
		}
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		var m map[string]any
		if !json.Valid(b) || d.Decode(&m) != nil || m == nil {
			return
		}
		want := AgentMCP{Version: 1}
		if n, ok := m["protocolVersion"].(json.Number); ok {
			if v, err := n.Int64(); err == nil && v > 0 && int64(int(v)) == v {
				want.Version = int(v)
			}
		}
		at := func(path ...string) (any, bool) {
			var v any = m
			for _, k := range path {
				o, ok := v.(map[string]any)
				if !ok {
					return nil, false
				}
				if v, ok = o[k]; !ok {
					return nil, false
				}
			}
			return v, true
		}
		if s, ok := at("agentInfo", "name"); ok {
			want.Name, _ = s.(string)
		}
		if s, ok := at("agentInfo", "version"); ok {
			want.AgentVersion, _ = s.(string)
		}
		if want.Version < 2 {
			want.Stdio = true
			v, _ := at("agentCapabilities", "mcpCapabilities", "http")
			want.HTTP = v == true
		} else {
			given := func(path ...string) bool {
				v, _ := at(path...)
				_, obj := v.(map[string]any)
				return obj || v == true
			}
			want.Stdio = given("capabilities", "mcp", "stdio") || given("capabilities", "session", "mcp", "stdio")
			want.HTTP = given("capabilities", "mcp", "http") || given("capabilities", "session", "mcp", "http")
		}
		if a != want {
			t.Fatalf("%s:\n got %+v\nwant %+v", b, a, want)
		}
	})
}
