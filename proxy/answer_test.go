package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// goid returns the id of the calling goroutine, to tell where work ran.
func goid() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return id
}

// answerer takes every _work request coming from the agent side with
// Hop.Answer. Its work reports the goroutine it ran on, waits for release
// (when the params say "wait") and answers as the params say.
type answerer struct {
	Identity
	ran     chan int             // goroutine of each piece of work
	started chan struct{}        // work that waits has begun
	release chan struct{}        // lets waiting work finish
	ctxDone chan context.Context // the ctx of work that ended by it
	wg      sync.WaitGroup
}

func newAnswerer() *answerer {
	return &answerer{
		ran:     make(chan int, 16),
		started: make(chan struct{}, 16),
		release: make(chan struct{}),
		ctxDone: make(chan context.Context, 16),
	}
}

func (a *answerer) FromAgent(ctx context.Context, hop *Hop, m *Message) {
	if m.Kind != KindRequest || m.Method != "_work" {
		hop.ToClient(m)
		return
	}
	var p struct{ Do string }
	_ = json.Unmarshal(m.Params(), &p)
	a.wg.Add(1)
	hop.Answer(m, func() (json.RawMessage, error) {
		defer a.wg.Done()
		a.ran <- goid()
		switch p.Do {
		case "wait":
			a.started <- struct{}{}
			<-a.release
			return json.RawMessage(`"released"`), nil
		case "ctx":
			a.started <- struct{}{}
			<-ctx.Done()
			a.ctxDone <- ctx
			return nil, ctx.Err()
		case "rpc":
			return nil, &Error{Code: -32002, Message: "not yet", Data: json.RawMessage(`{"why":1}`)}
		case "plain":
			return nil, errors.New("broke")
		}
		return json.RawMessage(`{"ok":true}`), nil
	})
}

// hopper hands its hop out, for a test to call from.
type hopper struct {
	Identity
	hop chan *Hop
}

func (h *hopper) Run(ctx context.Context, hop *Hop) error {
	h.hop <- hop
	return nil
}

func startAnswerChain(t *testing.T) (*harness, *answerer, *Hop) {
	t.Helper()
	a := newAnswerer()
	c := &hopper{hop: make(chan *Hop, 1)}
	h := startChain(t, a, c)
	t.Cleanup(func() {
		close(a.release)
		a.wg.Wait()
	})
	return h, a, <-c.hop
}

// TestAnswerOnCallersGoroutine: a component's call to the next hop, idle,
// is served by the work Hop.Answer left, on the caller's own goroutine,
// and every kind of answer comes back as the work returned it.
func TestAnswerOnCallersGoroutine(t *testing.T) {
	_, a, hop := startAnswerChain(t)
	for _, tc := range []struct {
		do      string
		result  string
		code    int
		message string
		data    string
	}{
		{do: "", result: `{"ok":true}`},
		{do: "rpc", code: -32002, message: "not yet", data: `{"why":1}`},
		{do: "plain", code: CodeInternalError, message: "broke"},
	} {
		t.Run("do="+tc.do, func(t *testing.T) {
			me := goid()
			res, err := hop.CallClient(t.Context(), "_work", json.RawMessage(`{"do":"`+tc.do+`"}`))
			if got := <-a.ran; got != me {
				t.Errorf("work ran on goroutine %d, the caller is %d", got, me)
			}
			if tc.code == 0 {
				if err != nil || string(res) != tc.result {
					t.Fatalf("got %s, %v; want %s", res, err, tc.result)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code || e.Message != tc.message || string(e.Data) != tc.data {
				t.Fatalf("got %s, %#v; want code %d %q data %s", res, err, tc.code, tc.message, tc.data)
			}
		})
	}
}

// TestAnswerFromReaderDoesNotHoldPipeline: a request that arrives from a
// peer is worked on off the reader's goroutine; what the peer sends next
// passes while the work waits, and the answer reaches the peer with its id.
func TestAnswerFromReaderDoesNotHoldPipeline(t *testing.T) {
	h, a, _ := startAnswerChain(t)
	h.agent.send(t, `{"jsonrpc":"2.0","id":7,"method":"_work","params":{"do":"wait"}}`)
	<-a.ran
	<-a.started
	h.agent.send(t, `{"jsonrpc":"2.0","method":"session/update","params":{}}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","method":"session/update","params":{}}` {
		t.Fatalf("client got %s", got)
	}
	a.release <- struct{}{}
	if got := h.agent.recv(t); got != `{"jsonrpc":"2.0","id":7,"result":"released"}` {
		t.Fatalf("agent got %s", got)
	}
}

// TestAnswerCallerCancels: the caller gives up while it runs the work
// itself; the work's ctx ends ($/cancel_request reaches the hop that took
// the request) and the call returns ctx's error.
func TestAnswerCallerCancels(t *testing.T) {
	_, a, hop := startAnswerChain(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-a.started
		cancel()
	}()
	_, err := hop.CallClient(ctx, "_work", json.RawMessage(`{"do":"ctx"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("call returned %v, want context.Canceled", err)
	}
	<-a.ran
	if wctx := <-a.ctxDone; wctx.Err() == nil {
		t.Fatal("the work's ctx did not end")
	}
}

// TestCallNeverWritesToAnEnd: a call whose next hop is an end queues for
// the end's worker rather than write itself, so a peer that reads nothing
// cannot keep the caller from giving up.
func TestCallNeverWritesToAnEnd(t *testing.T) {
	hold := make(chan struct{})
	c := &hopper{hop: make(chan *Hop, 1)}
	startChainHeld(t, hold, c)
	t.Cleanup(func() { close(hold) })
	hop := <-c.hop
	// More than the end's write buffer, so writing it would block.
	big := json.RawMessage(`"` + string(bytes.Repeat([]byte("x"), 1<<20)) + `"`)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := hop.CallClient(ctx, "_big", big)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("call returned %v, want context.Canceled", err)
	}
}
