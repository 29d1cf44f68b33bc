package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
)

// Stage is one stage of a chain client ⇄ [components…] ⇄ agent. It sees
// every message that reaches its position and decides what travels on: the
// same message, a changed one, an answer, or nothing.
//
// Contracts:
//   - FromClient is called for messages traveling toward the agent, FromAgent
//     for messages traveling toward the client. Calls for one direction are
//     made one at a time, in wire order; the two directions run concurrently.
//   - To keep order, a handler that passes a message on (Hop.ToAgent,
//     Hop.ToClient, possibly with a changed message) does so before it
//     returns. A message a handler passes on in the direction it handles,
//     on its own goroutine, is delivered on that goroutine (it may wait for
//     the peer to read, as a direct pipe would); every other send (the
//     other direction, or another goroutine) queues and never blocks.
//   - A handler may take a request and answer it later (Hop.Reply, from any
//     goroutine), e.g. after a slow language-server call; the pipeline does
//     not wait. Hop.Answer does this for it, and runs the work on the
//     goroutine of a component's Call* waiting for that very request. ctx of a request lives until the request is answered or
//     passed on, and is cancelled when the sender cancels it
//     ($/cancel_request) or the chain stops.
//   - A handler must not block waiting for Hop.CallAgent/CallClient: the
//     answer travels through the direction the handler is holding up. Call
//     from another goroutine.
//   - Responses to requests the component passed on are delivered to the
//     handler of the direction they travel in, with Message.Method set to
//     the request's method, so the component can change results (e.g. the
//     initialize response). Responses to requests the component originated
//     with Call* go to the caller, not to the handler.
//   - $/cancel_request for a request the component passed on (the Message
//     it was given, or a With* copy of it) is translated and passed on by
//     the chain itself; for a request the component took (even if it sent
//     a request of its own under the same id), the request's ctx is
//     cancelled and the notification is then delivered to the handler (the
//     component answers the request, typically with -32800, or passes the
//     cancel on itself).
type Stage interface {
	// Name names the component in logs and traces.
	Name() string
	// FromClient handles a message traveling from the client toward the agent.
	FromClient(ctx context.Context, hop *Hop, m *Message)
	// FromAgent handles a message traveling from the agent toward the client.
	FromAgent(ctx context.Context, hop *Hop, m *Message)
}

// Runner is implemented by components that need a goroutine for the life of
// the chain (e.g. to read from a child process). Run is called once when the
// chain starts; ctx is cancelled when the chain stops. A non-nil error other
// than ctx's stops the chain.
type Runner interface {
	Run(ctx context.Context, hop *Hop) error
}

// Flusher is implemented by endpoints and components that buffer what
// they write. The chain calls Flush when it has delivered everything
// queued for them for now, so a burst of messages costs one write. Flush
// may be called concurrently with writes.
type Flusher interface {
	Flush() error
}

// Nonblocking is implemented by components whose handlers return at once:
// they never wait for another message, a timer or a slow call (writing to
// a pipe that may be full is fine, and so is waiting for a Budget of the
// direction being handled: both wait only for hops further along). A side's reader keeps batching writes
// across them. Before it calls the handler of any other component, it
// flushes what it has written so far, so a handler that waits does not
// hold earlier messages back.
type Nonblocking interface {
	Nonblocking()
}

// Passer is implemented by components that let some notifications through
// unchanged without looking at them: for those, the chain hands a
// notification straight to the next hop, without a call of the handler,
// whenever the component has nothing queued or in hand in that direction
// (so the order of its own output is kept). An agent's stream of
// session/update then costs a component nothing. Passes is called on the
// delivering goroutine for every notification but $/cancel_request
// (which the chain translates per hop, and which cancels the ctx of a
// request the component took); it must be cheap, must not block,
// and must answer the same for the same arguments. It is not used while
// the chain traces (Config.Trace), which records every hop.
type Passer interface {
	Passes(toAgent bool, method string) bool
}

// Identity is the component that passes everything on unchanged. The
// chain lets notifications skip it as it does for a Passer (a type that
// embeds Identity and has handlers of its own is not skipped).
type Identity struct{}

// Nonblocking implements Nonblocking.
func (Identity) Nonblocking() {}

// Name implements Stage.
func (Identity) Name() string { return "identity" }

