package conductor

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		in, method, params, meta string
		err                      bool
	}{
		{in: `{"method":"session/prompt","params":{"a":1},"_meta":{"m":true}}`, method: "session/prompt", params: `{"a":1}`, meta: `{"m":true}`},
		{in: `{"method":"x","meta":{"old":1}}`, method: "x", meta: `{"old":1}`},
		{in: `{"method":"x","params":null}`, method: "x"},
		{in: `{"params":{}}`, err: true},
		{in: `{"method":3}`, err: true},
		{in: `[1]`, err: true},
		{in: `{"method":""}`, err: true},
	}
	for _, tt := range tests {
		e, err := ParseEnvelope([]byte(tt.in))
		if tt.err {
			if err == nil {
				t.Errorf("ParseEnvelope(%s): no error", tt.in)
			}
			continue
		}
		if err != nil || e.Method != tt.method || string(e.Params) != tt.params || string(e.Meta) != tt.meta {
			t.Errorf("ParseEnvelope(%s) = %+v, %v", tt.in, e, err)
		}
	}
}

func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"method":"session/update","params":{"x":[1,"2"]},"_meta":{}}`))
	f.Add([]byte(`{"method":"a\u0000b","meta":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEnvelope(b)
		if err != nil {
			return
		}
		// What parses round-trips through Marshal.
		e2, err := ParseEnvelope(e.Marshal())
		if err != nil {
			t.Fatalf("Marshal(%+v) = %s does not parse: %v", e, e.Marshal(), err)
		}
		if e2.Method != e.Method || string(e2.Params) != string(e.Params) || string(e2.Meta) != string(e.Meta) {
			t.Fatalf("round trip %+v → %+v", e, e2)
		}
		if !json.Valid(e.Marshal()) {
			t.Fatalf("invalid JSON %s", e.Marshal())
		}
	})
}

// TestProxyConnFamilies plays a tiny conductor against ProxyConn (through
// a chain with one identity component), in both method families.
func TestProxyConnFamilies(t *testing.T) {
	for _, fam := range []Family{FamilyUnderscore, FamilyPlain} {
		t.Run(string(fam), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			pc := NewProxyConn(inR, outW, nil, 0)
			// The drain bound is far away: the chain must end because the
			// connection's end was delivered, not because a timer ran out.
			chain := proxy.NewChain(proxy.Config{Client: pc.Client(), Agent: pc.Successor(), Stages: []proxy.Stage{proxy.Identity{}}, Drain: time.Hour})
			done := make(chan error, 1)
			go func() { done <- chain.Run(t.Context()) }()
			r := bufio.NewReader(outR)
			send := func(s string) { io.WriteString(inW, s+"\n") }
			expect := func(want string) {
				t.Helper()
				got, err := r.ReadString('\n')
				if err != nil || strings.TrimSpace(got) != want {
					t.Fatalf("conductor got %q (%v)\nwant %s", got, err, want)
				}
			}
			send(`{"jsonrpc":"2.0","id":0,"method":"` + fam.Initialize() + `","params":{"protocolVersion":1}}`)
			expect(`{"jsonrpc":"2.0","id":0,"method":"` + fam.Successor() + `","params":{"method":"initialize","params":{"protocolVersion":1}}}`)
			send(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`)
			expect(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`)
			// Successor traffic (meta spelled the old way) is unwrapped toward the client.
			send(`{"jsonrpc":"2.0","method":"_proxy/successor","params":{"method":"session/update","params":{"u":1},"meta":{}}}`)
			expect(`{"jsonrpc":"2.0","method":"session/update","params":{"u":1}}`)
			// A wrapped request from the successor; the client's plain answer
			// goes back as the answer to the envelope.
			send(`{"jsonrpc":"2.0","id":"w1","method":"` + fam.Successor() + `","params":{"method":"session/request_permission","params":{}}}`)
			expect(`{"jsonrpc":"2.0","id":"w1","method":"session/request_permission","params":{}}`)
			send(`{"jsonrpc":"2.0","id":"w1","result":{"outcome":{"outcome":"cancelled"}}}`)
			expect(`{"jsonrpc":"2.0","id":"w1","result":{"outcome":{"outcome":"cancelled"}}}`)
			// A client request is wrapped toward the successor; its cancel is per hop, plain.
			send(`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{}}`)
			expect(`{"jsonrpc":"2.0","id":9,"method":"` + fam.Successor() + `","params":{"method":"session/prompt","params":{}}}`)
			send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":9}}`)
			expect(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":9}}`)
			send(`{"jsonrpc":"2.0","id":9,"error":{"code":-32800,"message":"cancelled"}}`)
			expect(`{"jsonrpc":"2.0","id":9,"error":{"code":-32800,"message":"cancelled"}}`)
			inW.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			outR.Close()
			pc.Wait()
		})
	}
}
