package acptest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/proxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wait bounds every wait: these tests are about what arrives, not when.
const wait = time.Minute

// chain runs editor ⇄ agent through an empty proxy chain until the test
// ends. The agent answers initialize and refuses other requests; it
// queues notifications.
func chain(t *testing.T) (editor, agent *Peer) {
	t.Helper()
	editor, cep := New("editor", nil)
	agent, aep := New("agent", func(p *Peer, m Msg) bool {
		switch {
		case m.IsRequest() && m.Method == "initialize":
			p.Reply(m.ID, map[string]any{"protocolVersion": 1})
			return true
		case m.IsRequest() && m.Method == "slow":
			return false // left for the test to answer
		case m.IsRequest():
			p.ReplyError(m.ID, proxy.CodeMethodNotFound, "agent: no "+m.Method)
			return true
		}
		return false
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- proxy.NewChain(proxy.Config{Client: cep, Agent: aep}).Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		editor.Close()
		agent.Close()
		<-done
		cep.Close()
		aep.Close()
		<-editor.Done()
		<-agent.Done()
	})
	return editor, agent
}

func TestCallAndRecv(t *testing.T) {
	editor, agent := chain(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	res, err := editor.Call(ctx, "initialize", map[string]any{"protocolVersion": 1})
	if err != nil || string(res) != `{"protocolVersion":1}` {
		t.Fatalf("initialize = %s, %v", res, err)
	}
	_, err = editor.Call(ctx, "session/nothing", nil)
	var rpcErr *proxy.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != proxy.CodeMethodNotFound || !strings.Contains(err.Error(), "agent: no session/nothing") {
		t.Errorf("refused call: %v, want a -32601 *proxy.Error", err)
	}

	// Notifications and a request the handler leaves are queued in order;
	// RecvMethod passes over the others and returns them.
	for _, n := range []string{"a", "b"} {
		if err := editor.Notify("note/"+n, map[string]string{"n": n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := editor.SendLine(`{"jsonrpc":"2.0","id":7,"method":"slow","params":{}}`); err != nil {
		t.Fatal(err)
	}
	m, skipped, err := agent.RecvMethod(ctx, "slow")
	if err != nil || !m.IsRequest() || len(skipped) != 2 || skipped[0].Method != "note/a" || skipped[1].Method != "note/b" || !skipped[1].IsNotification() {
		t.Fatalf("RecvMethod = %+v, skipped %+v, %v", m, skipped, err)
	}
	if !strings.HasSuffix(m.Raw, "\n") || !strings.Contains(m.Raw, `"method":"slow"`) {
		t.Errorf("Raw = %q", m.Raw)
	}
	// The test answers it; the editor, which sent it itself, reads the
	// response from its queue (it was no Call of its own).
	if err := agent.Reply(m.ID, "done"); err != nil {
		t.Fatal(err)
	}
	r, err := editor.Recv(ctx)
	if err != nil || !r.IsResponse() || string(r.ID) != "7" || string(r.Result) != `"done"` {
		t.Errorf("response = %+v, %v", r, err)
	}
}

func TestCallEnds(t *testing.T) {
	editor, agent := chain(t)
	// A call nobody answers ends with its context.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// The request reaching the agent is the signal to give up.
		agent.RecvMethod(context.Background(), "slow")
		cancel()
	}()
	if _, err := editor.Call(ctx, "slow", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("unanswered call: %v, want context.Canceled", err)
	}
	// The chain answers a call pending when the agent exits; once the
	// chain has closed the editor's side, calls fail with ErrClosed and
	// Recv returns what was queued, then ErrClosed.
	ctx2, cancel2 := context.WithTimeout(context.Background(), wait)
	defer cancel2()
	errc := make(chan error, 1)
	go func() {
		_, err := editor.Call(ctx2, "slow", nil)
		errc <- err
	}()
	if _, _, err := agent.RecvMethod(ctx2, "slow"); err != nil {
		t.Fatal(err)
	}
	agent.Close()
	var rpcErr *proxy.Error
	if err := <-errc; !errors.As(err, &rpcErr) {
		t.Errorf("call pending when the agent exits: %v, want the chain's error answer", err)
	}
	<-editor.Done()
	if _, err := editor.Call(ctx2, "initialize", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after the end: %v, want ErrClosed", err)
	}
	if _, err := editor.Recv(ctx2); err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after the end: %v, want a queued message or ErrClosed", err)
	}
	for range editor.Messages() {
		// the range ends: the queue is closed at the end
	}
	if _, err := editor.Recv(ctx2); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv after the queue ran dry: %v, want ErrClosed", err)
	}
}

// TestPendingAtEOF: a call whose answer never comes fails with ErrClosed
// when the other side's output ends.
func TestPendingAtEOF(t *testing.T) {
	p, st := New("editor", nil)
	defer p.Close()
	go func() {
		st.Read() // the request
		st.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := p.Call(ctx, "initialize", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call at EOF: %v, want ErrClosed", err)
	}
	<-p.Done()
}

func TestMsgKinds(t *testing.T) {
	for _, c := range []struct {
		line               string
		req, notif, answer bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, true, false, false},
		{`{"jsonrpc":"2.0","method":"m"}`, false, true, false},
		{`{"jsonrpc":"2.0","id":"x","result":null}`, false, false, true},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"e"}}`, false, false, true},
	} {
		var m Msg
		if err := json.Unmarshal([]byte(c.line), &m); err != nil {
			t.Fatal(err)
		}
		if m.IsRequest() != c.req || m.IsNotification() != c.notif || m.IsResponse() != c.answer {
			t.Errorf("%s: request %v notification %v response %v", c.line, m.IsRequest(), m.IsNotification(), m.IsResponse())
		}
	}
}
