package lsp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestWedgeCountBrokenByErrorAnswer (fake time): an error answer is an
// answer. A server that times out on one request, answers the next with
// an error (gopls's "no identifier found") and times out again has not
// timed out WedgeAfter times in a row, so it is not recycled.
func TestWedgeCountBrokenByErrorAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
			"textDocument/hover":      {NeverAnswer: true},
			"textDocument/definition": {Error: -32603, ErrorMessage: "no identifier found"},
		}}, func(o *Options) {
			o.WedgeAfter = 2
			o.Timeouts.Request = Duration(time.Second)
		})
		pos := Position{Line: 1, Character: 6}
		if _, err := hover(t.Context(), e.m, e.file, pos); !errors.Is(err, ErrTimeout) {
			t.Fatalf("first hover: %v, want a timeout", err)
		}
		var re *ResponseError
		if _, err := definition(t.Context(), e.m, e.file, pos); !errors.As(err, &re) {
			t.Fatalf("definition: %v, want the server's error answer", err)
		}
		if _, err := hover(t.Context(), e.m, e.file, pos); !errors.Is(err, ErrTimeout) {
			t.Fatalf("second hover: %v, want a timeout", err)
		}
		synctest.Wait()
		if st := e.m.Servers()[0]; st.State != StateRunning || e.started() != 1 {
			t.Fatalf("state %s (%q), %d servers started; want the answering server kept running", st.State, st.LastError, e.started())
		}
		// Two timeouts really in a row still recycle it.
		if _, err := hover(t.Context(), e.m, e.file, pos); !errors.Is(err, ErrTimeout) {
			t.Fatalf("third hover: %v, want a timeout", err)
		}
		synctest.Wait()
		if st := e.m.Servers()[0]; st.State != StateCrashed || !strings.Contains(st.LastError, "recycled") {
			t.Fatalf("after two timeouts in a row: %s %q, want recycled", st.State, st.LastError)
		}
	})
}

// TestIdleTeardownWithoutRequest (fake time): a server started by Prewarm,
// or by Restart after its idle teardown, and then never asked anything is
// idle too: it is shut down at the idle timeout after its start.
func TestIdleTeardownWithoutRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = 5 * time.Minute
		e := newMemEnv(t, fakelsp.Script{}, func(o *Options) { o.Timeouts.Idle = Duration(idle) })
		state := func() State {
			synctest.Wait()
			return e.m.Servers()[0].State
		}
		if err := e.m.Prewarm(t.Context(), e.file); err != nil {
			t.Fatal(err)
		}
		time.Sleep(idle - time.Second)
		if s := state(); s != StateRunning {
			t.Fatalf("state %s a second before the idle timeout after Prewarm", s)
		}
		time.Sleep(time.Second)
		if s := state(); s != StateStopped {
			t.Fatalf("state %s at the idle timeout after Prewarm, want stopped", s)
		}
		if err := e.m.Restart(t.Context(), "", e.file); err != nil {
			t.Fatal(err)
		}
		if s := state(); s != StateRunning {
			t.Fatalf("state %s after Restart", s)
		}
		time.Sleep(idle)
		if s := state(); s != StateStopped || e.started() != 2 {
			t.Fatalf("state %s with %d starts at the idle timeout after Restart, want stopped, 2", s, e.started())
		}
	})
}

// halfConn is a fake server on pipes the test holds, so it can close the
// server's output while the server keeps running (Done stays open).
type halfConn struct {
	io.Reader
	io.WriteCloser
	out    *io.PipeWriter
	done   chan struct{}
	cancel context.CancelFunc
}

func (c *halfConn) Done() <-chan struct{} { return c.done }
func (c *halfConn) Kill()                 { c.cancel() }

// TestStatusConnectionLost (fake time): a server that closed its output
// but keeps running is no use to anyone (its requests fail with
// "language server exited"): the status must not call it running while it
// waits for the next request to replace it.
func TestStatusConnectionLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var conns []*halfConn
		e := newMemEnv(t, fakelsp.Script{}, nil)
		e.m.opts.Connect = func(cfg ServerConfig, root string) (ServerConn, error) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			c := &halfConn{Reader: outR, WriteCloser: inW, out: outW, done: make(chan struct{}), cancel: cancel}
			conns = append(conns, c)
			go func() {
				// RefuseExit: it keeps running when its input closes too.
				_ = fakelsp.New(fakelsp.Script{RefuseExit: true}, nil).Serve(ctx, inR, outW)
				cancel()
				close(c.done)
			}()
			return c, nil
		}
		if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
			t.Fatal(err)
		}
		conns[0].out.Close()
		synctest.Wait()
		if st := e.m.Servers()[0]; st.State == StateRunning || st.LastError == "" {
			t.Fatalf("status with the server's output closed: %s %q, want it not running, and why", st.State, st.LastError)
		}
		if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
			t.Fatal(err)
		}
		if st := e.m.Servers()[0]; st.State != StateRunning || len(conns) != 2 {
			t.Fatalf("after the next request: %s, %d servers started; want a new one running", st.State, len(conns))
		}
	})
}

// TestStoppedProcessesForgotten (fake time): a process shut down for
// idleness or by Restart is not kept until Close with everything it held
// (its documents' text, diagnostics): a long session stops servers many
// times over.
func TestStoppedProcessesForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = 5 * time.Minute
		e := newMemEnv(t, fakelsp.Script{}, func(o *Options) { o.Timeouts.Idle = Duration(idle) })
		_, s, err := e.m.resolve(e.file)
		if err != nil {
			t.Fatal(err)
		}
		kept := func() int {
			synctest.Wait()
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.dead)
		}
		for i := range 3 {
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(idle)
			if n := kept(); n != 0 {
				t.Fatalf("after idle teardown %d: %d stopped processes kept", i+1, n)
			}
		}
		if err := e.m.Restart(t.Context(), "", e.file); err != nil {
			t.Fatal(err)
		}
		if err := e.m.Restart(t.Context(), "", e.file); err != nil {
			t.Fatal(err)
		}
		if n := kept(); n != 0 {
			t.Fatalf("after two restarts: %d stopped processes kept", n)
		}
	})
}

// TestCallerDeadlineNotAServerTimeout (fake time): requests that end at
// their caller's shorter deadline (the tool's diagnostics wait) say the
// server is slow, not wedged: any number of them in a row leaves it
// running. Its own request timeout, reached twice in a row, recycles it.
func TestCallerDeadlineNotAServerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
			"textDocument/hover": {NeverAnswer: true},
		}}, func(o *Options) {
			o.WedgeAfter = 2
			o.Timeouts.Request = Duration(10 * time.Second)
		})
		pos := Position{Line: 1, Character: 6}
		for i := range 4 {
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			_, err := hover(ctx, e.m, e.file, pos)
			cancel()
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("hover %d with a 1 s caller deadline: %v, want a timeout", i+1, err)
			}
		}
		synctest.Wait()
		if st := e.m.Servers()[0]; st.State != StateRunning || e.started() != 1 {
			t.Fatalf("state %s (%q), %d servers started; want the slow server kept", st.State, st.LastError, e.started())
		}
		for range 2 {
			if _, err := hover(t.Context(), e.m, e.file, pos); !errors.Is(err, ErrTimeout) {
				t.Fatalf("hover: %v, want a timeout", err)
			}
		}
		synctest.Wait()
		if st := e.m.Servers()[0]; st.State != StateCrashed || !strings.Contains(st.LastError, "recycled") {
			t.Fatalf("after two own timeouts in a row: %s %q, want recycled", st.State, st.LastError)
		}
	})
}
