package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/sessionsetup"
)

// Endpoint is one end of a chain: the client side or the agent side.
// Read is called from one goroutine, Write from one (other) goroutine.
type Endpoint interface {
	// Read returns the next message arriving from outside. Input that is
	// not a message is handled by the endpoint (answered or logged) and
	// skipped. At the end of input Read returns an error: io.EOF for an
	// orderly end, or an error describing what happened (e.g. the agent's
	// exit status).
	Read() (*Message, error)
	// Write sends a message out.
	Write(m *Message) error
	// Close ends the endpoint and makes a blocked Read return.
	Close() error
}

// Config configures a Chain.
type Config struct {
	// Client is the editor side; Agent the agent side.
	Client, Agent Endpoint
	// Stages sit between them, client side first.
	Stages []Stage
	// Logger receives the chain's logs; nil discards them.
	Logger *slog.Logger
	// Drain bounds how long the chain keeps delivering the agent's output
	// after the client's input ended; default 1s. The chain normally ends
	// before, as soon as the end of input has reached the agent (its stdin
	// is closed) and the agent's output has ended and been delivered, so
	// a piped, one-shot client gets its answers; the bound is for an agent
	// that does not exit on EOF (then it is stopped).
	Drain time.Duration
	// Trace, when set, receives every message of every hop as one NDJSON
	// line {"time","hop","dir","msg"} with the message's raw bytes embedded.
	Trace io.Writer
}

// Barrier is implemented by components that hold messages outside the
// chain, such as an external proxy process, where the chain cannot see
// when everything sent earlier has come out. When a direction's input
// ends (the client's input, towardAgent; the agent's output, !towardAgent)
// the chain calls Barrier instead of passing the end on at once; the
// component calls pass once every message it received before it in that
// direction has been passed on, and the end then travels on behind them.
// So shutdown waits for events, not for a fixed time. pass may be called
// from any goroutine; calls after the first are ignored.
type Barrier interface {
	Barrier(towardAgent bool, pass func())
}

// ErrAgentGone wraps the reason the agent side ended; Run returns it after
// the client's pending requests were answered with an error.
var ErrAgentGone = errors.New("agent side ended")

// Chain runs messages between a client and an agent through components.
type Chain struct {
	// ctx is Run's context (the chain's lifetime, not a request's): the
	// parent of the contexts handlers get.
	ctx   context.Context
	nodes []*node
	log   *slog.Logger
	gates [2]*gate

	idMu   sync.Mutex
	nextID uint64

	// reqs numbers the requests delivered to components (Message.req).
	reqs atomic.Uint64

	traceMu sync.Mutex
	traceW  io.Writer
	traceB  []byte
	// secrets are written to the trace as redactedMark (Hop.Redact).
	secrets []*redaction

	// agentWriteOnce makes the first failed write to the agent end
	// start its bound (node.writeFailed).
	agentWriteOnce sync.Once
	// gone is why the agent side ended, once the client end has
	// answered the requests pending then; guarded by the client end's
	// node mu. From then on the client's requests are answered with it.
	gone       error
	drain      time.Duration
	clientGone atomic.Bool

	endOnce sync.Once
	endErr  error
	ended   chan struct{}
}

type control struct {
	err error
	// answer, at the client end, is an error answer to a client request
	// that came after the agent side ended (node.register), written out
	// in order with everything else going to the client.
	answer *Message
	// end, at the client end, ends the chain with this error once what
	// was queued toward the client before it is out.
	end error
}

const (
	gateBytes = 32 << 20
	gateCount = 8192
)

