package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// peer is one outside end of a chain under test: it writes lines into the
// chain and reads what comes out.
type peer struct {
	w   *io.PipeWriter
	r   *bufio.Reader
	rc  *io.PipeReader
	out chan string
}

func (p *peer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

func (p *peer) recv(t *testing.T) string {
	t.Helper()
	line, ok := <-p.out
	if !ok {
		t.Fatal("peer: end of output")
	}
	return line
}

// harness runs a chain between two in-memory peers.
type harness struct {
	client, agent *peer
	done          chan error
	cancel        context.CancelFunc
}

// newPeerPair returns a peer and the chain's endpoint for it; the peer
// starts reading what the chain writes once hold is closed (nil: at once).
func newPeerPair(hold <-chan struct{}) (outside *peer, ep *Stream) {
	inR, inW := io.Pipe()   // peer → chain
	outR, outW := io.Pipe() // chain → peer
	p := &peer{w: inW, rc: outR, r: bufio.NewReader(outR), out: make(chan string, 100000)}
	go func() {
		defer close(p.out)
		if hold != nil {
			<-hold
		}
		lr := NewLineReader(outR, 0)
		for {
			l, err := lr.ReadLine()
			if err != nil {
				return
			}
			p.out <- string(l)
		}
	}()
	return p, NewStream(inR, outW, StreamOptions{})
}

func startChain(t *testing.T, comps ...Stage) *harness {
	t.Helper()
	return startChainHeld(t, nil, comps...)
}

// startChainHeld is startChain with a client that reads nothing until
// hold is closed.
func startChainHeld(t *testing.T, hold <-chan struct{}, comps ...Stage) *harness {
	t.Helper()
	return startChainSetUp(t, hold, nil, comps...)
}

// startChainSetUp is startChainHeld with setup run on the chain before it
// starts (nil: none), for tests that watch its internals.
func startChainSetUp(t *testing.T, hold <-chan struct{}, setup func(*Chain), comps ...Stage) *harness {
	t.Helper()
	return startChainConfig(t, hold, Config{Stages: comps}, setup)
}

// startChainConfig is startChainSetUp with the chain's Config (its ends
// are the harness's peers).
func startChainConfig(t *testing.T, hold <-chan struct{}, cfg Config, setup func(*Chain)) *harness {
	t.Helper()
	c, cep := newPeerPair(hold)
	cep.opts.ReplyParseErrors = true
	a, aep := newPeerPair(nil)
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{client: c, agent: a, done: make(chan error, 1), cancel: cancel}
	cfg.Client, cfg.Agent = cep, aep
	ch := NewChain(cfg)
	if setup != nil {
		setup(ch)
	}
	go func() { h.done <- ch.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		c.w.Close()
		a.w.Close()
		<-h.done
		c.rc.Close()
		a.rc.Close()
		for range c.out {
		}
		for range a.out {
		}
	})
	return h
}

func TestForwardByteForByte(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		t.Run(fmt.Sprint(n, " identities"), func(t *testing.T) {
			comps := make([]Stage, n)
			for i := range comps {
				comps[i] = Identity{}
			}
			h := startChain(t, comps...)
			for _, id := range []string{`0`, `"a b"`, `123456789012345678901234567890`, `-1.5e3`} {
				req := `{"jsonrpc":"2.0","id":` + id + `,"method":"_x/unknown","params":{"_meta":{"k":[1, 2]}, "z" : "é\u00e9"}}`
				h.client.send(t, req)
				if got := h.agent.recv(t); got != req {
					t.Fatalf("agent got %s, want %s", got, req)
				}
				resp := `{"id":` + id + `, "jsonrpc":"2.0","result":{"x":1.000}}`
				h.agent.send(t, resp)
				if got := h.client.recv(t); got != resp {
					t.Fatalf("client got %s, want %s", got, resp)
				}
				// Agent → client request, and its answer.
				areq := `{"jsonrpc":"2.0","id":` + id + `,"method":"session/request_permission","params":{}}`
				h.agent.send(t, areq)
				if got := h.client.recv(t); got != areq {
					t.Fatalf("client got %s", got)
				}
				aresp := `{"jsonrpc":"2.0","id":` + id + `,"result":{"outcome":{"outcome":"cancelled"}}}`
				h.client.send(t, aresp)
				if got := h.agent.recv(t); got != aresp {
					t.Fatalf("agent got %s", got)
				}
			}
			note := `{"jsonrpc":"2.0","method":"lsp/publishDiagnostics","params":{"uri":"file:///a"}}`
			h.client.send(t, note)
			if got := h.agent.recv(t); got != note {
				t.Fatalf("agent got %s", got)
			}
		})
	}
}

