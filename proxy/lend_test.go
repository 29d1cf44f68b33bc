package proxy

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// holdUp passes every notification but "block", whose handler waits
// until release is closed: while it waits, its queue toward the client is
// busy, and what arrives there is queued for its worker.
type holdUp struct {
	entered, release chan struct{}
}

func (*holdUp) Name() string { return "hold-up" }
func (h *holdUp) FromClient(_ context.Context, hop *Hop, m *Message) {
	hop.ToAgent(m)
}
func (h *holdUp) FromAgent(_ context.Context, hop *Hop, m *Message) {
	if m.Method == "block" {
		close(h.entered)
		<-h.release
		return
	}
	hop.ToClient(m)
}
func (*holdUp) Passes(_ bool, method string) bool { return method != "block" }

// blockSender sends "block" toward the client from its own goroutine, so
// that the hold-up's worker, not the agent's reader, runs its handler.
type blockSender struct{ Identity }

func (blockSender) Name() string { return "block-sender" }

// Passes implements Passer: the stream reaches the hold-up unhandled.
func (blockSender) Passes(bool, string) bool { return true }
func (blockSender) Run(ctx context.Context, hop *Hop) error {
	hop.NotifyClient("block", nil)
	<-ctx.Done()
	return nil
}

// TestLentMessagesQueued streams notifications from an agent pipe (read
// in place, Message.lent) into a hop that is busy on another goroutine:
// they wait in its queue while the reader refills its buffer many times
// over, and must still reach the client byte for byte, in order.
func TestLentMessagesQueued(t *testing.T) {
	const n = 3000 // ~1 MiB: the 128 KiB read buffer is refilled many times
	agentR, agentW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientInR, clientInW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientOutR, clientOutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer clientOutR.Close()
	defer agentW.Close()
	hold := &holdUp{entered: make(chan struct{}), release: make(chan struct{})}
	c := NewChain(Config{
		Client: NewStream(clientInR, clientOutW, StreamOptions{Name: "client"}),
		Agent:  NewStream(agentR, io.Discard, StreamOptions{Name: "agent"}),
		Stages: []Stage{hold, blockSender{}},
	})
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	<-hold.entered
	msg := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"i":%d,"text":%q}}`, i, strings.Repeat(fmt.Sprint(i%10), 300))
	}
	wrote := make(chan error, 1)
	go func() {
		var b strings.Builder
		for i := range n {
			b.WriteString(msg(i) + "\n")
		}
		_, err := agentW.WriteString(b.String())
		wrote <- err
	}()
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	close(hold.release)
	lr := NewLineReader(clientOutR, 0)
	for i := range n {
		line, err := lr.ReadLine()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if want := msg(i); string(line) != want {
			t.Fatalf("message %d differs:\n got %.120s…\nwant %.120s…", i, line, want)
		}
	}
	clientInW.Close()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
