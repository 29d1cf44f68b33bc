package stacktest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSteps: with no stages the editor's lines reach the agent as they
// were written, so Initialize and NewSession are seen whole; a session
// setup no stage injected into carries no entries, and Close ends the
// chain cleanly, twice.
func TestSteps(t *testing.T) {
	c := Start(context.Background(), Config{})
	atAgent, atEditor := c.Initialize(t, `{"fs":{}}`, `{"loadSession":true}`)
	if !strings.Contains(atAgent.Raw, `"clientCapabilities":{"fs":{}}`) || !strings.Contains(atEditor.Raw, `"agentCapabilities":{"loadSession":true}`) {
		t.Errorf("initialize: agent got %s, editor got %s", atAgent.Raw, atEditor.Raw)
	}
	m, entries := c.NewSession(t, "/w", "/x", "/y")
	if !strings.Contains(m.Raw, `"cwd":"/w","additionalDirectories":["/x","/y"],"mcpServers":[]`) || len(entries) != 0 {
		t.Errorf("session/new reached the agent as %s with entries %+v", m.Raw, entries)
	}
	for range 2 {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

// TestAnswer: the answering agent answers initialize and session/new,
// OpenSession says so when no stage injected an MCP entry, and a request
// the agent does not know is refused.
func TestAnswer(t *testing.T) {
	c := Run(t, Config{Answer: true})
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	res, err := c.Call(ctx, "initialize", map[string]any{"protocolVersion": 1})
	if err != nil || !strings.Contains(string(res), `"http":true`) {
		t.Errorf("initialize: %s %v", res, err)
	}
	if _, _, err := c.OpenSession(ctx, "/w"); err == nil || !strings.Contains(err.Error(), "without an http MCP entry") {
		t.Errorf("open session without an entry: %v", err)
	}
	if _, err := c.Call(ctx, "session/prompt", map[string]any{}); err == nil || !strings.Contains(err.Error(), "stacktest agent: session/prompt") {
		t.Errorf("unknown request: %v", err)
	}
}

// TestEntries: the entries of session setup params, and their tokens.
func TestEntries(t *testing.T) {
	for _, tt := range []struct {
		name, params string
		want         []Entry
		token        string
	}{
		{"http with a bearer", `{"mcpServers":[{"type":"http","name":"lsp","url":"http://h/mcp","headers":[{"name":"authorization","value":"Bearer abc"}]}]}`,
			[]Entry{{Type: "http", Name: "lsp", URL: "http://h/mcp", Headers: []Header{{"authorization", "Bearer abc"}}}}, "abc"},
		{"another header", `{"mcpServers":[{"type":"http","headers":[{"name":"X-Key","value":"k"}]}]}`,
			[]Entry{{Type: "http", Headers: []Header{{"X-Key", "k"}}}}, ""},
		{"none", `{"cwd":"/w"}`, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Entries(json.RawMessage(tt.params))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := mustJSON(t, got), mustJSON(t, tt.want); g != w {
				t.Errorf("entries %s, want %s", g, w)
			}
			if len(got) > 0 && got[0].Token() != tt.token {
				t.Errorf("token %q, want %q", got[0].Token(), tt.token)
			}
		})
	}
	if _, err := Entries(json.RawMessage(`{"mcpServers":{}}`)); err == nil {
		t.Error("mcpServers not a list: no error")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
