package conductor

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// proxyScript plays a conductor against ProxyConn through a chain with
// one identity component: each step sends a line (if any) and expects
// the next line written back (if any).
func proxyScript(t *testing.T, steps [][2]string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	pc := NewProxyConn(inR, outW, nil, 0)
	chain := proxy.NewChain(proxy.Config{Client: pc.Client(), Agent: pc.Successor(), Stages: []proxy.Stage{proxy.Identity{}}, Drain: time.Hour})
	done := make(chan error, 1)
	go func() { done <- chain.Run(t.Context()) }()
	r := bufio.NewReader(outR)
	for i, st := range steps {
		if st[0] != "" {
			io.WriteString(inW, st[0]+"\n")
		}
		if st[1] == "" {
			continue
		}
		got, err := r.ReadString('\n')
		if err != nil || strings.TrimSpace(got) != st[1] {
			inW.Close()
			outR.Close()
			<-done
			t.Fatalf("step %d: sent %s\nconductor got %q (%v)\nwant %s", i, st[0], got, err, st[1])
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outR.Close()
	pc.Wait()
}

// TestProxyConnFamilyFixedByFirstInitialize: the family is the one the
// connection was initialized with, for the life of the connection; a
// stray second initialize of the other family must not switch the
// envelopes to a method the conductor does not know.
func TestProxyConnFamilyFixedByFirstInitialize(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second Family
	}{
		{"underscore then plain", FamilyUnderscore, FamilyPlain},
		{"plain then underscore", FamilyPlain, FamilyUnderscore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.first
			proxyScript(t, [][2]string{
				{`{"jsonrpc":"2.0","id":0,"method":"` + f.Initialize() + `","params":{"protocolVersion":1}}`,
					`{"jsonrpc":"2.0","id":0,"method":"` + f.Successor() + `","params":{"method":"initialize","params":{"protocolVersion":1}}}`},
				{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`},
				{`{"jsonrpc":"2.0","id":1,"method":"` + tc.second.Initialize() + `","params":{"protocolVersion":1}}`,
					`{"jsonrpc":"2.0","id":1,"method":"` + f.Successor() + `","params":{"method":"initialize","params":{"protocolVersion":1}}}`},
				{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"already initialized"}}`,
					`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"already initialized"}}`},
				{`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`,
					`{"jsonrpc":"2.0","id":2,"method":"` + f.Successor() + `","params":{"method":"session/new","params":{}}}`},
				{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`,
					`{"jsonrpc":"2.0","method":"` + f.Successor() + `","params":{"method":"session/cancel","params":{}}}`},
				{`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
			})
		})
	}
}

// TestProxyConnIDsThroughEnvelopes sends ids of every JSON type both
// ways through the envelope, with a cancel each way: every id comes back
// byte for byte.
func TestProxyConnIDsThroughEnvelopes(t *testing.T) {
	for _, id := range []string{`0`, `-1`, `12345678901234567890`, `1.5`, `"1"`, `"\u00e9"`, `""`, `"a b"`} {
		t.Run(id, func(t *testing.T) {
			proxyScript(t, [][2]string{
				{`{"jsonrpc":"2.0","id":0,"method":"proxy/initialize","params":{}}`, `{"jsonrpc":"2.0","id":0,"method":"proxy/successor","params":{"method":"initialize","params":{}}}`},
				{`{"jsonrpc":"2.0","id":0,"result":{}}`, `{"jsonrpc":"2.0","id":0,"result":{}}`},
				{`{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{}}`, `{"jsonrpc":"2.0","id":` + id + `,"method":"proxy/successor","params":{"method":"session/prompt","params":{}}}`},
				{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + `}}`, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + `}}`},
				{`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`, `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`},
				{`{"jsonrpc":"2.0","id":` + id + `,"method":"proxy/successor","params":{"method":"fs/read_text_file","params":{},"meta":{}}}`, `{"jsonrpc":"2.0","id":` + id + `,"method":"fs/read_text_file","params":{}}`},
				{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + `}}`, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + `}}`},
				{`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`, `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"cancelled"}}`},
			})
		})
	}
}

// TestProxyConnBadEnvelopes: a malformed envelope request is answered
// -32602 on the spot; a malformed envelope notification is dropped.
func TestProxyConnBadEnvelopes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no method", `{"jsonrpc":"2.0","id":1,"method":"proxy/successor","params":{"params":{}}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"parse envelope: no method"}}`},
		{"no params", `{"jsonrpc":"2.0","id":2,"method":"proxy/successor"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"parse envelope: no params"}}`},
		{"inner response", `{"jsonrpc":"2.0","id":3,"method":"_proxy/successor","params":{"id":3,"result":{}}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"parse envelope: no method"}}`},
		{"method not a string", `{"jsonrpc":"2.0","id":4,"method":"proxy/successor","params":{"method":4}}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"parse envelope: method is not a string"}}`},
		{"_meta wins over meta", `{"jsonrpc":"2.0","id":5,"method":"proxy/successor","params":{"method":"a\/b","params":{"x":1},"_meta":{"a":1},"meta":{"b":2}}}`, `{"jsonrpc":"2.0","id":5,"method":"a/b","params":{"x":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxyScript(t, [][2]string{
				// A dropped notification first: the answer that follows
				// shows nothing was written for it.
				{`{"jsonrpc":"2.0","method":"proxy/successor","params":{"params":{}}}`, ""},
				{tc.in, tc.want},
			})
		})
	}
}
