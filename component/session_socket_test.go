package component

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestSessionWithoutSocket: where no Unix socket can be made (Windows
// before 10 1803, Wine) a session still gets the lsp tool over HTTP; only
// an agent that takes stdio alone, which needs the socket, is refused.
func TestSessionWithoutSocket(t *testing.T) {
	c, err := New(Config{Executable: "/opt/acp-lsp"}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// With its folder gone, listening on a session's socket fails.
	if err := os.RemoveAll(c.SocketDir()); err != nil {
		t.Fatal(err)
	}
	params := json.RawMessage(`{"cwd":` + jsonString(t.TempDir()) + `,"mcpServers":[]}`)
	for _, tc := range []struct {
		name  string
		agent AgentMCP
		err   string // "" when the session gets an HTTP entry
	}{
		{"an agent that takes HTTP", AgentMCP{Version: 1, Stdio: true, HTTP: true}, ""},
		{"an agent that takes stdio alone", AgentMCP{Version: 1, Stdio: true}, "component: session socket: listen unix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, s, err := c.PatchSessionSetup(params, tc.agent)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if entry := string(c.Entry(s, TransportHTTP)); !strings.Contains(string(out), entry) {
				t.Fatalf("entry %s missing in %s", entry, out)
			}
			req, _ := http.NewRequest("POST", "http://"+c.HTTPAddr()+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Authorization", "Bearer "+s.token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("initialize over HTTP: status %d", resp.StatusCode)
			}
		})
	}
}
