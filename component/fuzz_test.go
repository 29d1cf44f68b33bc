package component

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// FuzzServerAnswers feeds arbitrary bytes to every parser of what servers
// and editors send: none may panic.
func FuzzServerAnswers(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}`,
		`[{"targetUri":"file:///a","targetRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}]`,
		`{"contents":[{"language":"go","value":"x"},"y"]}`, `{"contents":{"kind":"markdown","value":"z"}}`,
		`[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"m","code":12}]`,
		`{"documentChanges":[{"kind":"rename","oldUri":"file:///a","newUri":"file:///b"}]}`, `{"changes":{"file:///a":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parseLocations(b)
		hoverText(b)
		markupText(b)
		decodeDiagnostics(b, false)
		decodeDiagnostics(b, true)
		withRename(b, "file:///a", "file:///b")
		c := NewDiagCache(2, 2)
		var p lspext.PublishDiagnosticsParams
		if json.Unmarshal(b, &p) == nil {
			c.Publish(p)
		}
		NormalizeURI(string(b))
	})
}

// FuzzAppendMCPServer checks the setup patch on arbitrary params: it either
// refuses or returns valid JSON holding the entry.
func FuzzAppendMCPServer(f *testing.F) {
	for _, s := range []string{`{"cwd":"/x","mcpServers":[]}`, `{"cwd":"/x"}`, `{"mcpServers":null}`, `[]`, `{"mcpServers":{}}`, `{"a":1,"mcpServers":[{"name":"q"}] }`} {
		f.Add([]byte(s))
	}
	entry := json.RawMessage(`{"name":"acp-lsp","command":"/bin/acp-lsp","args":[],"env":[]}`)
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := AppendMCPServer(b, entry)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %s from %s", out, b)
		}
		var v struct {
			MCPServers []json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(out, &v); err != nil || len(v.MCPServers) == 0 || string(v.MCPServers[len(v.MCPServers)-1]) != string(entry) {
			t.Fatalf("entry not last in %s (from %s): %v", out, b, err)
		}
	})
}
