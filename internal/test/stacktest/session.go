package stacktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
)

// Initialize runs initialize step by step: the editor sends it with
// clientCaps as its clientCapabilities (raw JSON), the agent answers with
// agentCaps as its agentCapabilities. It returns the request as the agent
// got it and the answer as the editor got it, and fails t when either is
// not what it should be.
func (c *Chain) Initialize(t testing.TB, clientCaps, agentCaps string) (atAgent, atEditor acptest.Msg) {
	t.Helper()
	c.Editor.Sendf(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":%s}}`, clientCaps)
	atAgent = c.Agent.Next(t)
	if atAgent.Method != "initialize" {
		t.Fatalf("agent got %s", atAgent.Raw)
	}
	c.Agent.Sendf(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":%s}}`, agentCaps)
	atEditor = c.Editor.Next(t)
	if string(atEditor.ID) != "0" || atEditor.Result == nil {
		t.Fatalf("editor got %s", atEditor.Raw)
	}
	return atAgent, atEditor
}

// NewSession runs session/new step by step on cwd, with dirs as its
// additionalDirectories when there are any; the agent answers with
// session id S1. It returns the request as the agent got it and the MCP
// server entries it carried (those the chain injected), and fails t when
// the request or the answer is not what it should be.
func (c *Chain) NewSession(t testing.TB, cwd string, dirs ...string) (atAgent acptest.Msg, entries []Entry) {
	t.Helper()
	extra := ""
	if len(dirs) > 0 {
		b, _ := json.Marshal(dirs)
		extra = fmt.Sprintf(`,"additionalDirectories":%s`, b)
	}
	c.Editor.Sendf(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q%s,"mcpServers":[]}}`, cwd, extra)
	atAgent = c.Agent.Next(t)
	if atAgent.Method != "session/new" {
		t.Fatalf("agent got %s", atAgent.Raw)
	}
	entries, err := Entries(atAgent.Params)
	if err != nil {
		t.Fatalf("session/new reached the agent as %s: %v", atAgent.Raw, err)
	}
	c.Agent.Sendf(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
	if r := c.Editor.Next(t); string(r.ID) != "1" {
		t.Fatalf("editor got %s", r.Raw)
	}
	return atAgent, entries
}

// Entry is one MCP server entry of a session setup's mcpServers.
type Entry struct {
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	URL     string   `json:"url"`
	Headers []Header `json:"headers"`
}

// Header is one HTTP header of an Entry.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Token is e's bearer token: its Authorization header's value without
// "Bearer ", or "".
func (e Entry) Token() string {
	for _, h := range e.Headers {
		if strings.EqualFold(h.Name, "Authorization") {
			return strings.TrimPrefix(h.Value, "Bearer ")
		}
	}
	return ""
}

// Entries returns the mcpServers of a session setup's params.
func Entries(params json.RawMessage) ([]Entry, error) {
	var p struct {
		MCPServers []Entry `json:"mcpServers"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("mcpServers: %w", err)
	}
	return p.MCPServers, nil
}

// Connect connects an MCP client to e, the injected lsp tool, as an agent
// does: over streamable HTTP, sending e's first header with every
// request. It fails t unless e is an HTTP entry with a header; the client
// is closed when t ends.
func Connect(t testing.TB, e *Entry) *mcp.ClientSession {
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

// headerTransport adds one header to every request, as an agent sends an
// entry's headers.
type headerTransport struct{ name, value string }

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// CallTool calls the lsp tool with args, waiting up to Wait, and returns
// its text (every text content, joined), whether it is an error, and its
// structuredContent; a failed call fails t.
func CallTool(t testing.TB, cs *mcp.ClientSession, args map[string]any) (text string, isError bool, structured json.RawMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		t.Fatalf("call %v: %v", args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	sc, _ := json.Marshal(res.StructuredContent)
	return b.String(), res.IsError, sc
}
