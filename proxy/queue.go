package proxy

import (
	"sync"
	"sync/atomic"
)

// queue is an unbounded FIFO of messages for one node and direction, with
// the right to run that node's handler for that direction (busy). Internal
// sends never block, so components answering across directions cannot
// deadlock; flow control is applied where messages enter the chain (see
// gate).
//
// Whoever holds busy delivers the queued messages in order, one at a time.
// A goroutine that already drives the direction (the reader of the side
// the messages come from, or a worker) claims busy when it is free and
// delivers on its own stack, so an idle chain forwards a message without
// waking another goroutine; otherwise the node's worker is woken.
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []*Message
	head   int
	busy   bool
	closed bool
	// released, when set (tests only, before the chain runs), is called
	// each time the holder gives the queue up empty: the moment a Passer
	// becomes idle again, which nothing on the wire shows.
	released func()
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

// push appends m. With drive set it claims the queue when nobody holds
// it and reports true: the caller must then deliver (next) until next
// reports false. Otherwise an idle worker is woken.
func (q *queue) push(m *Message, drive bool) (claimed bool) {
	claimed, _ = q.put(m, drive, false)
	return claimed
}

// put is push; with direct set, a claim of an empty queue leaves m out of
// it (direct reports so): the caller delivers m first, then drains what
// came since, which spares the lock of taking m out again.
func (q *queue) put(m *Message, drive, direct bool) (claimed, took bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false, false
	}
	if direct && drive && !q.busy && q.head == len(q.items) {
		q.busy = true
		return true, true
	}
	if q.busy || !drive {
		// Someone else may deliver m, after the caller went on reading:
		// m must not point into the caller's read buffer any more.
		m.own()
	}
	q.items = append(q.items, m)
	if q.busy {
		return false, false // the holder delivers it
	}
	if drive {
		q.busy = true
		return true, false
	}
	q.cond.Signal()
	return false, false
}

// idle reports whether nobody holds the queue and nothing waits in it.
func (q *queue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.busy && q.head == len(q.items) && !q.closed
}

// next returns the next message for the holder of the queue; when there
// is none (or the queue is closed) it gives the queue up and returns false.
func (q *queue) next() (*Message, bool) {
	q.mu.Lock()
	if q.closed || q.head == len(q.items) {
		q.busy = false
		q.mu.Unlock()
		if q.released != nil {
			q.released()
		}
		return nil, false
	}
	m := q.popLocked()
	q.mu.Unlock()
	return m, true
}

// handOff gives the queue up after its holder delivered only part of it:
// an idle worker is woken for whatever is left.
func (q *queue) handOff() {
	q.mu.Lock()
	q.busy = false
	empty := q.closed || q.head == len(q.items)
	if !empty {
		q.cond.Signal()
	}
	q.mu.Unlock()
	if empty && q.released != nil {
		q.released()
	}
}

