package conductor

import (
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// ProxyConn is the proxy side of the proxy-chain protocol on the one
// connection to an external conductor. It presents that connection as the
// two ends of a chain: Client (messages from and to the conductor's
// predecessor, unwrapped) and Successor (messages to and from the next
// component, carried in successor envelopes).
//
// It accepts both method families on input and answers in the family it
// was initialized with. The id spaces of requests it sends toward the
// client and toward the successor share the connection, so ids are kept
// as they are unless they collide; $/cancel_request is translated per hop
// and never wrapped.
type ProxyConn struct {
	s   *proxy.Stream
	log *slog.Logger

	famMu  sync.Mutex
	family Family
	famSet bool // an initialize chose family; later ones keep it

	out *outIDs // requests we sent to the conductor
	in  inIDs   // requests the conductor sent us, by side

	// The successor end's Read reads the connection itself and returns
	// successor messages directly (most traffic: session/update); messages
	// for the client end are handed over through toClient.
	toClient chan *proxy.Message
	readErr  error // set before toClient is closed
	readEnd  bool  // the connection's input ended (successor reader only)
	done     chan struct{}
	once     sync.Once
	closed   chan struct{}

	succOnce sync.Once
	succDone chan struct{} // the chain delivered the client's end to the successor end
}

// NewProxyConn returns a ProxyConn over r and w. The family defaults to
// FamilyPlain until an initialize method says otherwise.
func NewProxyConn(r io.Reader, w io.Writer, log *slog.Logger, maxLine int) *ProxyConn {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &ProxyConn{
		s:        proxy.NewStream(r, w, proxy.StreamOptions{Name: "conductor", MaxLine: maxLine, ReplyParseErrors: true, Logger: log}),
		log:      log,
		family:   FamilyPlain,
		out:      newOutIDs(),
		toClient: make(chan *proxy.Message, 64),
		done:     make(chan struct{}),
		closed:   make(chan struct{}),
		succDone: make(chan struct{}),
	}
	return c
}

// Family returns the family the conductor initialized this proxy with.
func (c *ProxyConn) Family() Family {
	c.famMu.Lock()
	defer c.famMu.Unlock()
	return c.family
}

// Client returns the chain end facing the client.
func (c *ProxyConn) Client() proxy.Endpoint { return &pcEnd{c: c, s: sideClient} }

// Successor returns the chain end facing the successor.
func (c *ProxyConn) Successor() proxy.Endpoint { return &pcEnd{c: c, s: sideAgent} }

// Wait blocks until the connection's input has ended or it was closed.
// Reading is done by the chain's reader of the successor end, which Run
// of the chain waits for.
func (c *ProxyConn) Wait() {
	select {
	case <-c.done:
	case <-c.closed:
	}
}

// readSuccessor reads the connection until a message for the successor
// end arrives, handing messages for the client end over on the way. At the
// end of input it closes the client end's channel and waits until the
// chain has delivered that end to the successor end (CloseWrite) or closed
// the connection.
func (c *ProxyConn) readSuccessor() (*proxy.Message, error) {
	for !c.readEnd {
		m, err := c.s.Read()
		if err != nil {
			c.readErr = err
			c.readEnd = true
			close(c.toClient)
			close(c.done)
			break
		}
		s, m, ok := c.dispatch(m)
		if !ok {
			continue
		}
		if s == sideAgent {
			return m, nil
		}
		select {
		case c.toClient <- m:
		case <-c.closed:
			c.readEnd = true
			close(c.done)
		}
	}
	// The client end reports the end of the connection; the successor end
	// waits until that end has traveled the chain down to it or the chain
	// closes it, so a disconnect is never mistaken for the agent dying,
	// and the chain ends as soon as everything is delivered.
	select {
	case <-c.closed:
	case <-c.succDone:
	}
	return nil, errors.New("the conductor closed the connection")
}

// dispatch routes one message from the conductor: to the client end or
// the successor end (ok false: answered or dropped here).
func (c *ProxyConn) dispatch(m *proxy.Message) (side, *proxy.Message, bool) {
	switch m.Kind {
	case proxy.KindResponse:
		e, ok := c.out.take(m.ID)
		if !ok {
			c.log.Warn("conductor answered an unknown request", "id", string(m.ID))
			return 0, nil, false
		}
		if string(e.orig) != string(m.ID) {
			nm, err := m.WithID(e.orig)
			if err != nil {
				c.log.Error("restoring a response id", "err", err)
				return 0, nil, false
			}
			m = nm
		}
		// An answer from the client travels down; one from the successor up.
		return e.side, m, true
	case proxy.KindRequest, proxy.KindNotification:
		fam, isInit, isSucc := familyOf(m.Method)
		switch {
		case isInit:
			if m.Kind != proxy.KindRequest {
				return 0, nil, false
			}
			// The family is fixed for the life of the connection: a
			// second initialize of the other family must not switch the
			// envelopes to methods the conductor does not speak.
			c.famMu.Lock()
			if !c.famSet {
				c.family, c.famSet = fam, true
			}
			c.famMu.Unlock()
			c.in.set(m.ID, sideClient)
			return sideClient, proxy.NewRequestUnchecked(m.ID, "initialize", m.Params()), true
		case isSucc:
			inner, err := unwrap(m)
			if err != nil {
				c.log.Warn("bad successor message", "err", err)
				if m.Kind == proxy.KindRequest {
					c.writeNow(proxy.NewErrorResponse(m.ID, proxy.CodeInvalidParams, err.Error(), nil))
				}
				return 0, nil, false
			}
			if inner.Kind == proxy.KindRequest {
				c.in.set(m.ID, sideAgent)
			}
			return sideAgent, inner, true
		case m.Method == proxy.MethodCancelRequest:
			// Hop-scoped: route to the side the cancelled request came from.
			s := sideClient
			if p := m.Params(); p != nil {
				if id, ok := proxy.GetPath(p, "requestId"); ok {
					if got, ok := c.in.get(id); ok {
						s = got
					}
				}
			}
			return s, m, true
		default:
			if m.Kind == proxy.KindRequest {
				c.in.set(m.ID, sideClient)
			}
			return sideClient, m, true
		}
	}
	return 0, nil, false
}

// writeNow writes m and flushes: for answers the reader sends itself.
func (c *ProxyConn) writeNow(m *proxy.Message) error {
	if err := c.s.Write(m); err != nil {
		return err
	}
	return c.s.Flush()
}

// writeOut writes m without flushing: the chain flushes the ends (Flush)
// once it has written what it had.
func (c *ProxyConn) writeOut(m *proxy.Message) error { return c.s.Write(m) }

// write sends m from the given chain end to the conductor.
func (c *ProxyConn) write(s side, m *proxy.Message) error {
	switch m.Kind {
	case proxy.KindResponse:
		c.in.del(m.ID)
		return c.writeOut(m)
	case proxy.KindRequest:
		wire := c.out.add(s, m.ID)
		if s == sideAgent {
			return c.writeOut(wrap(c.Family(), wire, m))
		}
		if string(wire) != string(m.ID) {
			nm, err := m.WithID(wire)
			if err != nil {
				return err
			}
			m = nm
		}
		return c.writeOut(m)
	default:
		if m.Method == proxy.MethodCancelRequest {
			id, ok := proxy.GetPath(m.Params(), "requestId")
			if !ok {
				return nil
			}
			wire, ok := c.out.wireOf(s, id)
			if !ok {
				return nil
			}
			return c.writeOut(proxy.NewNotification(proxy.MethodCancelRequest, cancelParams(wire)))
		}
		if s == sideAgent {
			return c.writeOut(wrap(c.Family(), nil, m))
		}
		return c.writeOut(m)
	}
}

// Close closes the connection; both ends report the end of input.
func (c *ProxyConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.s.Close()
}

type pcEnd struct {
	c    *ProxyConn
	s    side
	idle func()
}

// OnIdle implements proxy.IdleNotifier: f runs before Read waits for the
// next message (for the successor end, before it reads the connection).
func (e *pcEnd) OnIdle(f func()) {
	if e.s == sideAgent {
		e.c.s.OnIdle(f)
		return
	}
	e.idle = f
}

// Flush implements proxy.Flusher.
func (e *pcEnd) Flush() error { return e.c.s.Flush() }

func (e *pcEnd) Read() (*proxy.Message, error) {
	if e.s == sideAgent {
		return e.c.readSuccessor()
	}
	var m *proxy.Message
	var ok bool
	select {
	case m, ok = <-e.c.toClient:
	default:
		if e.idle != nil {
			e.idle()
		}
		select {
		case m, ok = <-e.c.toClient:
		case <-e.c.closed:
			return nil, io.EOF
		}
	}
	if !ok {
		// The successor end's reader closed the channel at the end of
		// the connection's input, after setting readErr.
		if err := e.c.readErr; err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, io.EOF
	}
	return m, nil
}

func (e *pcEnd) Write(m *proxy.Message) error { return e.c.write(e.s, m) }

func (e *pcEnd) Close() error { return e.c.Close() }

// CloseWrite is called by the chain on the successor end when the client's
// end of input has reached it: nothing more will be sent to the successor.
// The connection's input has ended (that is the only way the client's
// input ends here), so nothing more can come from the successor either.
func (e *pcEnd) CloseWrite() error {
	if e.s == sideAgent {
		e.c.succOnce.Do(func() { close(e.c.succDone) })
	}
	return nil
}