func TestUpdatesBeforePromptResponse(t *testing.T) {
	h := startChain(t, Identity{}, Identity{})
	h.client.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`)
	h.agent.recv(t)
	const n = 5000
	go func() {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","n":%d}}`+"\n", i)
		}
		b.WriteString(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}` + "\n")
		io.WriteString(h.agent.w, b.String())
	}()
	for i := 0; i < n; i++ {
		got := h.client.recv(t)
		if want := fmt.Sprintf(`"n":%d}`, i); !strings.Contains(got, want) {
			t.Fatalf("message %d: %s", i, got)
		}
	}
	if got := h.client.recv(t); !strings.Contains(got, "end_turn") {
		t.Fatalf("last: %s", got)
	}
}

// asker takes "_slow" requests and answers them later; on "_ask" it asks
// the agent and the client something and answers with both results.
type asker struct {
	Identity
	wg sync.WaitGroup
}

func (a *asker) FromClient(ctx context.Context, hop *Hop, m *Message) {
	switch {
	case m.Kind == KindRequest && m.Method == "_slow":
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			<-ctx.Done() // answered only when cancelled
			hop.ReplyError(m, CodeRequestCancelled, "cancelled", nil)
		}()
	case m.Kind == KindRequest && m.Method == "_ask":
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			ra, err := hop.CallAgent(ctx, "_q", json.RawMessage(`{"to":"agent"}`))
			if err != nil {
				hop.ReplyError(m, CodeInternalError, err.Error(), nil)
				return
			}
			rc, err := hop.CallClient(ctx, "_q", json.RawMessage(`{"to":"client"}`))
			if err != nil {
				hop.ReplyError(m, CodeInternalError, err.Error(), nil)
				return
			}
			hop.Reply(m, json.RawMessage(`[`+string(ra)+`,`+string(rc)+`]`))
		}()
	default:
		hop.ToAgent(m)
	}
}

func TestComponentOriginatesAndAnswers(t *testing.T) {
	a := &asker{}
	h := startChain(t, Identity{}, a, Identity{})
	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"_ask"}`)
	q := h.agent.recv(t)
	qm, err := Parse([]byte(q))
	if err != nil || qm.Method != "_q" {
		t.Fatalf("agent got %s", q)
	}
	// A client request with the same id as the component's call passes
	// through while the call is pending.
	h.client.send(t, `{"jsonrpc":"2.0","id":`+string(qm.ID)+`,"method":"x"}`)
	xs := h.agent.recv(t)
	xm, err := Parse([]byte(xs))
	if err != nil || xm.Method != "x" || string(xm.ID) == string(qm.ID) {
		t.Fatalf("agent got %s (the colliding id must be replaced)", xs)
	}
	h.agent.send(t, `{"jsonrpc":"2.0","id":`+string(qm.ID)+`,"result":"from-agent"}`)
	cq := h.client.recv(t)
	cm, err := Parse([]byte(cq))
	if err != nil || cm.Method != "_q" {
		t.Fatalf("client got %s", cq)
	}
	h.client.send(t, `{"jsonrpc":"2.0","id":`+string(cm.ID)+`,"result":"from-client"}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","id":1,"result":["from-agent","from-client"]}` {
		t.Fatalf("client got %s", got)
	}
	// The passed-on x is answered with the id the client used.
	h.agent.send(t, `{"jsonrpc":"2.0","id":`+string(xm.ID)+`,"result":"x-done"}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","id":`+string(qm.ID)+`,"result":"x-done"}` {
		t.Fatalf("client got %s", got)
	}
	// A taken request is cancelled through its ctx; the pipeline was not held up.
	h.client.send(t, `{"jsonrpc":"2.0","id":"s","method":"_slow"}`)
	h.client.send(t, `{"jsonrpc":"2.0","method":"n"}`)
	if got := h.agent.recv(t); got != `{"jsonrpc":"2.0","method":"n"}` {
		t.Fatalf("agent got %s", got)
	}
	h.client.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"s"}}`)
	if got := h.client.recv(t); !strings.Contains(got, `"id":"s"`) || !strings.Contains(got, "-32800") {
		t.Fatalf("client got %s", got)
	}
	a.wg.Wait()
}

func TestCancelTranslatedPerHop(t *testing.T) {
	h := startChain(t, Identity{}, &asker{})
	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"_ask"}`)
	q, _ := Parse([]byte(h.agent.recv(t)))
	// The client happens to use the id the component allocated.
	h.client.send(t, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"method":"session/prompt"}`)
	fwd, _ := Parse([]byte(h.agent.recv(t)))
	if string(fwd.ID) == string(q.ID) {
		t.Fatalf("colliding id passed unchanged: %s", fwd.Raw)
	}
	h.client.send(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":`+string(q.ID)+`}}`)
	want := `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + string(fwd.ID) + `}}`
	if got := h.agent.recv(t); got != want {
		t.Fatalf("agent got %s, want %s", got, want)
	}
	h.agent.send(t, `{"jsonrpc":"2.0","id":`+string(fwd.ID)+`,"error":{"code":-32800,"message":"cancelled"}}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"error":{"code":-32800,"message":"cancelled"}}` {
		t.Fatalf("client got %s", got)
	}
	// session/cancel is an ordinary notification and passes on.
	h.client.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)
	if got := h.agent.recv(t); !strings.Contains(got, "session/cancel") {
		t.Fatalf("agent got %s", got)
	}
	h.agent.send(t, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"result":1}`)
	h.client.recv(t) // the component's client call
}