// claim waits until there is a message and nobody holds the queue, then
// holds it and returns the message; false once the queue is closed.
func (q *queue) claim() (*Message, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && (q.busy || q.head == len(q.items)) {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	q.busy = true
	return q.popLocked(), true
}

func (q *queue) popLocked() *Message {
	m := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return m
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// gate bounds the bytes and messages read from one side and not yet
// delivered, so a fast agent cannot grow memory without bound while the
// editor reads slowly: the reader waits, and the pipe pushes back.
//
// The counts are atomic, so taking and giving back room costs no lock
// while nobody waits (every forwarded message does both); mu and cond
// serve only waiters, who register in waiters before they look, so a
// release that sees none cannot miss one.
type gate struct {
	bytes   atomic.Int64
	count   atomic.Int64
	closed  atomic.Bool
	waiters atomic.Int32
	maxB    int64
	maxN    int64

	mu           sync.Mutex
	cond         sync.Cond
	peakB, peakN int // Budget only, under mu
}

func newGate(maxBytes, maxCount int) *gate {
	g := &gate{maxB: int64(maxBytes), maxN: int64(maxCount)}
	g.cond.L = &g.mu
	return g
}

func (g *gate) full(n int) bool {
	c := g.count.Load()
	return !g.closed.Load() && c > 0 && (g.bytes.Load()+int64(n) > g.maxB || c >= g.maxN)
}

// acquire waits for room for a message of size n; a message larger than
// the whole budget passes alone. beforeWait, when not nil, runs before
// the first wait, so the reader can flush what it holds.
func (g *gate) acquire(n int, beforeWait func()) bool {
	if !g.room(n, beforeWait) {
		return false
	}
	g.charge(n)
	return true
}

// room waits, as acquire does, until a message of size n would fit, and
// takes nothing; false once the gate is closed.
func (g *gate) room(n int, beforeWait func()) bool {
	if !g.full(n) {
		return !g.closed.Load()
	}
	if beforeWait != nil {
		beforeWait()
	}
	g.wait(func() bool { return g.full(n) })
	return !g.closed.Load()
}

// charge counts a message of size n without waiting.
func (g *gate) charge(n int) {
	g.bytes.Add(int64(n))
	g.count.Add(1)
}

// wait returns once blocked reports false, woken by release and close.
func (g *gate) wait(blocked func() bool) {
	g.mu.Lock()
	g.waiters.Add(1)
	for blocked() {
		g.cond.Wait()
	}
	g.waiters.Add(-1)
	g.mu.Unlock()
}

func (g *gate) release(n int) {
	g.bytes.Add(-int64(n))
	g.count.Add(-1)
	if g.waiters.Load() > 0 {
		g.mu.Lock()
		g.cond.Broadcast() // a reader, or a Budget's waiters
		g.mu.Unlock()
	}
}

func (g *gate) close() {
	g.closed.Store(true)
	g.mu.Lock()
	g.cond.Broadcast()
	g.mu.Unlock()
}

// Budget bounds the messages a component lets into the chain from
// outside it (as an external proxy process's output) and that were not
// yet consumed further on. Charge never waits, so the goroutine reading
// that outside source keeps reading whatever direction its messages
// travel; the component applies backpressure on its input instead: its
// handler for the direction waits (Wait) while that direction's budget
// is spent, the way a write to a full pipe waits. That wait depends only
// on hops further along the same direction, so it forms no cycle with
// the other direction. Its methods are safe for concurrent use.
type Budget struct{ g *gate }

// NewBudget returns a Budget of maxBytes and maxCount messages; a message
// larger than maxBytes is let in alone.
func NewBudget(maxBytes, maxCount int) *Budget {
	return &Budget{g: newGate(maxBytes, maxCount)}
}

// Charge counts m against the budget without waiting. Its share is given
// back once m is consumed: a handler returns without passing m itself on
// (it was written to an end or a process, changed, answered or dropped).
func (b *Budget) Charge(m *Message) {
	g := b.g
	g.mu.Lock()
	g.charge(len(m.Raw))
	g.peakB = max(g.peakB, int(g.bytes.Load()))
	g.peakN = max(g.peakN, int(g.count.Load()))
	g.mu.Unlock()
	if old := m.credit.Swap(b.g); old != nil {
		old.release(len(m.Raw))
	}
}

// Wait returns when the budget has room again or was closed (false).
// beforeWait, when not nil, runs first if Wait has to wait, so the caller
// can flush what it buffered: the room is made by hops that need it.
func (b *Budget) Wait(beforeWait func()) bool {
	g := b.g
	if g.spent() {
		if beforeWait != nil {
			beforeWait()
		}
		g.wait(g.spent)
	}
	return !g.closed.Load()
}

// Close makes every Wait return false, now and later.
func (b *Budget) Close() { b.g.close() }

// Used returns the bytes and messages charged and not yet given back.
func (b *Budget) Used() (bytes, count int) {
	return int(b.g.bytes.Load()), int(b.g.count.Load())
}

// Peak returns the most bytes and messages ever charged at once (not
// given back yet): what the budget let the chain hold.
func (b *Budget) Peak() (bytes, count int) {
	b.g.mu.Lock()
	defer b.g.mu.Unlock()
	return b.g.peakB, b.g.peakN
}

// spent reports whether the budget has no room left.
func (g *gate) spent() bool {
	c := g.count.Load()
	return !g.closed.Load() && c > 0 && (g.bytes.Load() >= g.maxB || c >= g.maxN)
}
