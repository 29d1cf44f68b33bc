package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
)

// redactShapeCases are session setup params as some chain member wrote
// them and the params the trace must show: every secret-named header or
// env value of an mcpServers entry [redacted], whoever put it there,
// everything else as it came.
var redactShapeCases = []struct {
	name, method, params, traced string
}{
	{
		name:   "another proxy's http entry, Authorization",
		method: "session/new",
		params: `{"cwd":"/w","mcpServers":[{"type":"http","name":"lsp","url":"http://127.0.0.1:9/mcp","headers":[{"name":"Authorization","value":"Bearer 89402e30aa496c35"}]}]}`,
		traced: `{"cwd":"/w","mcpServers":[{"type":"http","name":"lsp","url":"http://127.0.0.1:9/mcp","headers":[{"name":"Authorization","value":"[redacted]"}]}]}`,
	},
	{
		name:   "the editor's entries: secrets hidden, the rest readable",
		method: "session/load",
		params: `{"sessionId":"S","cwd":"/w","mcpServers":[{"name":"fs","command":"/bin/fs","args":["--stdio"],"env":[{"name":"LANG","value":"C"},{"name":"GITHUB_TOKEN","value":"ghp_x"},{"name":"DB_PASSWORD","value":"hunter2"}]},{"type":"sse","name":"ev","url":"https://e/mcp","headers":[{"name":"X-Request-Id","value":"42"},{"name":"Proxy-Authorization","value":"Basic dTpw"},{"name":"X-Api-Key","value":"k1"}]}]}`,
		traced: `{"sessionId":"S","cwd":"/w","mcpServers":[{"name":"fs","command":"/bin/fs","args":["--stdio"],"env":[{"name":"LANG","value":"C"},{"name":"GITHUB_TOKEN","value":"[redacted]"},{"name":"DB_PASSWORD","value":"[redacted]"}]},{"type":"sse","name":"ev","url":"https://e/mcp","headers":[{"name":"X-Request-Id","value":"42"},{"name":"Proxy-Authorization","value":"[redacted]"},{"name":"X-Api-Key","value":"[redacted]"}]}]}`,
	},
	{
		name:   "v2 stdio entry (type stdio), resume",
		method: "session/resume",
		params: `{"sessionId":"S","cwd":"/w","mcpServers":[{"type":"stdio","name":"x","command":"/x","args":[],"env":[{"name":"client_secret","value":"s3"}]}]}`,
		traced: `{"sessionId":"S","cwd":"/w","mcpServers":[{"type":"stdio","name":"x","command":"/x","args":[],"env":[{"name":"client_secret","value":"[redacted]"}]}]}`,
	},
	{
		name:   "headers and env as objects, fork",
		method: "session/fork",
		params: `{"sessionId":"S","cwd":"/w","mcpServers":[{"name":"x","headers":{"Authorization":"Bearer t","Accept":"*/*"},"env":{"API_KEY":7,"HOME":"/h"}}]}`,
		traced: `{"sessionId":"S","cwd":"/w","mcpServers":[{"name":"x","headers":{"Authorization":"[redacted]","Accept":"*/*"},"env":{"API_KEY":"[redacted]","HOME":"/h"}}]}`,
	},
	{
		// Go's decoder (the SDKs') matches keys in any case and takes
		// the last of duplicates; another takes the first: all count.
		name:   "keys in other cases, escaped, duplicated",
		method: "session/unstable_fork",
		params: `{"cwd":"/w","MCPServers":[{"Headers":[{"NAME":"x","Name":"\u0061uthorization","VALUE":"v1","value":"v2"}]}],"mcpServers":[{"env":[{"name":"TOKEN","value":{"a":["deep"]}}]}]}`,
		traced: `{"cwd":"/w","MCPServers":[{"Headers":[{"NAME":"x","Name":"\u0061uthorization","VALUE":"[redacted]","value":"[redacted]"}]}],"mcpServers":[{"env":[{"name":"TOKEN","value":"[redacted]"}]}]}`,
	},
	{
		name:   "a URL's user information and secret-named query parameters",
		method: "session/new",
		params: `{"cwd":"/w","mcpServers":[{"type":"http","name":"h","url":"https://user:pw@mcp.example/x?api_key=K1&page=2&access%5Ftoken=T2&Key#frag","headers":[]},{"type":"sse","name":"s","url":"https://ghp_tok@e/mcp"},{"type":"http","name":"plain","url":"http://127.0.0.1:9/mcp?page=2"}]}`,
		traced: `{"cwd":"/w","mcpServers":[{"type":"http","name":"h","url":"https://[redacted]@mcp.example/x?api_key=[redacted]&page=2&access%5Ftoken=[redacted]&Key#frag","headers":[]},{"type":"sse","name":"s","url":"https://[redacted]@e/mcp"},{"type":"http","name":"plain","url":"http://127.0.0.1:9/mcp?page=2"}]}`,
	},
	{
		name:   "args: a flag's value, a value after a flag, a URL",
		method: "session/new",
		params: `{"cwd":"/w","mcpServers":[{"name":"a","command":"/a","args":["--stdio","--api-key=K","--token","T","--password","--verbose","--port","9","https://u:p@h/?x=1&secret=S","-k",7,"--auth"],"env":[]}]}`,
		traced: `{"cwd":"/w","mcpServers":[{"name":"a","command":"/a","args":["--stdio","--api-key=[redacted]","--token","[redacted]","--password","--verbose","--port","9","https://[redacted]@h/?x=1&secret=[redacted]","-k",7,"--auth"],"env":[]}]}`,
	},
	{
		name:   "odd shapes are left alone",
		method: "session/new",
		params: `{"cwd":"/w","mcpServers":[1,"s",null,{"headers":"Authorization"},{"env":[[],{"name":5,"value":"v"},{"value":"w"}]}]}`,
		traced: `{"cwd":"/w","mcpServers":[1,"s",null,{"headers":"Authorization"},{"env":[[],{"name":5,"value":"v"},{"value":"w"}]}]}`,
	},
	{
		// Only session setup requests are read by shape.
		name:   "not a session setup request",
		method: "session/prompt",
		params: `{"sessionId":"S","mcpServers":[{"headers":[{"name":"Authorization","value":"Bearer t"}]}]}`,
		traced: `{"sessionId":"S","mcpServers":[{"headers":[{"name":"Authorization","value":"Bearer t"}]}]}`,
	},
}