// FromClient implements Stage.
func (Identity) FromClient(_ context.Context, hop *Hop, m *Message) { hop.ToAgent(m) }

// FromAgent implements Stage.
func (Identity) FromAgent(_ context.Context, hop *Hop, m *Message) { hop.ToClient(m) }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return "jsonrpc error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// JSON-RPC error codes used on the wire.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
)

// ErrChainClosed is returned by Call* when the chain stops before the answer.
var ErrChainClosed = errors.New("chain closed")

// direction of travel.
type direction uint8

const (
	down direction = iota // toward the agent
	up                    // toward the client
)

func (d direction) String() string {
	if d == down {
		return "to-agent"
	}
	return "to-client"
}

// pending is a request a node sent and whose answer it awaits.
type pending struct {
	orig   json.RawMessage // id as the sender of the request used it
	method string
	waiter chan *Message // non-nil for Call*
}

// half is a node's state for requests it sends in one direction.
type half struct {
	pending map[string]*pending        // wire id → request
	fwd     map[string]json.RawMessage // orig id → wire id (passed-on requests)
	in      map[string]*incoming       // requests received traveling this way, not yet answered
	sendMu  sync.Mutex                 // keeps registration and enqueueing in call order
}

type incoming struct {
	cancel context.CancelFunc
	// req is the request's number (Message.req); passed, that the
	// component passed this very request on (register), so that its
	// $/cancel_request goes on by itself. An id alone cannot tell: a
	// component may take a request and send one of its own that happens
	// to have the same id (a proxy process numbering its own).
	req    uint64
	passed bool
}

// node is one position in the chain: an end (client or agent transport) or
// a component.
type node struct {
	c    *Chain
	idx  int
	name string
	comp Stage
	hop  *Hop
	end  bool      // a client or agent end (its comp is an *endComp)
	ec   *endComp  // n.comp when n is an end
	q    [2]*queue // q[down]: messages arriving from the client side
	mu   sync.Mutex
	h    [2]half // h[down]: requests sent toward the agent

	flusher Flusher // what buffers n's output, or nil
	// dirty[d]: written by the batching reader of direction d and not
	// flushed. Per direction, as each reader flushes only what it wrote
	// itself: the agent's reader flushing the client's writes to the
	// agent would wait on the agent's input while the agent waits for
	// it to read (issue 18: a flood froze the chain for good).
	dirty  [2]atomic.Bool
	quick  bool   // an end or a Nonblocking component
	passer Passer // n's comp as a Passer (nil when not, or tracing)
}

// Hop is a component's handle on the chain at its position. Its methods
// are safe for concurrent use; messages sent in one direction travel in the
// order of the calls. A handler may keep its hop and use it later from any
// goroutine.
type Hop struct {
	n *node
	// drv is the goroutine delivering the message the handler holds,
	// while the handler runs; sends in its direction continue on it.
	drv atomic.Pointer[driver]
}

// driver is a goroutine delivering messages in one direction: the reader
// of a side, or a node's worker. It is immutable once made.
type driver struct {
	dir direction
	// batch defers flushes: the reader flushes every written-to node
	// before it waits for more input (see IdleNotifier), so a burst read
	// at once is written at once.
	batch bool
	// slot, when set, is the Call* whose request this driver delivers:
	// the handler that takes the request may leave its work there
	// (Hop.Answer), to be run by the caller, which waits anyway.
	slot *slot
	// inner marks the goroutine of a Call* or of Hop.Answer's work. It
	// stops short of ends and of components that write to a pipe: a
	// caller must stay free to give up when its ctx ends, and a pipe may
	// be full.
	inner bool
}

// drives reports whether a send delivered by drv to nx runs nx's handler
// on drv's goroutine (when nx is idle) rather than queueing for a worker.
func (drv *driver) drives(nx *node) bool {
	return drv != nil && !(drv.inner && (nx.end || nx.flusher != nil))
}

// slot holds the work a handler left for a waiting Call* (Hop.Answer).
// It takes one function, and none once the caller has looked.
type slot struct{ f atomic.Pointer[func()] }

// shut is what a looked-at slot holds.
var shut = new(func())

// put leaves f for the caller, if the slot is still open.
func (s *slot) put(f func()) bool { return s.f.CompareAndSwap(nil, &f) }

