package adapter

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// FuzzRFDAgentInput feeds what the adapter reads of the agent's RFD
// requests (a message, LSP params) and of a server's capabilities: no
// panic; a request taken as the RFD's is lsp/servers or lsp/request; the
// document found is a string the params hold; capabilities stay valid
// JSON.
func FuzzRFDAgentInput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"lsp/request","params":{"sessionId":"S1","serverId":"gopls@/w","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.go"},"position":{"line":0,"character":1}}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"lsp/servers","params":{"sessionId":"S1"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"lsp/servers","params":{"uri":"file:///w/a.go"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":2,"capabilities":{}}}`,
		`{"item":{"uri":"file:///w/a.go"}}`,
		`{"textDocument":{"uri":5}}`,
		`{"positionEncoding":"utf-16","hoverProvider":true}`,
		`{"positionEncoding":1}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := proxy.Parse(b); err == nil {
			if isRFDAgentRequest(m) && m.Method != lspext.RFDServers && m.Method != lspext.RFDRequest {
				t.Fatalf("%s taken as the RFD's", m.Method)
			}
			_ = rfdVersion(m.Params())
		}
		raw := json.RawMessage(b)
		if uri := rfdDocument(raw); uri != "" {
			var v struct {
				TextDocument struct {
					URI any `json:"uri"`
				} `json:"textDocument"`
				Item struct {
					URI any `json:"uri"`
				} `json:"item"`
			}
			// Where the scanner read a string, the decoder may fail on
			// something else in the params: only a decoded value counts.
			if json.Unmarshal(b, &v) == nil && v.TextDocument.URI != uri && v.Item.URI != uri {
				t.Fatalf("document %q not in %s", uri, b)
			}
		}
		_ = rfdVersion(raw)
		caps := rfdCapabilities(raw, "utf-8")
		if json.Valid(b) && !json.Valid(caps) {
			t.Fatalf("capabilities %s became %s", b, caps)
		}
	})
}
