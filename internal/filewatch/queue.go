package filewatch

// Queue coalesces changes into one Event per path, kept in the order each
// path first changed, and bounded by Max distinct paths. What a listener
// knew is the state before the first change to a path, what it must hear
// the state after the last: a file created, deleted and created again is
// still Created (not Changed: a listener for creations only wants it);
// one that existed, deleted and created again was replaced, so Changed;
// a file deleted last is Deleted, whatever it was before. The zero Queue
// holds nothing (Max 0); it is not safe for concurrent use.
type Queue struct {
	// Max bounds the distinct paths held; a change to one more path is
	// dropped, and Take reports the loss.
	Max int

	events []Event
	index  map[string]int
	lost   bool
}

// Record adds a change of op to path, which existed before unless op is
// Created.
func (q *Queue) Record(path string, op Op, dir bool) {
	q.Add(Event{Path: path, Op: op, Dir: dir, absent: op == Created})
}

// Add adds e, coalesced with the earlier changes to its path. An Event
// from Drain or Take remembers whether its path existed before its first
// change, so events taken at different times coalesce as if recorded
// together.
func (q *Queue) Add(e Event) {
	if i, ok := q.index[e.Path]; ok {
		op := e.Op
		switch {
		case op == Deleted: // gone now, whatever it was
		case q.events[i].absent:
			op = Created // still new to whoever hears of it
		default:
			op = Changed // it existed before, and does now
		}
		q.events[i].Op, q.events[i].Dir = op, e.Dir
		return
	}
	if len(q.events) >= q.Max {
		q.lost = true
		return
	}
	if q.index == nil {
		q.index = map[string]int{}
	}
	q.index[e.Path] = len(q.events)
	q.events = append(q.events, e)
}

// Take returns and forgets the events held, and whether some were
// dropped since the last Take.
func (q *Queue) Take() (events []Event, lost bool) {
	evs, lost := q.events, q.lost
	q.events, q.lost = nil, false
	clear(q.index)
	return evs, lost
}