// take closes the slot and returns what was left in it, or nil.
func (s *slot) take() func() {
	if p := s.f.Swap(shut); p != nil && p != shut {
		return *p
	}
	return nil
}

// driving returns the driver to continue on for a send in direction d.
func (h *Hop) driving(d direction) *driver {
	if drv := h.drv.Load(); drv != nil && drv.dir == d {
		return drv
	}
	return nil
}

// Name returns the component's name.
func (h *Hop) Name() string { return h.n.name }

// Logger returns the chain's logger, tagged with the component's name.
func (h *Hop) Logger() *slog.Logger { return h.n.c.log.With("hop", h.n.name) }

// ToAgent sends m on toward the agent: a request or notification passed on
// or originated, or the answer to a request that came from the agent side.
func (h *Hop) ToAgent(m *Message) { h.n.send(down, m, h.driving(down)) }

// ToClient sends m on toward the client.
func (h *Hop) ToClient(m *Message) { h.n.send(up, m, h.driving(up)) }

// Reply answers req (a request the component received) with result,
// toward the side it came from.
func (h *Hop) Reply(req *Message, result json.RawMessage) {
	d := h.n.replyDir(req)
	h.n.send(d, NewResponse(req.ID, result), h.driving(d))
}

// ReplyError answers req with a JSON-RPC error toward the side it came from.
func (h *Hop) ReplyError(req *Message, code int, message string, data any) {
	d := h.n.replyDir(req)
	h.n.send(d, NewErrorResponse(req.ID, code, message, data), h.driving(d))
}

// Answer takes req, a request the handler holds, and answers it with what
// f returns, without holding up the pipeline while f works (f may wait
// for a language server or another Call*). f runs once the handler has
// returned: on the goroutine of the Call* that sent req, when a component
// of this chain is waiting for it with nothing queued ahead (which spares
// the two goroutine switches of a hand-off each way), otherwise on a
// goroutine of its own. Either way the answer is delivered on that
// goroutine when the hops it crosses are idle. An *Error from f is sent as
// that JSON-RPC error, any other error as -32603. Call Answer at most once
// per request, from the handler, and do not also Reply.
func (h *Hop) Answer(req *Message, f func() (json.RawMessage, error)) {
	n := h.n
	run := func() {
		res, err := f()
		var m *Message
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Code: CodeInternalError, Message: err.Error()}
			}
			var data any
			if len(e.Data) > 0 {
				data = e.Data
			}
			m = NewErrorResponse(req.ID, e.Code, e.Message, data)
		} else {
			m = NewResponse(req.ID, res)
		}
		d := n.replyDir(req)
		// This goroutine holds nothing and only ends after the send, so it
		// may deliver the answer itself rather than wake a worker.
		n.send(d, m, &driver{dir: d, inner: true})
	}
	if drv := h.drv.Load(); drv != nil && drv.slot != nil && drv.slot.put(run) {
		return
	}
	go run()
}

// CallAgent sends a request originated by the component toward the agent
// and waits for the answer. Its id is allocated on this hop, so it never
// collides with ids of requests passed on. If ctx ends first,
// $/cancel_request is sent and ctx's error returned. A JSON-RPC error
// answer is returned as *Error.
func (h *Hop) CallAgent(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return h.n.call(ctx, down, method, params)
}

// CallClient is CallAgent toward the client.
func (h *Hop) CallClient(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return h.n.call(ctx, up, method, params)
}

// NotifyAgent sends a notification toward the agent.
func (h *Hop) NotifyAgent(method string, params json.RawMessage) {
	h.n.send(down, NewNotification(method, params), h.driving(down))
}

// NotifyClient sends a notification toward the client.
func (h *Hop) NotifyClient(method string, params json.RawMessage) {
	h.n.send(up, NewNotification(method, params), h.driving(up))
}

func (n *node) replyDir(req *Message) direction {
	k := idKey(req.ID)
	n.mu.Lock()
	defer n.mu.Unlock()
	if req.req != 0 {
		// The two directions number their requests independently: the
		// client's request 1 may be pending while the agent's request 1
		// is, so the id alone cannot tell; the request's number can.
		for _, d := range [...]direction{down, up} {
			if r, ok := n.h[d].in[k]; ok && r.req == req.req {
				return other(d)
			}
		}
	}
	if _, ok := n.h[up].in[k]; ok {
		return down
	}
	return up
}