// NewChain builds a chain; Run starts it.
func NewChain(cfg Config) *Chain {
	c := &Chain{log: cfg.Logger, traceW: cfg.Trace, ended: make(chan struct{}), drain: cfg.Drain}
	if c.drain <= 0 {
		c.drain = time.Second
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	// Ids this chain allocates start high, away from the small integers
	// peers count from; collisions are still checked.
	c.nextID = 1 << 40
	c.gates = [2]*gate{newGate(gateBytes, gateCount), newGate(gateBytes, gateCount)}
	add := func(name string, comp Stage) {
		n := &node{c: c, idx: len(c.nodes), name: name, comp: comp}
		n.hop = &Hop{n: n}
		if e, ok := comp.(*endComp); ok {
			n.end, n.quick, n.ec = true, true, e
			n.flusher, _ = e.ep.(Flusher)
		} else {
			n.flusher, _ = comp.(Flusher)
			_, n.quick = comp.(Nonblocking)
			if c.traceW == nil {
				n.passer, _ = comp.(Passer)
				if _, ok := comp.(Identity); ok {
					n.passer = passAll{}
				}
			}
		}
		for d := range n.q {
			n.q[d] = newQueue()
			n.h[d] = half{pending: map[string]*pending{}, fwd: map[string]json.RawMessage{}, in: map[string]*incoming{}}
		}
		c.nodes = append(c.nodes, n)
	}
	add("client", &endComp{ep: cfg.Client, copies: writeCopies(cfg.Client)})
	for _, comp := range cfg.Stages {
		add(comp.Name(), comp)
	}
	add("agent", &endComp{ep: cfg.Agent, copies: writeCopies(cfg.Agent)})
	return c
}

// writeCopies reports whether ep's Write copies the message into its
// own buffer and keeps no reference to it.
func writeCopies(ep Endpoint) bool {
	switch ep.(type) {
	case *Stream, *Process:
		return true
	}
	return false
}

// endComp writes what reaches an end to its endpoint.
type endComp struct {
	ep  Endpoint
	err error
	// copies is set when ep's Write keeps nothing of the message (a
	// Stream, a Process), so a lent message needs no copy to reach it.
	copies bool
}

// lender is implemented by endpoints that can lend the messages they
// read (Stream.lendLines): the chain's reader copies a message only when
// it could outlive its delivery.
type lender interface {
	lendLines()
}

func (e *endComp) Name() string { return "end" }
func (e *endComp) FromClient(_ context.Context, hop *Hop, m *Message) {
	e.write(hop, m)
}
func (e *endComp) FromAgent(_ context.Context, hop *Hop, m *Message) {
	e.write(hop, m)
}
func (e *endComp) write(hop *Hop, m *Message) { e.writeAt(hop.n, m) }

func (e *endComp) writeAt(n *node, m *Message) {
	if err := e.ep.Write(m); err != nil {
		n.writeFailed(err)
	}
}

// writeFailed handles a failed write to an end's endpoint. At the client
// end the chain ends. At the agent end it is the agent side ending: a dead
// agent's input breaks before the end of its output is read, and ending
// the chain there would leave the client's pending requests unanswered.
// So the chain goes on until the agent end's reader sees that end, which
// travels up behind what the agent said and answers them (node.control);
// an agent that broke its input but keeps its output open is closed after
// the drain bound, which makes the reader see it.
func (n *node) writeFailed(err error) {
	if n.idx != len(n.c.nodes)-1 {
		n.c.end(fmt.Errorf("write to %s: %w", n.name, err))
		return
	}
	n.c.agentWriteOnce.Do(func() {
		n.c.log.Debug("write to the agent failed; waiting for the end of its output", "err", err)
		ep := n.comp.(*endComp).ep
		n.c.afterDrain(func() { ep.Close() })
	})
}

// goneAnswer is the answer to the client's request id (method) that the
// agent side, ended for why, will never answer.
func goneAnswer(id json.RawMessage, method string, why error) *Message {
	return NewErrorResponse(id, CodeInternalError, "agent exited before answering "+method+": "+why.Error(), nil)
}

// afterDrain runs f after the drain bound unless the chain ends first.
func (c *Chain) afterDrain(f func()) {
	t := time.AfterFunc(c.drain, f)
	go func() {
		<-c.ended
		t.Stop()
	}()
}

func (c *Chain) end(err error) {
	c.endOnce.Do(func() {
		c.endErr = err
		close(c.ended)
	})
}

func (c *Chain) closeErr() error {
	select {
	case <-c.ended:
		if c.endErr != nil {
			return fmt.Errorf("%w: %w", ErrChainClosed, c.endErr)
		}
	default:
	}
	return ErrChainClosed
}

// Run forwards messages until the client side ends (nil), the agent side
// ends (an error wrapping ErrAgentGone, after answering the client's
// pending requests with a JSON-RPC error saying why), a component's Run
// fails, or ctx is done. It closes both endpoints and waits for every
// goroutine it started before returning.
func (c *Chain) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.ctx = ctx
	var wg sync.WaitGroup
	top, bottom := c.nodes[0], c.nodes[len(c.nodes)-1]
	for _, n := range c.nodes {
		for d := range n.q {
			if (n == top && direction(d) == down) || (n == bottom && direction(d) == up) {
				continue
			}
			// The worker delivers what was queued while nobody was
			// delivering in this direction (sends from other goroutines,
			// answers crossing directions), and everything it causes
			// downstream; it flushes when it runs out.
			wg.Add(1)
			go func() {
				defer wg.Done()
				drv := &driver{dir: direction(d)}
				for {
					m, ok := n.q[d].claim()
					if !ok {
						return
					}
					n.receive(direction(d), m, drv)
					n.drain(direction(d), drv)
				}
			}()
		}
		if r, ok := n.comp.(Runner); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := r.Run(ctx, n.hop); err != nil && ctx.Err() == nil {
					c.end(fmt.Errorf("%s: %w", n.name, err))
				}
			}()
		}
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		c.read(top, down, top.comp.(*endComp).ep)
	}()
	go func() {
		defer wg.Done()
		c.read(bottom, up, bottom.comp.(*endComp).ep)
	}()
	select {
	case <-ctx.Done():
		c.end(ctx.Err())
	case <-c.ended:
	}
	cancel()
	for _, g := range c.gates {
		g.close()
	}
	for _, n := range c.nodes {
		for _, q := range n.q {
			q.close()
		}
	}
	top.comp.(*endComp).ep.Close()
	bottom.comp.(*endComp).ep.Close()
	wg.Wait()
	for _, n := range c.nodes {
		n.failWaiters()
	}
	return c.endErr
}