// TestTraceRedactsSetupByShape: the trace hides the credentials of a
// session setup request's MCP servers that no Hop.Redact registered (the
// editor's, another proxy's), at every hop, while the message reaches the
// agent byte for byte as sent.
func TestTraceRedactsSetupByShape(t *testing.T) {
	for _, tc := range redactShapeCases {
		t.Run(tc.name, func(t *testing.T) {
			tr := &syncbuf.Buffer{}
			h := startChainConfig(t, nil, Config{Stages: []Stage{Identity{}}, Trace: tr}, nil)
			msg := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`
			h.client.send(t, msg)
			if got := h.agent.recv(t); got != msg {
				t.Fatalf("the agent got\n%s\nwant\n%s", got, msg)
			}
			want := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.traced + `}`
			lines := strings.Split(strings.TrimSuffix(tr.String(), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("%d trace lines, want 2 (one per hop):\n%s", len(lines), tr.String())
			}
			for _, l := range lines {
				var rec struct{ Msg json.RawMessage }
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("trace line %s: %v", l, err)
				}
				if string(rec.Msg) != want {
					t.Errorf("traced\n%s\nwant\n%s", rec.Msg, want)
				}
			}
		})
	}
}

// FuzzRedactSetup: over any line, redactSetup does not panic; given valid
// JSON it returns valid JSON, in which no secret-named header or env value
// of an mcpServers entry of params is left but "[redacted]", by any key
// spelling a case-insensitive decoder takes.
func FuzzRedactSetup(f *testing.F) {
	for _, tc := range redactShapeCases {
		f.Add(`{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`)
	}
	f.Add(``)
	f.Add(` `)
	f.Add(`{"params":{"mcpServers":[{"headers":[{"name":"Authorization","value":"x"}]`)
	f.Fuzz(func(t *testing.T, in string) {
		out := redactSetup([]byte(in))
		var v any
		if checkJSON([]byte(in)) != nil || json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("redacted %s into invalid JSON %s: %v", in, out, err)
		}
		for _, p := range under(v, "params") {
			for _, list := range under(p, "mcpServers") {
				servers, _ := list.([]any)
				for _, e := range servers {
					for _, field := range append(under(e, "headers"), under(e, "env")...) {
						checkRedacted(t, in, out, field)
					}
					for _, args := range under(e, "args") {
						checkArgsRedacted(t, in, out, args)
					}
				}
			}
		}
	})
}

// under returns the values of object v (if it is one) under every key
// equal to key but for case.
func under(v any, key string) []any {
	o, _ := v.(map[string]any)
	var out []any
	for k, x := range o {
		if strings.EqualFold(k, key) {
			out = append(out, x)
		}
	}
	return out
}

// checkRedacted fails t when the decoded headers or env field holds a
// secret-named value other than "[redacted]".
func checkRedacted(t *testing.T, in string, out []byte, field any) {
	t.Helper()
	bad := func(name string, val any) {
		if val != redactedMark {
			t.Fatalf("%s's value %v survived in\n%s\nfrom\n%s", name, val, out, in)
		}
	}
	switch f := field.(type) {
	case map[string]any:
		for k, val := range f {
			if secretName(k) {
				bad(k, val)
			}
		}
	case []any:
		for _, pair := range f {
			names := under(pair, "name")
			for _, n := range names {
				if s, ok := n.(string); ok && secretName(s) {
					for _, val := range under(pair, "value") {
						bad(s, val)
					}
				}
			}
		}
	}
}

// checkArgsRedacted fails t when a decoded args array holds a
// secret-named flag's value ("--token=V", or "--token", "V") other than
// "[redacted]".
func checkArgsRedacted(t *testing.T, in string, out []byte, args any) {
	t.Helper()
	list, _ := args.([]any)
	for i, a := range list {
		s, _ := a.(string)
		if !strings.HasPrefix(s, "-") {
			continue
		}
		name, val, hasValue := strings.Cut(strings.TrimLeft(s, "-"), "=")
		if !secretName(name) {
			continue
		}
		if hasValue && val != redactedMark {
			t.Fatalf("argument %q survived in\n%s\nfrom\n%s", s, out, in)
		}
		if next, ok := list[min(i+1, len(list)-1)].(string); !hasValue && i+1 < len(list) && ok && !strings.HasPrefix(next, "-") && next != redactedMark {
			t.Fatalf("the value %q after %q survived in\n%s\nfrom\n%s", next, s, out, in)
		}
	}
}