func (n *node) next(d direction) *node {
	if d == down {
		return n.c.nodes[n.idx+1]
	}
	return n.c.nodes[n.idx-1]
}

func other(d direction) direction { return 1 - d }

// send registers m and queues it at the next node in direction d. With a
// driver (the caller delivers in direction d), an idle next node handles
// m on the caller's goroutine.
func (n *node) send(d direction, m *Message, drv *driver) {
	nx, m, claimed, direct := n.enqueue(d, m, drv)
	if direct {
		nx.receive(d, m, drv)
	}
	if claimed {
		nx.drain(d, drv)
	}
}

// enqueue registers m and queues it at the next node, as sent (its id
// may be replaced, see register); claimed reports that the caller now
// holds that node's queue (see queue.put), direct that sent itself was
// left out of it for the caller to deliver first.
func (n *node) enqueue(d direction, m *Message, drv *driver) (nx *node, sent *Message, claimed, direct bool) {
	h := &n.h[d]
	if !n.end {
		// An end sends only from its side's reader, one goroutine (the
		// end of input is pushed on that goroutine too), so its order
		// needs no lock; a component's hop may be used from any. Nor
		// does its reader hold m in a handler: the sent flag is for those.
		h.sendMu.Lock()
		defer h.sendMu.Unlock()
		m.sent.Store(true)
	}
	switch m.Kind {
	case KindRequest:
		sent := n.register(d, m, nil)
		if sent == nil {
			n.answerGone(m)
			return nil, nil, false, false
		}
		m = sent
	case KindResponse:
		// Answering a request that traveled the other way.
		n.mu.Lock()
		in := n.h[other(d)].in
		if r, ok := in[idKey(m.ID)]; ok {
			delete(in, idKey(m.ID))
			r.cancel()
		}
		n.mu.Unlock()
	case KindNotification:
		if m.Method == MethodCancelRequest {
			nm, ok := n.translateCancel(d, m)
			if !ok {
				m.release()
				return nil, nil, false, false
			}
			if nm != m {
				m = m.replacedBy(nm)
			}
		}
	}
	n.c.trace(n, d, m)
	nx = n.next(d)
	if m.Kind == KindNotification && m.Method != MethodCancelRequest {
		// Past the components that let it through unseen and have
		// nothing of this direction queued or in hand: m cannot overtake
		// anything they were given before it.
		for nx.passer != nil && nx.passer.Passes(d == down, m.Method) && nx.q[d].idle() {
			nx = nx.next(d)
		}
	}
	claimed, direct = nx.q[d].put(m, drv.drives(nx), true)
	return nx, m, claimed, direct
}

// drain delivers n's queued messages in direction d on the calling
// goroutine, which holds the queue, then flushes n if it buffers output.
func (n *node) drain(d direction, drv *driver) {
	for {
		m, ok := n.q[d].next()
		if !ok {
			break
		}
		n.receive(d, m, drv)
	}
	if n.flusher == nil {
		return
	}
	if drv.batch {
		n.dirty[drv.dir].Store(true)
		return
	}
	n.flush()
}

// deliverThrough delivers n's queue for direction d up to and including
// last, which the caller pushed after claiming the queue, then hands the
// queue on: whatever arrived since is a worker's, so the caller is
// not kept from its own work by messages that are not its own.
func (n *node) deliverThrough(d direction, last *Message, drv *driver) {
	// Messages queued ahead of last get a driver without the slot: their
	// handlers' work is not the caller's to run.
	plain := &driver{dir: d, inner: true}
	for {
		m, ok := n.q[d].next()
		if !ok {
			// Closed, or delivered in full: next gave the queue up.
			break
		}
		if m != last {
			n.receive(d, m, plain)
			continue
		}
		n.receive(d, m, drv)
		n.q[d].handOff()
		break
	}
	if n.flusher != nil {
		n.flush()
	}
}

// flush writes out what n buffered.
func (n *node) flush() {
	if err := n.flusher.Flush(); err != nil {
		if _, end := n.comp.(*endComp); end {
			n.writeFailed(err)
			return
		}
		n.c.log.Warn("flush", "hop", n.name, "err", err)
	}
}

