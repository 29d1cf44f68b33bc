package lsp

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestIdleTeardownFakeTime: a server unused for the idle timeout is shut
// down (shutdown, then exit) at exactly that time after its last
// request, not before; each request restarts the count; the next request
// after the teardown starts a new server.
func TestIdleTeardownFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = 5 * time.Minute
		e := newMemEnv(t, fakelsp.Script{}, func(o *Options) { o.Timeouts.Idle = Duration(idle) })
		state := func() State {
			synctest.Wait()
			return e.m.Servers()[0].State
		}
		hover := func() {
			t.Helper()
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
				t.Fatal(err)
			}
		}
		hover()
		time.Sleep(idle - time.Second)
		if s := state(); s != StateRunning {
			t.Fatalf("state %s a second before the idle timeout", s)
		}
		hover() // the count starts again
		time.Sleep(idle - time.Second)
		if s := state(); s != StateRunning {
			t.Fatalf("state %s a second before the idle timeout counted from the second request", s)
		}
		time.Sleep(time.Second)
		if s := state(); s != StateStopped {
			t.Fatalf("state %s at the idle timeout, want stopped", s)
		}
		e.mu.Lock()
		first := e.servers[0]
		e.mu.Unlock()
		methods := fakelsp.Methods(first.Received())
		if i := slices.Index(methods, "shutdown"); i < 0 || !slices.Contains(methods[i:], "exit") {
			t.Fatalf("the idle server received %q, want shutdown then exit", methods)
		}
		hover()
		if n := e.started(); n != 2 || state() != StateRunning {
			t.Fatalf("%d servers started, state %s; want a second one running", n, state())
		}
	})
}

// TestRestartBackoffFakeTime: after a crash the server is restarted on
// next use no sooner than the backoff after the crash, doubling per
// crash within the window; past MaxRestarts crashes the circuit opens
// (state broken, ErrCircuitOpen, no start), until the window has passed
// since the oldest of them.
func TestRestartBackoffFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = 3 * time.Minute
		e := newMemEnv(t, fakelsp.Script{}, func(o *Options) {
			o.MaxRestarts, o.RestartWindow, o.RestartBackoff, o.RestartBackoffMax = 3, window, 100*time.Millisecond, 250*time.Millisecond
		})
		hover := func() error {
			_, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6})
			return err
		}
		if err := hover(); err != nil {
			t.Fatal(err)
		}
		first := time.Now()
		// Backoff 100ms, 200ms, then 250ms (the cap).
		for i, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond} {
			e.crash()
			synctest.Wait()
			crashed := time.Now()
			if err := hover(); err != nil {
				t.Fatalf("hover after crash %d: %v", i+1, err)
			}
			if took := time.Since(crashed); took != want {
				t.Fatalf("restart %d after %v, want %v", i+1, took, want)
			}
		}
		e.crash() // the fourth within the window
		synctest.Wait()
		if err := hover(); !errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("hover after 4 crashes: %v, want the circuit open", err)
		}
		if st := e.m.Servers()[0]; st.State != StateBroken || e.started() != 4 {
			t.Fatalf("state %s with %d starts, want broken with 4", st.State, e.started())
		}
		// The window passes since the first crash: three remain inside it
		// (not more than MaxRestarts), so the next use restarts.
		time.Sleep(window - time.Since(first))
		if err := hover(); err != nil {
			t.Fatalf("hover once the window passed: %v", err)
		}
		if st := e.m.Servers()[0]; st.State != StateRunning || st.Restarts != 4 || e.started() != 5 {
			t.Fatalf("status %s, %d restarts, %d starts; want running, 4, 5", st.State, st.Restarts, e.started())
		}
	})
}