func TestMalformedInput(t *testing.T) {
	h := startChain(t, Identity{})
	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":`)
	if got := h.client.recv(t); !strings.Contains(got, `"id":null`) || !strings.Contains(got, "-32700") {
		t.Fatalf("client got %s", got)
	}
	h.client.send(t, `{"jsonrpc":"2.0","id":1}`)
	if got := h.client.recv(t); !strings.Contains(got, "-32600") {
		t.Fatalf("client got %s", got)
	}
	h.agent.send(t, `garbage from the agent`)
	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	h.agent.recv(t)
	h.agent.send(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("client got %s", got)
	}
}

func TestAgentGoneAnswersPending(t *testing.T) {
	h := startChain(t, Identity{})
	h.client.send(t, `{"jsonrpc":"2.0","id":"p","method":"session/prompt"}`)
	h.agent.recv(t)
	h.agent.send(t, `{"jsonrpc":"2.0","method":"session/update","params":{}}`)
	h.agent.w.Close()
	if got := h.client.recv(t); !strings.Contains(got, "session/update") {
		t.Fatalf("client got %s", got)
	}
	got := h.client.recv(t)
	if !strings.Contains(got, `"id":"p"`) || !strings.Contains(got, "agent exited before answering session/prompt") {
		t.Fatalf("client got %s", got)
	}
	if err := <-h.done; !errors.Is(err, ErrAgentGone) {
		t.Fatalf("Run: %v", err)
	}
	h.done <- nil
}