// register records a request sent in direction d, rewriting its id when
// another request with the same id is still pending on this hop. It
// returns nil, recording nothing, for a client request at the client end
// once the agent side has ended (Chain.gone): answerGone answers it.
func (n *node) register(d direction, m *Message, waiter chan *Message) *Message {
	h := &n.h[d]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.idx == 0 && d == down && waiter == nil && n.c.gone != nil {
		return nil
	}
	orig := m.ID
	wire := orig
	if _, busy := h.pending[idKey(wire)]; busy || waiter != nil {
		for {
			wire = n.c.allocID()
			if _, busy := h.pending[idKey(wire)]; !busy {
				break
			}
		}
	}
	h.pending[idKey(wire)] = &pending{orig: orig, method: m.Method, waiter: waiter}
	if waiter == nil {
		h.fwd[idKey(orig)] = wire
		if r, ok := h.in[idKey(orig)]; ok && m.req != 0 && r.req == m.req {
			r.passed = true
		}
	}
	if string(wire) != string(orig) {
		nm, err := m.WithID(wire)
		if err == nil {
			nm.sent.Store(true)
			return m.replacedBy(nm)
		}
	}
	return m
}

// answerGone answers m, a client request register turned away at the
// client end, with why the agent side ended, as the requests pending then
// were answered; the answer goes out behind what is already on its way
// to the client.
func (n *node) answerGone(m *Message) {
	n.mu.Lock()
	gone := n.c.gone
	n.mu.Unlock()
	resp := goneAnswer(m.ID, m.Method, gone)
	m.release()
	n.q[up].push(&Message{ctl: &control{answer: resp}}, false)
}

// MethodCancelRequest is the protocol-level request cancellation.
const MethodCancelRequest = "$/cancel_request"

func cancelTarget(m *Message) (json.RawMessage, bool) {
	p := m.Params()
	if p == nil {
		return nil, false
	}
	id, ok := GetPath(p, "requestId")
	return id, ok
}

// translateCancel rewrites the requestId of a $/cancel_request sent in
// direction d to the id this hop used; unknown targets are dropped.
func (n *node) translateCancel(d direction, m *Message) (*Message, bool) {
	id, ok := cancelTarget(m)
	if !ok {
		return nil, false
	}
	n.mu.Lock()
	wire, ok := n.h[d].fwd[idKey(id)]
	n.mu.Unlock()
	if !ok {
		return nil, false
	}
	if string(wire) == string(id) {
		return m, true
	}
	raw, err := SetPath(m.Raw, wire, "params", "requestId")
	if err != nil {
		return nil, false
	}
	nm, err := Parse(raw)
	if err != nil {
		return nil, false
	}
	return nm, true
}

func (n *node) call(ctx context.Context, d direction, method string, params json.RawMessage) (json.RawMessage, error) {
	waiter := make(chan *Message, 1)
	req := NewRequest(json.RawMessage("0"), method, params)
	h := &n.h[d]
	nx := n.next(d)
	h.sendMu.Lock()
	req = n.register(d, req, waiter)
	n.c.trace(n, d, req)
	// The caller holds nothing and waits anyway: when the next hop is
	// idle it delivers the request itself, and runs the work of a handler
	// that takes it (Hop.Answer), rather than wake a worker for each.
	drv := &driver{dir: d, slot: &slot{}, inner: true}
	claimed := nx.q[d].push(req, drv.drives(nx))
	h.sendMu.Unlock()
	select {
	case <-n.c.ended:
		// Run fails the waiters it finds once the chain has ended; one
		// registered after that would wait forever.
		n.abandon(d, req.ID)
		return nil, fmt.Errorf("call %s: %w", method, n.c.closeErr())
	default:
	}
	if claimed {
		nx.deliverThrough(d, req, drv)
		if f := drv.slot.take(); f != nil {
			// Busy with the work, this goroutine cannot watch ctx: the
			// cancel goes out as it would have, and the work, whose ctx
			// it cancels, ends early.
			stop := context.AfterFunc(ctx, func() { n.abandon(d, req.ID) })
			f()
			stop()
		}
	}
	select {
	case resp := <-waiter:
		if resp == nil {
			return nil, fmt.Errorf("call %s: %w", method, n.c.closeErr())
		}
		if e := resp.Error(); e != nil {
			var re Error
			if err := json.Unmarshal(e, &re); err != nil {
				return nil, fmt.Errorf("call %s: bad error object: %w", method, err)
			}
			return nil, &re
		}
		return resp.Result(), nil
	case <-ctx.Done():
		n.abandon(d, req.ID)
		return nil, fmt.Errorf("call %s: %w", method, ctx.Err())
	}
}

