package proxy

import "sync"

// queue is an unbounded FIFO of messages. Internal sends never block, so
// components answering across directions cannot deadlock; flow control is
// applied where messages enter the chain (see gate).
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []*Message
	head   int
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

func (q *queue) push(m *Message) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, m)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// pop returns the next message, or false once the queue is closed.
func (q *queue) pop() (*Message, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
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
	return m, true
}

func (q *queue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.head == len(q.items)
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
type gate struct {
	mu     sync.Mutex
	cond   sync.Cond
	bytes  int
	count  int
	closed bool
	maxB   int
	maxN   int
}

func newGate(maxBytes, maxCount int) *gate {
	g := &gate{maxB: maxBytes, maxN: maxCount}
	g.cond.L = &g.mu
	return g
}

// acquire waits for room for a message of size n; a message larger than
// the whole budget passes alone.
func (g *gate) acquire(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.closed && g.count > 0 && (g.bytes+n > g.maxB || g.count >= g.maxN) {
		g.cond.Wait()
	}
	if g.closed {
		return false
	}
	g.bytes += n
	g.count++
	return true
}

func (g *gate) release(n int) {
	g.mu.Lock()
	g.bytes -= n
	g.count--
	g.cond.Signal()
	g.mu.Unlock()
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.cond.Broadcast()
	g.mu.Unlock()
}