func (n *node) failWaiters() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := range n.h {
		h := &n.h[i]
		for k, p := range h.pending {
			if p.waiter != nil {
				close(p.waiter)
				delete(h.pending, k)
			}
		}
	}
}

// IdleNotifier is implemented by endpoints that can tell when Read is
// about to wait for input (Stream, Process). The chain's reader of such an
// endpoint writes what it forwards without flushing and flushes when its
// input runs dry, so a burst read in one system call is written in one.
type IdleNotifier interface {
	// OnIdle registers f, called on the reading goroutine each time Read
	// is about to wait for input. It is called before the first Read.
	OnIdle(f func())
}

// flushDirty flushes every node the batching reader of direction d
// wrote to, and only those: a reader never waits on writing to its own
// side, which may be waiting for it to read.
func (c *Chain) flushDirty(d direction) {
	for _, n := range c.nodes {
		if n.flusher != nil && n.dirty[d].Swap(false) {
			n.flush()
		}
	}
}

// read feeds messages from an endpoint into the chain. It delivers each
// message itself as far as the next hops are idle (no goroutine hand-off
// on an idle chain); with an endpoint that tells it when input runs dry it
// flushes only then, so a burst read in one system call is written in
// one.
func (c *Chain) read(n *node, d direction, ep Endpoint) {
	g := c.gates[d]
	drv := &driver{dir: d}
	var beforeWait func()
	if l, ok := ep.(lender); ok {
		// Every message read is delivered (or copied, see
		// Message.own) before the next Read.
		l.lendLines()
	}
	if in, ok := ep.(IdleNotifier); ok {
		drv.batch = true
		beforeWait = func() { c.flushDirty(d) }
		in.OnIdle(beforeWait)
		defer beforeWait()
	}
	for {
		m, err := ep.Read()
		if err != nil {
			if d == down {
				// Under the client end's lock, as the agent side's end
				// takes it (node.control): exactly one of the two ends the
				// chain.
				n.mu.Lock()
				gone := c.gone
				if gone == nil && errors.Is(err, io.EOF) {
					c.clientGone.Store(true)
				}
				n.mu.Unlock()
				if gone != nil {
					// Both sides have ended: end behind the answers to
					// requests turned away (node.answerGone), which are
					// queued toward the client.
					n.q[up].push(&Message{ctl: &control{end: fmt.Errorf("%w: %w", ErrAgentGone, gone)}}, false)
					return
				}
				if !errors.Is(err, io.EOF) {
					c.end(fmt.Errorf("client side: %w", err))
					return
				}
				// The client is gone: close the agent's input, deliver what
				// it still says for a short while, then end.
				n.next(d).q[d].push(&Message{ctl: &control{err: err}}, false)
				c.afterDrain(func() { c.end(nil) })
				return
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("the agent closed its output")
			}
			// Travels up behind every message the agent sent before it.
			n.next(d).q[d].push(&Message{ctl: &control{err: err}}, false)
			return
		}
		if m.lent != nil {
			// A lent message is charged only if it comes to outlive its
			// delivery on this goroutine (Message.own), as when it is
			// queued behind a busy hop: one delivered straight through
			// holds nothing when the next Read comes, and costs the gate
			// nothing. The reader still waits while the gate is full.
			if !g.room(len(m.Raw), beforeWait) {
				return
			}
			m.charge = g
		} else {
			if !g.acquire(len(m.Raw), beforeWait) {
				return
			}
			m.credit.Store(g)
		}
		n.send(d, m, drv)
	}
}

