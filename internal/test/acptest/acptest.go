// Package acptest is a scripted ACP peer: one end of a proxy chain (the
// editor or the agent) over in-memory pipes, for tests and benchmarks that
// run acp-lsp's chain in process. It replaces the copies each package kept
// of the same pipe pair, reader goroutine and request matching.
//
// A Peer writes JSON-RPC lines into the chain and reads the lines the chain
// writes back. Each line read goes first to the Peer's Handler (which may
// answer a request on the spot, as a scripted agent answers session/new),
// then, if it is the response to a Call, to that Call; everything else is
// queued for Recv in arrival order.
package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// Msg is one JSON-RPC message the peer read from the chain.
type Msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *proxy.Error    `json:"error"`
	// Raw is the line as the chain wrote it, newline included.
	Raw string `json:"-"`
}

// IsRequest reports whether m is a request (a method and an id).
func (m Msg) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification (a method, no id).
func (m Msg) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m is a response (an id, no method).
func (m Msg) IsResponse() bool { return m.Method == "" && m.ID != nil }

// Handler sees every message the chain writes to the peer, on the peer's
// reader goroutine, before anything else does; it returns true when it
// dealt with the message (which is then neither delivered to a Call nor
// queued). It may Send, Reply and Notify; it must not Call or Recv, which
// wait for this same goroutine.
type Handler func(p *Peer, m Msg) bool

// Peer is one scripted end of a chain. Its methods are safe for concurrent
// use; lines written concurrently are written whole, one after the other.
type Peer struct {
	name   string
	handle Handler
	w      io.WriteCloser
	in     chan Msg
	done   chan struct{} // closed when the chain's side ended (EOF)

	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan Msg
}

// queueSize is how many unread messages the peer keeps before its reader
// waits (and with it the chain's writes to this side).
const queueSize = 1024

// New returns a peer named name (for errors) and the stream to give the
// chain as its Client or Agent. handle may be nil.
func New(name string, handle Handler) (*Peer, *proxy.Stream) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Peer{name: name, handle: handle, w: inW, in: make(chan Msg, queueSize), done: make(chan struct{}), pending: map[string]chan Msg{}}
	go p.read(outR)
	return p, proxy.NewStream(inR, outW, proxy.StreamOptions{Name: name})
}

func (p *Peer) read(r io.Reader) {
	defer func() {
		p.mu.Lock()
		for id, ch := range p.pending {
			close(ch)
			delete(p.pending, id)
		}
		p.mu.Unlock()
		close(p.in)
		close(p.done)
	}()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m Msg
			if json.Unmarshal(line, &m) == nil {
				m.Raw = string(line)
				p.dispatch(m)
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Peer) dispatch(m Msg) {
	if p.handle != nil && p.handle(p, m) {
		return
	}
	if m.IsResponse() {
		p.mu.Lock()
		ch := p.pending[string(m.ID)]
		delete(p.pending, string(m.ID))
		p.mu.Unlock()
		if ch != nil {
			ch <- m
			return
		}
	}
	p.in <- m
}

// SendLine writes one line into the chain (the newline is added).
func (p *Peer) SendLine(line string) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		return fmt.Errorf("%s: send: %w", p.name, err)
	}
	return nil
}

// Send writes v, encoded as JSON, as one line into the chain.
func (p *Peer) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: send: %w", p.name, err)
	}
	return p.SendLine(string(b))
}

// Notify sends a notification.
func (p *Peer) Notify(method string, params any) error {
	return p.Send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Reply answers the request id with result.
func (p *Peer) Reply(id json.RawMessage, result any) error {
	return p.Send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// ReplyError answers the request id with a JSON-RPC error.
func (p *Peer) ReplyError(id json.RawMessage, code int, message string) error {
	return p.Send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// Call sends a request with an id of the peer's own ("acptest-N", so it
// never collides with ids a test writes itself) and waits for the response.
// A JSON-RPC error comes back as a *proxy.Error (errors.As finds it).
func (p *Peer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	p.nextID++
	id := strconv.Quote("acptest-" + strconv.FormatInt(p.nextID, 10))
	ch := make(chan Msg, 1)
	p.pending[id] = ch
	p.mu.Unlock()
	select {
	case <-p.done:
		p.forget(id)
		return nil, fmt.Errorf("%s: %s: %w", p.name, method, ErrClosed)
	default:
	}
	if err := p.Send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params}); err != nil {
		p.forget(id)
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %s: %w", p.name, method, ErrClosed)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s: %w", p.name, method, m.Error)
		}
		return m.Result, nil
	case <-ctx.Done():
		p.forget(id)
		return nil, fmt.Errorf("%s: %s: %w", p.name, method, ctx.Err())
	}
}

func (p *Peer) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// ErrClosed is returned once the chain's side of the peer has ended.
var ErrClosed = errors.New("the chain closed this side")

// Recv returns the next queued message: every message the Handler did not
// deal with and that is not the response to a Call, in arrival order.
func (p *Peer) Recv(ctx context.Context) (Msg, error) {
	select {
	case m, ok := <-p.in:
		if !ok {
			return Msg{}, fmt.Errorf("%s: %w", p.name, ErrClosed)
		}
		return m, nil
	case <-ctx.Done():
		return Msg{}, fmt.Errorf("%s: nothing arrived: %w", p.name, ctx.Err())
	}
}

// Expect is Recv for a test: it returns the next queued message and fails
// t when the chain closed this side or nothing arrived within wait.
func (p *Peer) Expect(t testing.TB, wait time.Duration) Msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	m, err := p.Recv(ctx)
	if err != nil {
		t.Fatalf("%v (waited %s)", err, wait)
	}
	return m
}

// RecvMethod returns the next queued message with method, and the
// messages passed over before it.
func (p *Peer) RecvMethod(ctx context.Context, method string) (Msg, []Msg, error) {
	var skipped []Msg
	for {
		m, err := p.Recv(ctx)
		if err != nil {
			return Msg{}, skipped, fmt.Errorf("%s: waiting for %s: %w", p.name, method, err)
		}
		if m.Method == method {
			return m, skipped, nil
		}
		skipped = append(skipped, m)
	}
}

// Messages is the queue Recv reads, for select and range: closed once
// the chain's side has ended and everything before was queued.
func (p *Peer) Messages() <-chan Msg { return p.in }

// Done is closed once the chain's side has ended and every queued message
// was delivered to the queue (Recv still returns those).
func (p *Peer) Done() <-chan struct{} { return p.done }

// Close ends the peer's side: the chain reads EOF from it.
func (p *Peer) Close() error { return p.w.Close() }
