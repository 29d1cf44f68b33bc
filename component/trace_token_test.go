package component

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// traceBuffer is a chain's trace the test reads while the chain writes.
type traceBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (tb *traceBuffer) Write(p []byte) (int, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.b.Write(p)
}

func (tb *traceBuffer) String() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.b.String()
}

// TestTraceHidesToken: a session set up through a traced chain leaves its
// token (the HTTP credential) out of the trace, over either transport,
// while the agent gets the entry with the token in it.
func TestTraceHidesToken(t *testing.T) {
	for _, tr := range []Transport{TransportHTTP, TransportStdio} {
		t.Run(string(tr), func(t *testing.T) {
			root := t.TempDir()
			st, err := NewStage(Config{Executable: "/bin/acp-lsp", Transport: tr})
			if err != nil {
				t.Fatal(err)
			}
			trace := &traceBuffer{}
			editor, cep := pipeEnd()
			agent, aep := pipeEnd()
			runChainConfig(t, editor, agent, proxy.Config{Client: cep, Agent: aep, Stages: []proxy.Stage{st}, Trace: trace}, nil)

			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}}`)
			editor.recv(t)
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
			got := agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S1"}}`)
			editor.recv(t)

			s := st.Tool().SessionByACP("S1")
			if s == nil {
				t.Fatal("no session bound to S1")
			}
			if tr == TransportHTTP && !strings.Contains(string(got["params"]), "Bearer "+s.token) {
				t.Fatalf("the agent's entry lacks the token: %s", got["params"])
			}
			text := trace.String()
			if !strings.Contains(text, `"session/new"`) {
				t.Fatalf("nothing traced:\n%s", text)
			}
			if strings.Contains(text, s.token) {
				t.Fatalf("the token %s is in the trace:\n%s", s.token, text)
			}
		})
	}
}