// control passes a chain control message on; at the client end it answers
// the client's pending requests and ends the chain.
func (n *node) control(d direction, m *Message) {
	if d == down {
		// The client's input ended: pass it on to the agent end, behind
		// every earlier message. A component holding messages outside the
		// chain passes it on when those are out (Barrier); one with its
		// own goroutine that cannot say may still carry earlier messages,
		// so there the end stops and the drain bound ends the chain.
		if n.idx < len(n.c.nodes)-1 {
			if b, ok := n.comp.(Barrier); ok {
				var once sync.Once
				b.Barrier(true, func() { once.Do(func() { n.next(d).q[d].push(m, false) }) })
				return
			}
			if _, async := n.comp.(Runner); async {
				return
			}
			n.next(d).q[d].push(m, false)
			return
		}
		ep := n.comp.(*endComp).ep
		if f, ok := ep.(interface{ Flush() error }); ok {
			f.Flush()
		}
		if cw, ok := ep.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		return
	}
	if m.ctl.answer != nil {
		// Only pushed at the client end (node.answerGone).
		ep := n.comp.(*endComp).ep
		n.c.trace(n, up, m.ctl.answer)
		err := ep.Write(m.ctl.answer)
		if f, ok := ep.(interface{ Flush() error }); ok && err == nil {
			err = f.Flush()
		}
		if err != nil {
			n.writeFailed(err)
		}
		return
	}
	if m.ctl.end != nil {
		// Only pushed at the client end (Chain.read).
		n.c.end(m.ctl.end)
		return
	}
	n.mu.Lock()
	clientGone := n.c.clientGone.Load()
	var orphans []*pending
	for k, p := range n.h[down].pending {
		if p.waiter != nil {
			close(p.waiter)
		} else if n.idx == 0 && !clientGone {
			orphans = append(orphans, p)
		}
		delete(n.h[down].pending, k)
	}
	if n.idx == 0 && !clientGone {
		// Under the same lock as the pending requests are taken: a client
		// request is either among them or registered after, and answered
		// there; and the client's end of input, taking the lock too, sees
		// it and ends the chain (Chain.read).
		n.c.gone = m.ctl.err
	}
	n.mu.Unlock()
	if n.idx != 0 {
		if b, ok := n.comp.(Barrier); ok {
			var once sync.Once
			b.Barrier(false, func() { once.Do(func() { n.next(d).q[d].push(m, false) }) })
			return
		}
		n.next(d).q[d].push(m, false)
		return
	}
	ep := n.comp.(*endComp).ep
	for _, p := range orphans {
		resp := goneAnswer(p.orig, p.method, m.ctl.err)
		n.c.trace(n, up, resp)
		if err := ep.Write(resp); err != nil {
			break
		}
	}
	if f, ok := ep.(interface{ Flush() error }); ok {
		f.Flush()
	}
	if clientGone {
		n.c.end(nil)
		return
	}
	// The client may have sent requests it could not know were too late:
	// they are answered with this error as they come (node.register),
	// until the client's input ends or, at most, the drain bound.
	err := fmt.Errorf("%w: %w", ErrAgentGone, m.ctl.err)
	n.c.afterDrain(func() { n.c.end(err) })
}

func (c *Chain) allocID() json.RawMessage {
	c.idMu.Lock()
	c.nextID++
	id := c.nextID
	c.idMu.Unlock()
	return json.RawMessage(strconv.FormatUint(id, 10))
}

// trace writes one trace line; the message is embedded, not re-encoded,
// with the secrets registered by Hop.Redact blotted out, and those of a
// session setup request's MCP servers (redactSetup), whoever put them
// there. Only the trace's copy changes: m goes on as it came.
func (c *Chain) trace(n *node, d direction, m *Message) {
	if c.traceW == nil {
		return
	}
	c.traceMu.Lock()
	defer c.traceMu.Unlock()
	b := c.traceB[:0]
	b = append(b, `{"time":"`...)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","hop":`...)
	b = appendKey(b, n.name)
	b = b[:len(b)-1]
	b = append(b, `,"dir":"`...)
	b = append(b, d.String()...)
	b = append(b, `","msg":`...)
	raw := m.Raw
	if m.Kind == KindRequest && sessionsetup.Is(m.Method) {
		raw = redactSetup(raw)
	}
	b = appendRedacted(b, raw, c.secrets)
	b = append(b, "}\n"...)
	c.traceW.Write(b)
	if cap(b) < 1<<20 {
		c.traceB = b
	}
}
