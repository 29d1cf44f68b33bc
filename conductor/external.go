package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
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

	// budget[d] bounds what the process sent toward d (0: the client, 1:
	// the agent) that the chain has not consumed yet; see FromClient.
	budget [2]*proxy.Budget

	markMu   sync.Mutex
	marks    map[string]func() // barrier marker key → pass
	nonce    uint64
	markPref string // prefix of this External's marker keys, unique to it
}

// markerMethod is the notification External sends through its proxy
// process behind the last message of a direction whose input ended. The
// proxy forwards it like any unknown extension notification, in order;
// when it comes out, everything before it has, and External swallows it.
const markerMethod = "_acp_lsp/barrier"

// markerWait bounds the wait for a marker, for a proxy that drops unknown
// notifications; the 5 s stop contract stays met.
const markerWait = time.Second

// NewExternal returns a component that will run argv as a proxy process,
// initializing it in the given family. opts configure the process (its
// Name defaults to name).
func NewExternal(name string, argv []string, family Family, opts proxy.ProcessOptions) *External {
	if opts.Name == "" {
		opts.Name = name
	}
	return &External{
		name: name, argv: argv, family: family, opts: opts, out: newOutIDs(),
		// Markers of other Externals (a nested conductor's, in a process
		// of their own, counting from 1 as well) travel through this
		// proxy too: the prefix tells ours apart.
		markPref: strconv.FormatUint(rand.Uint64(), 36) + ".",
		budget: [2]*proxy.Budget{
			proxy.NewBudget(budgetBytes, budgetCount),
			proxy.NewBudget(budgetBytes, budgetCount),
		},
	}
}

// The budget of each direction: what a proxy process may have sent that
// way and the chain not yet passed on. Enough to keep a pipe of 64 KiB
// and the next process busy; small enough that memory stays flat when the
// far end reads slower than the agent writes.
const (
	budgetBytes = 4 << 20
	budgetCount = 1024
)

// Budget indices: the direction a message from the process travels.
const (
	towardClient = 0
	towardAgent  = 1
)

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

// Name implements proxy.Stage.
func (x *External) Name() string { return x.name }

// Barrier implements proxy.Barrier: it sends a marker notification through
// the process in the direction that ended (plain toward the agent side,
// wrapped toward the client side) and passes the end on when the marker
// comes out, or after markerWait.
func (x *External) Barrier(towardAgent bool, pass func()) {
	x.markMu.Lock()
	x.nonce++
	key := x.markPref + strconv.FormatUint(x.nonce, 10)
	if x.marks == nil {
		x.marks = map[string]func(){}
	}
	t := time.AfterFunc(markerWait, func() { x.takeMark(key) })
	x.marks[key] = func() { t.Stop(); pass() }
	x.markMu.Unlock()
	m := proxy.NewNotification(markerMethod, json.RawMessage(`{"n":"`+key+`"}`))
	if !towardAgent {
		m = wrap(x.family, nil, m)
	}
	err := x.p.Write(m)
	if err == nil {
		err = x.p.Flush()
	}
	if err != nil {
		x.takeMark(key) // the process is gone: nothing is left inside it
	}
}

// takeMark passes the end waiting on marker key, once.
func (x *External) takeMark(key string) {
	x.markMu.Lock()
	pass, ok := x.marks[key]
	delete(x.marks, key)
	x.markMu.Unlock()
	if ok {
		pass()
	}
}

// isMarker reports whether m is one of our markers, and passes its end on.
// Anyone else's marker (e.g. of the conductor this one is nested in) is an
// ordinary notification to forward: its sender waits for it.
func (x *External) isMarker(m *proxy.Message) bool {
	if m.Method != markerMethod || m.Kind != proxy.KindNotification {
		return false
	}
	n, ok := proxy.GetPath(m.Params(), "n")
	if !ok || len(n) < 2 || n[0] != '"' || !strings.HasPrefix(string(n[1:len(n)-1]), x.markPref) {
		return false
	}
	// A late one (after markerWait) is still ours: swallowed all the same.
	x.takeMark(string(n[1 : len(n)-1]))
	return true
}

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

// Nonblocking implements proxy.Nonblocking: the handlers only write to the
// process.
func (x *External) Nonblocking() {}

// waitRoom holds a message traveling toward d back while the process's
// output in that direction has not been passed on: backpressure per
// direction, applied to what goes into the process rather than to the
// reader of its output, which never waits, so it keeps serving the other
// direction and no wait cycle can form between two neighbouring proxies.
// What this handler wrote before is flushed first: the process must see
// it to make room.
func (x *External) waitRoom(d int) {
	x.budget[d].Wait(func() { x.p.Flush() })
}

// FromClient implements proxy.Stage.
func (x *External) FromClient(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	x.waitRoom(towardAgent)
	switch m.Kind {
	case proxy.KindRequest:
		wire := x.out.add(sideClient, m.ID)
		sent, err := x.plainRequest(m, wire)
		if err != nil {
			x.out.take(wire)
			hop.ReplyError(m, proxy.CodeInternalError, err.Error(), nil)
			return
		}
		x.send(hop, sent)
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

// plainRequest returns the client-side request m as it is sent to the
// process: initialize as the family's proxy-initialize, with id wire. Only
// the method and the id change; every other byte (unknown fields too) is
// kept, as for a request sent unchanged.
func (x *External) plainRequest(m *proxy.Message, wire json.RawMessage) (*proxy.Message, error) {
	if m.Method == "initialize" {
		nm, err := m.WithMethod(x.family.Initialize())
		if err != nil {
			return nil, fmt.Errorf("rename initialize: %w", err)
		}
		m = nm
	}
	if string(wire) != string(m.ID) {
		nm, err := m.WithID(wire)
		if err != nil {
			return nil, fmt.Errorf("replace id: %w", err)
		}
		m = nm
	}
	return m, nil
}

// FromAgent implements proxy.Stage.
func (x *External) FromAgent(_ context.Context, hop *proxy.Hop, m *proxy.Message) {
	x.waitRoom(towardClient)
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
	defer func() {
		// Nothing more comes out: a handler waiting for room passes.
		x.budget[towardClient].Close()
		x.budget[towardAgent].Close()
	}()
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
			x.toClient(hop, m)
		} else {
			x.toAgent(hop, m)
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
		if x.isMarker(inner) {
			return
		}
		if inner.Kind == proxy.KindRequest {
			x.in.set(inner.ID, sideAgent)
		}
		x.toAgent(hop, inner)
	case m.Method == proxy.MethodCancelRequest:
		id, _ := proxy.GetPath(m.Params(), "requestId")
		if s, ok := x.in.get(id); ok && s == sideAgent {
			x.toAgent(hop, m)
		} else {
			x.toClient(hop, m)
		}
	default:
		if x.isMarker(m) {
			return
		}
		if m.Kind == proxy.KindRequest {
			x.in.set(m.ID, sideClient)
		}
		x.toClient(hop, m)
	}
}

// toClient and toAgent pass a message from the process on, charged to its
// direction's budget; they never wait (see waitRoom).
func (x *External) toClient(hop *proxy.Hop, m *proxy.Message) {
	x.budget[towardClient].Charge(m)
	hop.ToClient(m)
}

func (x *External) toAgent(hop *proxy.Hop, m *proxy.Message) {
	x.budget[towardAgent].Charge(m)
	hop.ToAgent(m)
}
