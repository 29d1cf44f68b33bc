package conductor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// External is a chain component backed by an external proxy process that
// speaks the proxy side of the proxy-chain protocol; External plays the
// conductor toward it. Messages from the client side are sent to it plain
// (initialize as <family>/initialize); messages from the agent side are
// sent wrapped in <family>/successor. What it sends plain travels toward
// the client; what it sends wrapped travels toward the agent.
type External struct {
	name   string
	argv   []string
	family Family
	opts   proxy.ProcessOptions
	p      *proxy.Process
	out    *outIDs // requests sent to the process
	in     inIDs   // requests the process sent, by the side they travel to
}

// NewExternal returns a component that will run argv as a proxy process,
// initializing it in the given family. opts configure the process (its
// Name defaults to name).
func NewExternal(name string, argv []string, family Family, opts proxy.ProcessOptions) *External {
	if opts.Name == "" {
		opts.Name = name
	}
	return &External{name: name, argv: argv, family: family, opts: opts, out: newOutIDs()}
}

// Start starts the process. It must be called before the chain runs.
func (x *External) Start() error {
	p, err := proxy.StartProcess(x.argv, x.opts)
	if err != nil {
		return err
	}
	x.p = p
	return nil
}

// Stop ends the process group (see proxy.Process.Stop).
func (x *External) Stop(grace time.Duration) {
	if x.p != nil {
		x.p.Stop(grace)
	}
}

// Process returns the running process (nil before Start).
func (x *External) Process() *proxy.Process { return x.p }

// Name implements proxy.Component.
func (x *External) Name() string { return x.name }

// send writes m to the process; the chain flushes (Flush) once it has
// written what it had, so a burst costs one write.
func (x *External) send(hop *proxy.Hop, m *proxy.Message) {
	if err := x.p.Write(m); err != nil {
		hop.Logger().Warn("write to proxy process", "err", err)
	}
}

// sendNow writes m and flushes, for answers Run sends itself.
func (x *External) sendNow(hop *proxy.Hop, m *proxy.Message) {
	x.send(hop, m)
	if err := x.p.Flush(); err != nil {
		hop.Logger().Warn("write to proxy process", "err", err)
	}
}

// Flush implements proxy.Flusher.
func (x *External) Flush() error { return x.p.Flush() }

// FromClient implements proxy.Component.
func (x *External) FromClient(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch m.Kind {
	case proxy.KindRequest:
		wire := x.out.add(sideClient, m.ID)
		method := m.Method
		if method == "initialize" {
			method = x.family.Initialize()
		}
		if method != m.Method || string(wire) != string(m.ID) {
			m = proxy.NewRequest(wire, method, m.Params())
		}
		x.send(hop, m)
	case proxy.KindNotification:
		if m.Method == proxy.MethodCancelRequest {
			x.sendCancel(hop, sideClient, m)
			return
		}
		x.send(hop, m)
	case proxy.KindResponse:
		x.in.del(m.ID)
		x.send(hop, m)
	}
}

// FromAgent implements proxy.Component.
func (x *External) FromAgent(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch m.Kind {
	case proxy.KindRequest:
		wire := x.out.add(sideAgent, m.ID)
		x.send(hop, wrap(x.family, wire, m))
	case proxy.KindNotification:
		if m.Method == proxy.MethodCancelRequest {
			x.sendCancel(hop, sideAgent, m)
			return
		}
		x.send(hop, wrap(x.family, nil, m))
	case proxy.KindResponse:
		x.in.del(m.ID)
		x.send(hop, m)
	}
}

func (x *External) sendCancel(hop *proxy.Hop, s side, m *proxy.Message) {
	id, ok := proxy.GetPath(m.Params(), "requestId")
	if !ok {
		return
	}
	if wire, ok := x.out.wireOf(s, id); ok {
		x.send(hop, proxy.NewNotification(proxy.MethodCancelRequest, cancelParams(wire)))
	}
}

// Run implements proxy.Runner: it routes what the process sends.
func (x *External) Run(ctx context.Context, hop *proxy.Hop) error {
	stop := context.AfterFunc(ctx, func() { x.p.Close() })
	defer stop()
	for {
		m, err := x.p.Read()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("proxy %q: %w", strings.Join(x.argv, " "), err)
		}
		x.route(hop, m)
	}
}

func (x *External) route(hop *proxy.Hop, m *proxy.Message) {
	switch m.Kind {
	case proxy.KindResponse:
		e, ok := x.out.take(m.ID)
		if !ok {
			hop.Logger().Warn("proxy answered an unknown request", "id", string(m.ID))
			return
		}
		if string(e.orig) != string(m.ID) {
			nm, err := m.WithID(e.orig)
			if err != nil {
				return
			}
			m = nm
		}
		if e.side == sideClient {
			hop.ToClient(m)
		} else {
			hop.ToAgent(m)
		}
		return
	}
	_, isInit, isSucc := familyOf(m.Method)
	switch {
	case isInit:
		if m.Kind == proxy.KindRequest {
			x.sendNow(hop, proxy.NewErrorResponse(m.ID, proxy.CodeInvalidRequest, "proxy-initialize is only sent by the conductor", nil))
		}
	case isSucc:
		inner, err := unwrap(m)
		if err != nil {
			if m.Kind == proxy.KindRequest {
				x.sendNow(hop, proxy.NewErrorResponse(m.ID, proxy.CodeInvalidParams, err.Error(), nil))
			}
			return
		}
		if inner.Kind == proxy.KindRequest {
			x.in.set(inner.ID, sideAgent)
		}
		hop.ToAgent(inner)
	case m.Method == proxy.MethodCancelRequest:
		id, _ := proxy.GetPath(m.Params(), "requestId")
		if s, ok := x.in.get(id); ok && s == sideAgent {
			hop.ToAgent(m)
		} else {
			hop.ToClient(m)
		}
	default:
		if m.Kind == proxy.KindRequest {
			x.in.set(m.ID, sideClient)
		}
		hop.ToClient(m)
	}
}
