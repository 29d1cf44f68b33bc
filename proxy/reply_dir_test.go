package proxy

import (
	"context"
	"encoding/json"
	"testing"
)

// taker answers "_take" requests from the client itself (Reply from the
// handler, or Answer) and passes everything else on.
type taker struct {
	Identity
	answer bool
}

func (tk *taker) FromClient(_ context.Context, hop *Hop, m *Message) {
	if m.Kind != KindRequest || m.Method != "_take" {
		hop.ToAgent(m)
		return
	}
	if tk.answer {
		hop.Answer(m, func() (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil })
		return
	}
	hop.Reply(m, json.RawMessage(`"ok"`))
}

// TestReplyWithIDPendingTheOtherWay: ids of the two directions are
// independent; while the agent's request 1 waits at the client (a
// permission prompt), a component answers the client's own request 1.
// The answer belongs to the client, not to the agent.
func TestReplyWithIDPendingTheOtherWay(t *testing.T) {
	for _, answer := range []bool{false, true} {
		name := "Reply"
		if answer {
			name = "Answer"
		}
		t.Run(name, func(t *testing.T) {
			h := startChain(t, &taker{answer: answer})
			areq := `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{}}`
			h.agent.send(t, areq)
			if got := h.client.recv(t); got != areq {
				t.Fatalf("client got %s", got)
			}
			h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"_take"}`)
			want := `{"jsonrpc":"2.0","id":1,"result":"ok"}`
			select {
			case got := <-h.client.out:
				if got != want {
					t.Fatalf("client got %s, want %s", got, want)
				}
			case got := <-h.agent.out:
				t.Fatalf("the answer to the client's request went to the agent: %s", got)
			}
			// The client's answer to the agent's request still reaches it.
			aresp := `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"cancelled"}}}`
			h.client.send(t, aresp)
			if got := h.agent.recv(t); got != aresp {
				t.Fatalf("agent got %s", got)
			}
		})
	}
}