// abandon forgets the Call* request id sent in direction d and, unless
// its answer already came, tells the next hop with $/cancel_request. It
// may run more than once for one request: only the first sends.
func (n *node) abandon(d direction, id json.RawMessage) {
	h := &n.h[d]
	n.mu.Lock()
	_, still := h.pending[idKey(id)]
	delete(h.pending, idKey(id))
	n.mu.Unlock()
	if !still {
		return
	}
	params, _ := json.Marshal(struct {
		RequestID json.RawMessage `json:"requestId"`
	}{id})
	c := NewNotification(MethodCancelRequest, params)
	h.sendMu.Lock()
	n.c.trace(n, d, c)
	n.next(d).q[d].push(c, false)
	h.sendMu.Unlock()
}

// receive handles a message that arrived at n traveling in direction d,
// delivered by drv.
func (n *node) receive(d direction, m *Message, drv *driver) {
	ctx := n.c.ctx
	if m.ctl != nil {
		n.control(d, m)
		return
	}
	switch m.Kind {
	case KindResponse:
		// An answer to a request n sent the other way.
		od := other(d)
		n.mu.Lock()
		p, ok := n.h[od].pending[idKey(m.ID)]
		if ok {
			delete(n.h[od].pending, idKey(m.ID))
			if p.waiter == nil {
				delete(n.h[od].fwd, idKey(p.orig))
			}
		}
		n.mu.Unlock()
		if !ok {
			n.c.log.Debug("dropping response to an unknown request", "hop", n.name, "id", string(m.ID))
			m.release()
			return
		}
		if p.waiter != nil {
			p.waiter <- m
			m.release()
			return
		}
		if string(p.orig) != string(m.ID) {
			nm, err := m.WithID(p.orig)
			if err != nil {
				n.c.log.Error("restoring a response id", "hop", n.name, "err", err)
				m.release()
				return
			}
			m.release()
			m = nm
		}
		m.Method = p.method
		n.handle(ctx, d, m, drv)
		return
	case KindRequest:
		rctx, cancel := context.WithCancel(ctx)
		m.req = n.c.reqs.Add(1)
		n.mu.Lock()
		n.h[d].in[idKey(m.ID)] = &incoming{cancel: cancel, req: m.req}
		n.mu.Unlock()
		n.handle(rctx, d, m, drv)
	case KindNotification:
		if m.Method == MethodCancelRequest {
			if id, ok := cancelTarget(m); ok {
				n.mu.Lock()
				r, taken := n.h[d].in[idKey(id)]
				passed := taken && r.passed
				n.mu.Unlock()
				if passed {
					n.send(d, m, drv)
					m.release()
					return
				}
				if taken {
					r.cancel()
				}
			}
		}
		n.handle(ctx, d, m, drv)
	}
}

func (n *node) handle(ctx context.Context, d direction, m *Message, drv *driver) {
	if e := n.ec; e != nil {
		// An end only writes m out: nothing passes it on, so the sent
		// flag and the handler's hop are not needed.
		if !e.copies {
			m.own() // the endpoint may keep what it writes
		}
		e.writeAt(n, m)
		m.release()
		return
	}
	m.sent.Store(false)
	if !n.quick && drv.batch {
		// The handler may wait: what the reader wrote before goes out now.
		n.c.flushDirty(drv.dir)
	}
	m.own() // a handler may keep m beyond this call
	// A hop of its own for this call: sends made through it while the
	// handler runs continue on drv; kept and used later, it queues.
	hop := &Hop{n: n}
	hop.drv.Store(drv)
	if d == down {
		n.comp.FromClient(ctx, hop, m)
	} else {
		n.comp.FromAgent(ctx, hop, m)
	}
	hop.drv.Store(nil)
	if !m.sent.Load() {
		m.release()
	}
}

// passAll is the Passer of Identity.
type passAll struct{}

func (passAll) Passes(bool, string) bool { return true }
