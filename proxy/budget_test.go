package proxy

import (
	"testing"
	"testing/synctest"
)

// TestBudget: Charge never waits; Wait waits while the budget is spent,
// in messages or bytes, runs beforeWait once before it waits, and returns
// when a charged message is consumed or the budget is closed.
func TestBudget(t *testing.T) {
	size := len(NewNotification("session/update", []byte(`{"x":1}`)).Raw)
	tests := []struct {
		name          string
		bytes, count  int
		msgs          int
		wantWait      bool
		consumeToPass int // messages to consume before Wait returns
	}{
		{"room left", 1 << 20, 3, 2, false, 0},
		{"count spent", 1 << 20, 2, 2, true, 1},
		{"bytes spent", 2 * size, 100, 2, true, 1},
		{"far over", 1 << 20, 2, 5, true, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := NewBudget(tt.bytes, tt.count)
				var ms []*Message
				for range tt.msgs {
					m := NewNotification("session/update", []byte(`{"x":1}`))
					b.Charge(m)
					ms = append(ms, m)
				}
				flushed := 0
				done := make(chan bool, 1)
				go func() { done <- b.Wait(func() { flushed++ }) }()
				synctest.Wait()
				for i := 0; i < tt.consumeToPass; i++ {
					select {
					case <-done:
						t.Fatalf("Wait returned with %d of %d charged messages consumed", i, tt.msgs)
					default:
					}
					ms[i].release()
					ms[i].release() // given back once only
					synctest.Wait()
				}
				select {
				case ok := <-done:
					if !ok {
						t.Fatal("Wait reported closed")
					}
				default:
					t.Fatal("Wait did not return with room made")
				}
				if want := map[bool]int{true: 1, false: 0}[tt.wantWait]; flushed != want {
					t.Errorf("beforeWait ran %d times, want %d", flushed, want)
				}
				if _, n := b.Used(); n != tt.msgs-tt.consumeToPass {
					t.Errorf("used %d messages, want %d", n, tt.msgs-tt.consumeToPass)
				}
				if _, n := b.Peak(); n != tt.msgs {
					t.Errorf("peak %d messages, want %d", n, tt.msgs)
				}
			})
		})
	}
	t.Run("closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := NewBudget(1<<20, 1)
			b.Charge(NewNotification("a", nil))
			done := make(chan bool, 1)
			go func() { done <- b.Wait(nil) }()
			synctest.Wait()
			b.Close()
			if <-done {
				t.Fatal("Wait on a closed budget reported room")
			}
		})
	})
}
