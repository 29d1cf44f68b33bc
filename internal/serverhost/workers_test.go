package serverhost

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
)

// TestWorkersKept: the goroutines that answered a burst of calls stay for
// the next calls, at most maxIdleWorkers of them, and all end when the
// client leaves.
func TestWorkersKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, stop := context.WithCancel(context.Background())
		hc := &hostClient{ctx: ctx, stop: stop, work: make(chan func())}
		const burst = 3 * maxIdleWorkers
		release := make(chan struct{})
		var answered sync.WaitGroup
		answered.Add(burst)
		for range burst {
			hc.workers.Add(1)
			go hc.worker(func() {
				<-release
				answered.Done()
			})
		}
		close(release)
		answered.Wait()
		synctest.Wait()
		if got := hc.idle.Load(); got != maxIdleWorkers {
			t.Fatalf("%d workers wait for calls after a burst of %d, want %d", got, burst, maxIdleWorkers)
		}
		// A kept worker takes the next call.
		took := make(chan struct{})
		select {
		case hc.work <- func() { close(took) }:
		default:
			t.Fatal("no worker waits for the next call")
		}
		<-took
		hc.stop()
		hc.workers.Wait()
	})
}
