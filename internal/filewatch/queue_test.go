package filewatch

import "testing"

// TestWatcherBurst: more distinct changes than the queue holds are
// reported as lost, never silently dropped.
func TestWatcherBurst(t *testing.T) {
	q := Queue{Max: 3}
	for _, p := range []string{"a", "b", "a", "c", "d"} {
		q.Record(p, Changed, false)
	}
	evs, lost := q.Take()
	if len(evs) != 3 || !lost {
		t.Fatalf("%d events, lost %v; want 3 and lost", len(evs), lost)
	}
	if evs, lost := q.Take(); len(evs) != 0 || lost {
		t.Fatalf("after take: %d events, lost %v", len(evs), lost)
	}
}

// TestWatcherCoalesce: changes to one path between drains reduce to what
// a server needs to hear.
func TestWatcherCoalesce(t *testing.T) {
	for _, c := range []struct {
		seq  []Op
		want Op
	}{
		{[]Op{Created, Changed}, Created},
		{[]Op{Changed, Deleted}, Deleted},
		{[]Op{Deleted, Created}, Changed},
		{[]Op{Created, Deleted}, Deleted},
		{[]Op{Changed, Changed}, Changed},
	} {
		q := Queue{Max: 10}
		for _, typ := range c.seq {
			q.Record("x", typ, false)
		}
		if evs, _ := q.Take(); len(evs) != 1 || evs[0].Op != c.want {
			t.Errorf("%v: %+v, want type %d", c.seq, evs, c.want)
		}
	}
}
