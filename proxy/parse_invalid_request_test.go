package proxy

import (
	"strings"
	"testing"
)

// TestValidJSONNotAMessage: a client's line that is valid JSON but no
// JSON-RPC message is answered with -32600 (Invalid Request), -32700 only
// for what is not JSON; a method that is not a string made the first.
func TestValidJSONNotAMessage(t *testing.T) {
	h := startChain(t, Identity{})
	for _, tt := range []struct{ in, code string }{
		{`{"jsonrpc":"2.0","id":1,"method":5}`, "-32600"},
		{`{"jsonrpc":"2.0","id":1,"method":null,"params":{}}`, "-32600"},
		{`{"jsonrpc":"2.0","method":["x"]}`, "-32600"},
		{`{"jsonrpc":"2.0","id":1,"method":5,"params":{`, "-32700"},
	} {
		h.client.send(t, tt.in)
		if got := h.client.recv(t); !strings.Contains(got, `"id":null`) || !strings.Contains(got, `"code":`+tt.code) {
			t.Errorf("%s: client got %s, want %s", tt.in, got, tt.code)
		}
	}
	// The connection stays up.
	h.client.send(t, `{"jsonrpc":"2.0","method":"n"}`)
	if got := h.agent.recv(t); got != `{"jsonrpc":"2.0","method":"n"}` {
		t.Fatalf("agent got %s", got)
	}
}
