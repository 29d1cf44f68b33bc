package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
)

// injector puts a secret of its own making into session/new's params
// wherever an MCP server entry can carry one (a header, an argument, the
// environment, the URL), as a component handing out credentials does,
// after registering it with Hop.Redact; "_forget" makes it forget the
// secret.
type injector struct {
	secret string
	forget func()
}

func (*injector) Name() string { return "injector" }

func (in *injector) FromClient(_ context.Context, hop *Hop, m *Message) {
	switch m.Method {
	case "session/new":
		in.forget = hop.Redact(in.secret)
		entry := `{"url":"http://127.0.0.1:1/` + in.secret + `","headers":[{"name":"Authorization","value":"Bearer ` + in.secret + `"}],"args":["--key=` + in.secret + `"],"env":[{"name":"K","value":"` + in.secret + in.secret + `"}]}`
		p, err := AppendPath(m.Params(), json.RawMessage(entry), "mcpServers")
		if err != nil {
			panic(err)
		}
		out, err := m.WithParams(p)
		if err != nil {
			panic(err)
		}
		m = out
	case "_forget":
		in.forget()
		in.forget() // a second call changes nothing
	}
	hop.ToAgent(m)
}

func (*injector) FromAgent(_ context.Context, hop *Hop, m *Message) { hop.ToClient(m) }

// TestTraceRedacts: a secret a component registers with Hop.Redact is
// written nowhere in the trace, in any hop or direction, whatever field
// of the message holds it, while the message itself travels unchanged;
// the trace stays one JSON object per line. Once forgotten, it is traced
// as it is.
func TestTraceRedacts(t *testing.T) {
	const secret = "0f3a9c5e7b1d2468ace13579bdf02468"
	tr := &syncbuf.Buffer{}
	in := &injector{secret: secret}
	h := startChainConfig(t, nil, Config{Stages: []Stage{Identity{}, in, Identity{}}, Trace: tr}, nil)

	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	got := h.agent.recv(t)
	want := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"url":"http://127.0.0.1:1/` + secret + `","headers":[{"name":"Authorization","value":"Bearer ` + secret + `"}],"args":["--key=` + secret + `"],"env":[{"name":"K","value":"` + secret + secret + `"}]}]}}`
	if got != want {
		t.Fatalf("the agent got\n%s\nwant\n%s", got, want)
	}
	// The agent says it back, in a response and a notification.
	h.agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S","_meta":{"echo":"`+secret+`"}}}`)
	h.client.recv(t)
	h.agent.send(t, `{"jsonrpc":"2.0","method":"session/update","params":{"text":"x`+secret+`y"}}`)
	h.client.recv(t)

	trace := tr.String()
	if strings.Contains(trace, secret) {
		t.Fatalf("the secret is in the trace:\n%s", trace)
	}
	lines := strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
	redacted := 0
	for _, l := range lines {
		var rec struct {
			Hop string
			Msg json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("trace line %s: %v", l, err)
		}
		redacted += strings.Count(l, "[redacted]")
	}
	// session/new after the injector (2 hops: injector, the identity
	// after it) 5 times; the response and the update at 4 hops each.
	if want := 2*5 + 4 + 4; redacted != want {
		t.Errorf("%d redactions in the trace, want %d:\n%s", redacted, want, trace)
	}

	h.client.send(t, `{"jsonrpc":"2.0","method":"_forget","params":{"k":"`+secret+`"}}`)
	h.agent.recv(t)
	if !strings.Contains(tr.String(), secret) {
		t.Errorf("a forgotten secret is still redacted:\n%s", tr.String())
	}
}
