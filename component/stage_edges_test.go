package component

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// stageSession runs st in a chain, initializes it (agent without HTTP) and
// opens session S1 in a new folder; it returns the ends and the folder.
func stageSession(t *testing.T, st *Stage) (editor, agent *end, root string) {
	t.Helper()
	root = t.TempDir()
	editor, agent, _ = runStage(t, st)
	editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	editor.recv(t)
	editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
	agent.recv(t)
	agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
	editor.recv(t)
	if st.Tool().SessionByACP("S1") == nil {
		t.Fatal("session S1 not bound")
	}
	return editor, agent, root
}

func liveSessions(c *Tool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessions)
}

// TestStageAgentWriteTouchesOnSuccess: a file counts as written by the
// agent once the editor confirmed its fs/write_text_file; a write the
// editor refused changed nothing, so that file's errors stay out of the
// next prompt.
func TestStageAgentWriteTouchesOnSuccess(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string
		inject bool
	}{
		{"written", `"result":null`, true},
		{"written, empty object", `"result":{}`, true},
		{"refused", `"error":{"code":-32603,"message":"read-only file"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
			if err != nil {
				t.Fatal(err)
			}
			editor, agent, root := stageSession(t, st)
			path := filepath.Join(root, "a.go")
			os.WriteFile(path, []byte("package a\n"), 0o644)
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"_lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":"boom"}]}}`, edit.URIFromPath(path)))

			agent.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"sessionId":"S1","path":%q,"content":"package a\n"}}`, path))
			m := editor.recv(t)
			if string(m["method"]) != `"fs/write_text_file"` {
				t.Fatalf("editor got %s", m["method"])
			}
			editor.send(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,`+tc.answer+`}`)
			if m = agent.recv(t); string(m["id"]) != "7" {
				t.Fatalf("agent got %v", m)
			}

			editor.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"go on"}]}}`)
			m = agent.recv(t)
			if got := strings.Contains(string(m["params"]), "a.go:1:1: error: boom"); got != tc.inject {
				t.Errorf("error of a.go injected %v, want %v: %s", got, tc.inject, m["params"])
			}
		})
	}
}

// TestStageSessionRebound: a load or resume of a live session gives the
// agent a new entry for the same id; session/close of that id then ends
// every MCP server handed out for it (before, the first one kept
// accepting for good), and a fork whose answer names no session never
// takes its source's id.
func TestStageSessionRebound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		answer string // the agent's result
	}{
		{"load", "session/load", `null`},
		{"resume", "session/resume", `{}`},
		{"load answered with the id", "session/load", `{"sessionId":"S1"}`},
		{"fork answered without an id", "session/fork", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
			if err != nil {
				t.Fatal(err)
			}
			c := st.Tool()
			editor, agent, root := stageSession(t, st)
			s1 := c.SessionByACP("S1")
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":%q,"params":{"sessionId":"S1","cwd":%q,"mcpServers":[]}}`, tc.method, root))
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":2,"result":`+tc.answer+`}`)
			editor.recv(t)
			if tc.method == "session/fork" {
				if c.SessionByACP("S1") != s1 {
					t.Fatal("the fork took its source's id")
				}
				return
			}
			if s := c.SessionByACP("S1"); s == nil || s == s1 {
				t.Fatalf("S1 bound to %p after %s (was %p)", s, tc.method, s1)
			}
			// The agent may still be connected to the first entry: it
			// lasts until the session ends.
			if n := liveSessions(c); n != 2 {
				t.Errorf("%d MCP servers accepting after %s, want the old and the new", n, tc.method)
			}
			editor.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/close","params":{"sessionId":"S1"}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":3,"result":{}}`)
			editor.recv(t)
			if n := liveSessions(c); n != 0 {
				t.Errorf("%d MCP servers still accepting after session/close of the only session", n)
			}
		})
	}
}
