package conductor

import (
	"encoding/json"
	"strconv"
	"sync"
)

// side is where a request sent on a shared connection came from.
type side uint8

const (
	sideClient side = iota // traveling down from the client side
	sideAgent              // traveling up from the agent side
)

type outEntry struct {
	side side
	orig json.RawMessage
}

// outIDs maps the ids of requests sent on one connection that carries
// requests of both sides, so they cannot collide: an id is kept as it is
// unless it is already in use, then replaced by a fresh one.
type outIDs struct {
	mu     sync.Mutex
	byWire map[string]outEntry
	byOrig [2]map[string]json.RawMessage
	next   uint64
}

func newOutIDs() *outIDs {
	return &outIDs{
		byWire: map[string]outEntry{},
		byOrig: [2]map[string]json.RawMessage{{}, {}},
		next:   1 << 41,
	}
}

func (t *outIDs) add(s side, orig json.RawMessage) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	wire := orig
	for {
		if _, busy := t.byWire[string(wire)]; !busy {
			break
		}
		t.next++
		wire = json.RawMessage(strconv.FormatUint(t.next, 10))
	}
	t.byWire[string(wire)] = outEntry{s, orig}
	t.byOrig[s][string(orig)] = wire
	return wire
}

func (t *outIDs) take(wire json.RawMessage) (outEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.byWire[string(wire)]
	if ok {
		delete(t.byWire, string(wire))
		if w, ok := t.byOrig[e.side][string(e.orig)]; ok && string(w) == string(wire) {
			delete(t.byOrig[e.side], string(e.orig))
		}
	}
	return e, ok
}

func (t *outIDs) wireOf(s side, orig json.RawMessage) (json.RawMessage, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.byOrig[s][string(orig)]
	return w, ok
}

// inIDs remembers which side each request received on a shared connection
// belongs to, so that $/cancel_request for it reaches that side.
type inIDs struct {
	mu sync.Mutex
	m  map[string]side
}

func (t *inIDs) set(id json.RawMessage, s side) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]side{}
	}
	t.m[string(id)] = s
	t.mu.Unlock()
}

func (t *inIDs) get(id json.RawMessage) (side, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[string(id)]
	return s, ok
}

func (t *inIDs) del(id json.RawMessage) {
	t.mu.Lock()
	delete(t.m, string(id))
	t.mu.Unlock()
}