// TestAgentGoneAnswersLaterRequests: requests the client sends after the
// agent side ended (it could not know yet: they may be in its pipe) are
// answered with the same error as the ones pending then, in order, with
// and without components between; notifications and answers are dropped;
// the chain ends when the client's input ends, long before the drain
// bound (an hour here).
func TestAgentGoneAnswersLaterRequests(t *testing.T) {
	for _, n := range []int{0, 2} {
		t.Run(fmt.Sprint(n, " identities"), func(t *testing.T) {
			comps := make([]Stage, n)
			for i := range comps {
				comps[i] = Identity{}
			}
			h := startChainSetUp(t, nil, func(c *Chain) { c.drain = time.Hour }, comps...)
			h.client.send(t, `{"jsonrpc":"2.0","id":"p","method":"session/prompt"}`)
			h.agent.recv(t)
			h.agent.w.Close()
			if got := h.client.recv(t); !strings.Contains(got, `"id":"p"`) || !strings.Contains(got, "agent exited before answering session/prompt") {
				t.Fatalf("client got %s", got)
			}
			h.client.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)
			h.client.send(t, `{"jsonrpc":"2.0","id":7,"result":{}}`)
			for _, id := range []string{`"q"`, `1`, `"p"`} {
				h.client.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"session/new","params":{}}`)
			}
			for _, id := range []string{`"q"`, `1`, `"p"`} {
				got := h.client.recv(t)
				if !strings.Contains(got, `"id":`+id+`,`) || !strings.Contains(got, "agent exited before answering session/new") || !strings.Contains(got, "-32603") {
					t.Fatalf("client got %s, want the error for %s", got, id)
				}
			}
			h.client.w.Close()
			if err := <-h.done; !errors.Is(err, ErrAgentGone) {
				t.Fatalf("Run: %v", err)
			}
			h.done <- nil
		})
	}
}

// TestAgentGoneAnswerBeforeEnd: a request that comes with the client's
// end of input, after the agent side ended, is answered before the chain
// ends, not dropped with the queue.
func TestAgentGoneAnswerBeforeEnd(t *testing.T) {
	for i := range 20 {
		h := startChainSetUp(t, nil, func(c *Chain) { c.drain = time.Hour }, Identity{})
		h.client.send(t, `{"jsonrpc":"2.0","id":"p","method":"session/prompt"}`)
		h.agent.recv(t)
		h.agent.w.Close()
		h.client.recv(t) // the pending prompt's answer
		h.client.send(t, `{"jsonrpc":"2.0","id":"q","method":"session/new"}`)
		h.client.w.Close()
		if got := h.client.recv(t); !strings.Contains(got, `"id":"q"`) || !strings.Contains(got, "agent exited before answering session/new") {
			t.Fatalf("run %d: client got %s", i, got)
		}
		if err := <-h.done; !errors.Is(err, ErrAgentGone) {
			t.Fatalf("run %d: Run: %v", i, err)
		}
		h.done <- nil
	}
}

// TestAgentInputBroken: a write to the agent that fails (a dead agent's
// input breaks before the end of its output is read) does not end the
// chain with the client's requests unanswered: what the agent still says
// is delivered, then the request that could not be written, and every one
// pending, is answered with why the agent side ended.
func TestAgentInputBroken(t *testing.T) {
	h := startChainSetUp(t, nil, func(c *Chain) { c.drain = time.Hour }, Identity{})
	h.client.send(t, `{"jsonrpc":"2.0","id":"a","method":"session/prompt"}`)
	h.agent.recv(t)
	h.agent.rc.Close() // the agent reads nothing more: writes to it fail
	h.client.send(t, `{"jsonrpc":"2.0","id":"b","method":"session/prompt"}`)
	h.agent.send(t, `{"jsonrpc":"2.0","method":"session/update","params":{"last":true}}`)
	h.agent.w.Close()
	if got := h.client.recv(t); !strings.Contains(got, `"last":true`) {
		t.Fatalf("client got %s, want the agent's last update", got)
	}
	answered := map[string]bool{}
	for range 2 {
		got := h.client.recv(t)
		for _, id := range []string{"a", "b"} {
			if strings.Contains(got, `"id":"`+id+`"`) && strings.Contains(got, "agent exited before answering session/prompt") {
				answered[id] = true
			}
		}
	}
	if !answered["a"] || !answered["b"] {
		t.Fatalf("answered %v, want a and b", answered)
	}
	h.client.w.Close()
	if err := <-h.done; !errors.Is(err, ErrAgentGone) {
		t.Fatalf("Run: %v", err)
	}
	h.done <- nil
}

// notifier is a Runner that sends n notifications toward the client from
// its own goroutine as soon as the chain starts.
type notifier struct {
	Identity
	n    int
	done chan struct{}
}

func (c *notifier) Run(ctx context.Context, hop *Hop) error {
	for i := range c.n {
		hop.NotifyClient("_n", json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)))
	}
	close(c.done)
	<-ctx.Done()
	return nil
}

// TestOtherGoroutinesNeverBlock: a component's own goroutine sends far
// more than the pipes hold while the client reads nothing; its sends
// queue and return (only the chain's own delivery waits for the peer),
// and everything then arrives in order, interleaved with what the agent
// sends (delivered on the agent reader's goroutine).
func TestOtherGoroutinesNeverBlock(t *testing.T) {
	const n = 20000
	c := &notifier{n: n, done: make(chan struct{})}
	hold := make(chan struct{})
	h := startChainHeld(t, hold, Identity{}, c)
	<-c.done // returned while the client has read nothing
	close(hold)
	h.agent.send(t, `{"jsonrpc":"2.0","method":"from-agent"}`)
	var sawAgent bool
	for i := 0; i < n; {
		got := h.client.recv(t)
		if strings.Contains(got, "from-agent") {
			sawAgent = true
			continue
		}
		if want := fmt.Sprintf(`{"i":%d}`, i); !strings.Contains(got, want) {
			t.Fatalf("message %d: %s", i, got)
		}
		i++
	}
	if !sawAgent {
		if got := h.client.recv(t); !strings.Contains(got, "from-agent") {
			t.Fatalf("client got %s", got)
		}
	}
}

// holder blocks in FromClient on "_hold" until release is closed; it is
// not Nonblocking.
type holder struct {
	release chan struct{}
}

func (*holder) Name() string { return "holder" }

func (h *holder) FromClient(ctx context.Context, hop *Hop, m *Message) {
	if m.Method == "_hold" {
		<-h.release
	}
	hop.ToAgent(m)
}

func (*holder) FromAgent(ctx context.Context, hop *Hop, m *Message) { hop.ToClient(m) }

// TestWaitingHandlerDoesNotHoldEarlierMessages: two messages arrive in one
// read; the first is written toward the agent, then a component's handler
// waits on the second. The first must reach the agent meanwhile: the
// reader flushes before calling a handler that may wait.
func TestWaitingHandlerDoesNotHoldEarlierMessages(t *testing.T) {
	hold := &holder{release: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(hold.release) }) }
	h := startChain(t, Identity{}, hold)
	t.Cleanup(release) // runs before the chain's cleanup
	first := `{"jsonrpc":"2.0","method":"first"}`
	io.WriteString(h.client.w, first+"\n"+`{"jsonrpc":"2.0","method":"_hold"}`+"\n")
	select {
	case got := <-h.agent.out:
		if got != first {
			t.Fatalf("agent got %s", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first message was held back behind a waiting handler")
	}
	release()
	if got := h.agent.recv(t); !strings.Contains(got, "_hold") {
		t.Fatalf("agent got %s", got)
	}
}

// picky passes "_pass" notifications unseen (Passer) and holds every other
// message it is handed toward the agent until release is closed; seen
// records what its handler got, holding says it holds one.
type picky struct {
	release chan struct{}
	holding chan struct{}
	mu      sync.Mutex
	seen    []string
}

func (*picky) Name() string { return "picky" }

func (p *picky) Passes(toAgent bool, method string) bool { return method == "_pass" }

func (p *picky) FromClient(_ context.Context, hop *Hop, m *Message) {
	p.mu.Lock()
	p.seen = append(p.seen, string(m.Params()))
	p.mu.Unlock()
	select {
	case p.holding <- struct{}{}:
	default:
	}
	<-p.release
	hop.ToAgent(m)
}

func (*picky) FromAgent(_ context.Context, hop *Hop, m *Message) { hop.ToClient(m) }

// origin sends what it is given toward the agent from its own goroutine.
type origin struct {
	Identity
	ch chan string
}

func (o *origin) Run(ctx context.Context, hop *Hop) error {
	for {
		select {
		case s := <-o.ch:
			m, _ := Parse([]byte(s))
			hop.ToAgent(m)
		case <-ctx.Done():
			return nil
		}
	}
}

// TestPasserKeepsOrder: notifications a Passer lets through skip its
// handler while it is idle, but never overtake a message it holds: they
// queue behind it, reach the handler, and arrive in order.
func TestPasserKeepsOrder(t *testing.T) {
	p := &picky{release: make(chan struct{}), holding: make(chan struct{}, 1)}
	o := &origin{ch: make(chan string)}
	// The agent can read 4 before picky's worker gives the queue up;
	// 5 is sent once it has, so it meets picky idle. Each give-up says
	// how many messages the handler had seen by then (it may give up
	// after 3 too, when 4 reaches the queue late).
	idle := make(chan int, 8)
	h := startChainSetUp(t, nil, func(c *Chain) {
		for _, n := range c.nodes {
			if n.comp == Stage(p) {
				n.q[down].released = func() {
					p.mu.Lock()
					seen := len(p.seen)
					p.mu.Unlock()
					idle <- seen
				}
			}
		}
	}, o, p, Identity{})
	note := func(method string, i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"i":%d}}`, method, i)
	}
	req := `{"jsonrpc":"2.0","id":4,"method":"_pass","params":{"i":4}}`
	h.client.send(t, note("_pass", 1))
	if got := h.agent.recv(t); got != note("_pass", 1) {
		t.Fatalf("agent got %s", got)
	}
	o.ch <- note("_see", 2) // picky's worker holds it
	<-p.holding
	h.client.send(t, note("_pass", 3))
	// The reader reads the next line only after it delivered 3: when
	// this write returns, 3 is in picky's queue, behind 2.
	h.client.send(t, req)
	close(p.release)
	for _, want := range []string{note("_see", 2), note("_pass", 3), req} {
		if got := h.agent.recv(t); got != want {
			t.Fatalf("agent got %s, want %s", got, want)
		}
	}
	for seen := range idle {
		if seen == 3 { // 2, 3 and 4: the give-up after 4
			break
		}
	}
	h.client.send(t, note("_pass", 5))
	if got := h.agent.recv(t); got != note("_pass", 5) {
		t.Fatalf("agent got %s", got)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// 1 and 5 skipped the handler; 3 waited behind 2 and was handed to it.
	if got := strings.Join(p.seen, " "); got != `{"i":2} {"i":3} {"i":4}` {
		t.Fatalf("handler saw %s", got)
	}
}

// renumberer takes every client request and sends a request of its own
// toward the agent under the same id (as a proxy process renumbering ids
// does), and hands the cancels it gets to cancels.
type renumberer struct {
	Identity
	cancels chan string
}

func (r *renumberer) FromClient(ctx context.Context, hop *Hop, m *Message) {
	switch {
	case m.Kind == KindRequest:
		hop.ToAgent(NewRequest(m.ID, "_own", nil))
	case m.Method == MethodCancelRequest:
		r.cancels <- string(m.Raw)
	default:
		hop.ToAgent(m)
	}
}

// TestCancelOfTakenRequestWithCollidingID: a client's $/cancel_request goes
// on by itself only for a request the component passed on. Here the
// component took the client's request and sent one of its own that
// happens to have the same id: the cancel is the component's to handle,
// and must not cancel the component's own request at the agent.
func TestCancelOfTakenRequestWithCollidingID(t *testing.T) {
	r := &renumberer{cancels: make(chan string, 1)}
	h := startChain(t, r)
	h.client.send(t, `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`)
	if got := h.agent.recv(t); got != `{"jsonrpc":"2.0","id":1,"method":"_own"}` {
		t.Fatalf("agent got %s", got)
	}
	cancel := `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`
	h.client.send(t, cancel)
	h.client.send(t, `{"jsonrpc":"2.0","method":"_after"}`)
	if got := h.agent.recv(t); got != `{"jsonrpc":"2.0","method":"_after"}` {
		t.Fatalf("agent got %s, want only _after", got)
	}
	if got := <-r.cancels; got != cancel {
		t.Fatalf("component got %s", got)
	}
	// Answer the component's own request; its answer comes to its handler.
	h.agent.send(t, `{"jsonrpc":"2.0","id":1,"result":null}`)
	if got := h.client.recv(t); got != `{"jsonrpc":"2.0","id":1,"result":null}` {
		t.Fatalf("client got %s", got)
	}
}
