package proxy

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// recvWithin is recv for a test that would otherwise hang: it fails after
// d (a generous bound on a wait that must end, never a speed check).
func (p *peer) recvWithin(t *testing.T, d time.Duration, what string) string {
	t.Helper()
	select {
	case line, ok := <-p.out:
		if !ok {
			t.Fatalf("%s: end of output", what)
		}
		return line
	case <-time.After(d):
		t.Fatalf("%s: nothing came within %v", what, d)
		return ""
	}
}

// TestReusedIDKeepsNoCredit: a client that sends a request under the id
// of one still pending gets it renumbered on the way; the original's
// flow-control credit used to go with neither, so each reuse kept one
// message of the 8192 and its bytes counted forever (issue 18, item 6):
// after one reuse a message over the 32 MiB gate hung, after 8192 the
// client's input stopped.
func TestReusedIDKeepsNoCredit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reuses int
		// then is the size of one notification sent after every request
		// was answered; it must reach the agent.
		then int
	}{
		{"one reuse, then a message over the gate", 1, gateBytes + 1<<20},
		{"more reuses than the gate counts", gateCount + 8, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startChain(t)
			const wait = time.Minute
			// The client writes from a goroutine of its own: a chain
			// that stops reading must fail the test, not hang it.
			proceed := make(chan struct{})
			go func() {
				for i := 0; i <= tc.reuses; i++ {
					if _, err := io.WriteString(h.client.w, `{"jsonrpc":"2.0","id":"x","method":"_x/slow","params":{}}`+"\n"); err != nil {
						return
					}
				}
				<-proceed
				io.WriteString(h.client.w, `{"jsonrpc":"2.0","method":"_x/big","params":{"s":"`+strings.Repeat("a", tc.then)+`"}}`+"\n")
			}()
			// All of them reach the agent, the later ones renumbered, while
			// the first is pending; then they are answered.
			ids := make([]string, 0, tc.reuses+1)
			for i := 0; i <= tc.reuses; i++ {
				got := h.agent.recvWithin(t, wait, fmt.Sprintf("request %d of %d", i+1, tc.reuses+1))
				m, err := Parse([]byte(got))
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, string(m.ID))
			}
			for _, id := range ids {
				h.agent.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
			}
			for i := 0; i <= tc.reuses; i++ {
				if got := h.client.recvWithin(t, wait, "an answer"); !strings.Contains(got, `"id":"x"`) {
					t.Fatalf("client got %s", got)
				}
			}
			close(proceed)
			if got, want := len(h.agent.recvWithin(t, wait, "the message after")), len(`{"jsonrpc":"2.0","method":"_x/big","params":{"s":""}}`)+tc.then; got != want {
				t.Fatalf("agent got %d bytes, want %d", got, want)
			}
		})
	}
}

// TestDroppedCancelKeepsNoCredit: a $/cancel_request the chain drops
// (its target unknown) or rewrites (its target renumbered) gives its
// flow-control credit back as any message does; each used to keep one of
// the 8192 for good, so a client cancelling more than that stopped
// being read.
func TestDroppedCancelKeepsNoCredit(t *testing.T) {
	for _, tc := range []struct {
		name string
		// pending sends two requests under one id first, so the
		// cancels' target is the renumbered second.
		pending bool
	}{
		{"cancels of unknown requests", false},
		{"cancels of a renumbered request", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startChain(t)
			const wait = time.Minute
			if tc.pending {
				h.client.send(t, `{"jsonrpc":"2.0","id":"x","method":"_x/slow","params":{}}`)
				h.agent.recvWithin(t, wait, "the first request")
				h.client.send(t, `{"jsonrpc":"2.0","id":"x","method":"_x/slow","params":{}}`)
				h.agent.recvWithin(t, wait, "the second request")
			}
			go func() {
				for i := 0; i < gateCount+8; i++ {
					if _, err := io.WriteString(h.client.w, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"x"}}`+"\n"); err != nil {
						return
					}
				}
				io.WriteString(h.client.w, `{"jsonrpc":"2.0","method":"_x/after","params":{}}`+"\n")
			}()
			for {
				got := h.agent.recvWithin(t, wait, "the message after the cancels")
				if strings.Contains(got, "_x/after") {
					break
				}
			}
		})
	}
}
