package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// opensPerStart splits the didOpen traffic of a record by process: the
// base names of the files each process was sent, in order.
func opensPerStart(msgs []fakelsp.Message) [][]string {
	var out [][]string
	for _, m := range msgs {
		switch {
		case m.Kind == "start":
			out = append(out, nil)
		case m.Method == "textDocument/didOpen" && len(out) > 0:
			out[len(out)-1] = append(out[len(out)-1], filepath.Base(docURIOf(m.Params)))
		}
	}
	return out
}

// wantGone fails if a process of the first fake's group is still alive.
func (e *faultEnv) wantGone(i int) {
	e.t.Helper()
	starts := fakelsp.Starts(e.messages())
	if len(starts) <= i {
		e.t.Fatalf("only %d processes started", len(starts))
	}
	if alive, _ := fakelsp.Alive(starts[i].PGID); len(alive) != 0 {
		e.t.Fatalf("process group %d still running: %v", starts[i].PGID, alive)
	}
}

// TestFaultCrashMidRequest: the server exits while a request is open. It
// is restarted, sent every document the dead one had open, and asked
// again within the request's deadline, so the caller gets its answer. A
// server that crashes on the request again is not asked a third time:
// ErrServerExited, saying the request may be what crashes it. A command
// (workspace/executeCommand) is never asked twice: it may have done part
// of its work.
func TestFaultCrashMidRequest(t *testing.T) {
	crash := fakelsp.Behavior{Crash: true}
	t.Run("once", func(t *testing.T) {
		e := newFaultEnv(t, hoverFault(crash), nil)
		other := filepath.Join(e.root, "b.fk")
		if err := os.WriteFile(other, []byte("func Bar() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := documentSymbols(t.Context(), e.m, other); err != nil {
			t.Fatal(err)
		}
		e.setScript(fakelsp.Script{}) // what the restarted process reads
		raw, err := e.hover()
		if err != nil || !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
			t.Fatalf("hover on a server that crashed on it once: %s %v, want the restarted server's answer", raw, err)
		}
		st := e.status()
		if st.State != StateRunning || st.Restarts != 1 || st.OpenDocuments != 2 {
			t.Fatalf("status after restart %+v", st)
		}
		e.wantGone(0)
		e.close()
		opens := opensPerStart(e.messages())
		if len(opens) != 2 {
			t.Fatalf("%d processes, want 2", len(opens))
		}
		slices.Sort(opens[1])
		if !slices.Equal(opens[1], []string{"a.fk", "b.fk"}) {
			t.Fatalf("documents opened in the restarted server %v, want a.fk and b.fk", opens[1])
		}
	})
	t.Run("every time", func(t *testing.T) {
		e := newFaultEnv(t, hoverFault(crash), nil)
		_, err := e.hover()
		if !errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), "textDocument/hover") || !strings.Contains(err.Error(), "crashed on this request twice") {
			t.Fatalf("hover on a server that always crashes on it: %v, want ErrServerExited naming the method and the two crashes", err)
		}
		if n := len(fakelsp.Starts(e.messages())); n != 2 {
			t.Fatalf("%d processes started, want 2: asked once more, not again", n)
		}
		e.setScript(fakelsp.Script{})
		e.wantHover()
	})
	t.Run("command", func(t *testing.T) {
		e := newFaultEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"workspace/executeCommand": crash}}, nil)
		e.prewarm()                   // the process reads the crashing script
		e.setScript(fakelsp.Script{}) // a restart would answer
		_, err := e.m.Request(t.Context(), e.file, "workspace/executeCommand", json.RawMessage(`{"command":"fake.do"}`))
		if !errors.Is(err, ErrServerExited) || strings.Contains(err.Error(), "twice") {
			t.Fatalf("command on a crashing server: %v, want ErrServerExited after one try", err)
		}
		if n := len(fakelsp.Starts(e.messages())); n != 1 {
			t.Fatalf("%d processes started, want 1: a command is not asked again", n)
		}
	})
}

// TestFaultGarbageOutput: bytes that are not LSP on the server's stdout end
// the connection with an ErrProtocol error naming the problem, never a
// hang; the server (here one that ignores stdin closing and SIGTERM) is
// killed and the next request runs on a new one.
func TestFaultGarbageOutput(t *testing.T) {
	for _, tc := range []struct{ name, method, garbage string }{
		{"not a header", "textDocument/hover", fakelsp.GarbageHeader},
		{"body not JSON", "textDocument/hover", fakelsp.GarbageBody},
		{"plain text line", "textDocument/hover", "panic: something went wrong\n"},
		{"header without a body length", "textDocument/hover", "Content-Type: x\r\n\r\n"},
		{"huge length", "textDocument/hover", "Content-Length: 99999999999\r\n\r\n"},
		{"instead of initialize's answer", "initialize", "Starting server...\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{RefuseExit: true, Methods: map[string]fakelsp.Behavior{
				tc.method: {Garbage: tc.garbage},
			}}, func(o *Options) {
				o.Timeouts.Request = Duration(time.Minute)
				o.Timeouts.Initialize = Duration(time.Minute)
			})
			_, err := e.hover()
			if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), tc.method) {
				t.Fatalf("%s answered with garbage: %v, want ErrProtocol naming the method", tc.method, err)
			}
			e.setScript(fakelsp.Script{})
			e.wantHover()
			e.wantGone(0)
			if st := e.status(); !strings.Contains(st.LastError, "protocol") {
				t.Fatalf("last error %q does not say what happened", st.LastError)
			}
		})
	}
}

// TestFaultStopsReading: a server that stops reading its stdin is
// recycled: after WedgeAfter request timeouts in a row, or at once when a
// write to it blocks longer than Timeouts.Write. Either way the process
// group is killed, no request goes to it any more, and the next request
// runs on a new process with the documents reopened.
func TestFaultStopsReading(t *testing.T) {
	stop := hoverFault(fakelsp.Behavior{StopReading: true})
	t.Run("repeated timeouts", func(t *testing.T) {
		e := newFaultEnv(t, stop, func(o *Options) {
			o.Timeouts.Request = Duration(500 * time.Millisecond)
			o.WedgeAfter = 2
		})
		e.prewarm()
		for range 2 {
			if _, err := e.hover(); !errors.Is(err, ErrTimeout) {
				t.Fatalf("hover: %v, want ErrTimeout", err)
			}
		}
		e.wantGone(0)
		if st := e.status(); st.State != StateCrashed || !strings.Contains(st.LastError, "recycled") {
			t.Fatalf("status after recycling %+v", st)
		}
		e.setScript(fakelsp.Script{})
		e.wantHover()
	})
	t.Run("blocked write", func(t *testing.T) {
		e := newFaultEnv(t, stop, func(o *Options) {
			o.Timeouts.Request = Duration(time.Minute) // the restarted server reads 2 MB
			o.Timeouts.Write = Duration(500 * time.Millisecond)
		})
		e.prewarm()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := hover(ctx, e.m, e.file, Position{Line: 1, Character: 6}); !errors.Is(err, ErrTimeout) {
			t.Fatalf("hover: %v, want ErrTimeout", err)
		}
		// Far more than a pipe holds: the didChange write blocks.
		e.write(fakeText + strings.Repeat("// padding to fill the pipe\n", 1<<16))
		_, err := e.hover()
		if err == nil || !strings.Contains(err.Error(), "wedged") {
			t.Fatalf("hover after a blocked write: %v, want an error saying wedged", err)
		}
		e.wantGone(0)
		if st := e.status(); st.State != StateCrashed || !strings.Contains(st.LastError, "wedged") {
			t.Fatalf("status after the wedge %+v", st)
		}
		e.setScript(fakelsp.Script{})
		e.wantHover()
		e.close()
		if opens := opensPerStart(e.messages()); len(opens) != 2 || !slices.Equal(opens[1], []string{"a.fk"}) {
			t.Fatalf("opens per process %v", opens)
		}
	})
}

// TestFaultCrashLoop: a server that crashes on every request is restarted
// with backoff until MaxRestarts crashes fall within RestartWindow; then
// the circuit opens (ErrCircuitOpen, state broken, the last crash in the
// status) and nothing is spawned until the window has passed.
func TestFaultCrashLoop(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{Crash: true}), func(o *Options) {
		o.MaxRestarts = 2
		o.RestartWindow = time.Hour
	})
	var skew atomic.Int64
	e.m.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) } // set before any process runs
	// Each hover is asked once more after a crash: two crashes, then the
	// third, and the circuit opens as the second hover asks again.
	if _, err := e.hover(); !errors.Is(err, ErrServerExited) {
		t.Fatalf("hover 0: %v, want ErrServerExited", err)
	}
	_, err := e.hover()
	if !errors.Is(err, ErrCircuitOpen) || !strings.Contains(err.Error(), "last: server fakelsp") {
		t.Fatalf("hover after 3 crashes: %v, want ErrCircuitOpen naming the last crash", err)
	}
	st := e.status()
	// The crash's own line, not the stack dump's last frame.
	if st.State != StateBroken || !strings.Contains(st.LastError, "exited unexpectedly") || !strings.Contains(st.LastError, "stderr: fakelsp: Assertion `scripted' failed") {
		t.Fatalf("status with the circuit open %+v", st)
	}
	if n := len(fakelsp.Starts(e.messages())); n != 3 {
		t.Fatalf("%d processes started, want 3", n)
	}
	for i := range 3 {
		e.wantGone(i)
	}
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
	if err != nil || rep.Files[0].Verdict != Failed || !strings.Contains(rep.Files[0].Detail, "crashed too often") {
		t.Fatalf("diagnostics with the circuit open: %+v %v", rep.Files[0], err)
	}
	e.setScript(fakelsp.Script{})
	skew.Store(int64(time.Hour + time.Second))
	e.wantHover()
	if st := e.status(); st.State != StateRunning {
		t.Fatalf("status after the window %+v", st)
	}
}

// TestRestartDelay: the restart policy as a function of the crash history.
func TestRestartDelay(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ago := func(d ...time.Duration) []time.Time {
		var out []time.Time
		for _, x := range d {
			out = append(out, now.Add(-x))
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		crashes []time.Time
		delay   time.Duration
		recent  int
		open    bool
		base    time.Duration // zero: 100ms doubling up to 10s
	}{
		{"no crash", nil, 0, 0, false, 0},
		{"one just now", ago(0), 100 * time.Millisecond, 1, false, 0},
		{"one a while ago", ago(time.Second), 0, 1, false, 0},
		{"two", ago(time.Second, 50*time.Millisecond), 150 * time.Millisecond, 2, false, 0},
		{"backoff capped", ago(9, 8, 7, 6, 5, 4, 3, 2, 1, 0), 10 * time.Second, 10, false, 0},
		{"old ones forgotten", ago(2*time.Hour, time.Hour+time.Second, 0), 100 * time.Millisecond, 1, false, 0},
		{"circuit open", ago(3, 2, 1, 0), 0, 4, true, 0},
		{"configured base", ago(time.Second, 0), 2 * time.Second, 2, false, time.Second},
		{"configured ceiling", ago(5, 4, 3, 2, 1, 0), 3 * time.Second, 6, false, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			max := 10
			if tc.open {
				max = 3
			}
			base, ceiling := 100*time.Millisecond, 10*time.Second
			if tc.base != 0 {
				base, ceiling = tc.base, 3*time.Second
			}
			delay, recent, open := restartDelay(tc.crashes, now, time.Hour, max, base, ceiling)
			if delay != tc.delay || len(recent) != tc.recent || open != tc.open {
				t.Fatalf("restartDelay = %v, %d recent, open %v; want %v, %d, %v", delay, len(recent), open, tc.delay, tc.recent, tc.open)
			}
		})
	}
}

// TestFaultIndexingPull: an empty pull answered while $/progress shows
// the server loading is not "no diagnostics": the client waits for the
// work to end (within the caller's wait) and pulls again.
func TestFaultIndexingPull(t *testing.T) {
	for _, mode := range []fakelsp.DiagnosticsMode{fakelsp.DiagPull, fakelsp.DiagDynamic} {
		t.Run(string(mode), func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{Diagnostics: mode,
				Indexing: &fakelsp.Indexing{Eager: true, EndAfter: "textDocument/diagnostic"}}, nil)
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Fresh || !slices.Equal(messages(t, fd.Diagnostics), []string{fakelsp.DiagnosticMessage}) {
				t.Fatalf("diagnostics after indexing %+v", fd)
			}
			e.close()
			if n := len(fakelsp.Requests(e.messages(), "textDocument/diagnostic")); n != 2 {
				t.Fatalf("%d pulls, want 2 (empty while indexing, then the real one)", n)
			}
		})
	}
}

// TestRestartOptions: zero takes the default, a negative value switches
// the mechanism off (what the configuration's 0 means).
func TestRestartOptions(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		in                     Options
		maxRestarts, wedge     int
		backoff, backoffCeil   time.Duration
		openAfterOneCrash      bool
		recycleAfterManyFaults bool
	}{
		{"defaults", Options{}, DefaultMaxRestarts, DefaultWedgeAfter, DefaultRestartBackoff, DefaultRestartBackoffMax, false, true},
		{"off", Options{MaxRestarts: -1, WedgeAfter: -1, RestartBackoff: -1}, 0, math.MaxInt, 0, DefaultRestartBackoffMax, true, false},
		{"set", Options{MaxRestarts: 2, WedgeAfter: 7, RestartBackoff: 2 * time.Second, RestartBackoffMax: time.Minute}, 2, 7, 2 * time.Second, time.Minute, false, true},
		{"backoff above the default cap", Options{RestartBackoff: time.Minute}, DefaultMaxRestarts, DefaultWedgeAfter, time.Minute, time.Minute, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewManager(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(t.Context())
			o := m.opts
			if o.MaxRestarts != tc.maxRestarts || o.WedgeAfter != tc.wedge || o.RestartBackoff != tc.backoff || o.RestartBackoffMax != tc.backoffCeil {
				t.Fatalf("options %d %d %v %v", o.MaxRestarts, o.WedgeAfter, o.RestartBackoff, o.RestartBackoffMax)
			}
			now := time.Now()
			_, _, open := restartDelay([]time.Time{now}, now, time.Minute, o.MaxRestarts, o.RestartBackoff, o.RestartBackoffMax)
			if open != tc.openAfterOneCrash {
				t.Fatalf("circuit open after one crash: %v", open)
			}
			if _, _, open := restartDelay(nil, now, time.Minute, o.MaxRestarts, o.RestartBackoff, o.RestartBackoffMax); open {
				t.Fatal("circuit open without a crash")
			}
			if recycles := 1000 >= o.WedgeAfter; recycles != tc.recycleAfterManyFaults {
				t.Fatalf("1000 timeouts recycle: %v", recycles)
			}
		})
	}
}

// TestFaultRestart: Manager.Restart (the adapter's _lsp/restart) replaces
// the process serving a file, reopens its documents and clears the crash
// history, so a server whose circuit opened runs again at once; by name it
// restarts every root of that server; an unknown name is an error.
func TestFaultRestart(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{Crash: true}), func(o *Options) { o.MaxRestarts = -1 })
	if _, err := e.hover(); !errors.Is(err, ErrServerExited) {
		t.Fatalf("hover: %v", err)
	}
	if _, err := e.hover(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("hover after a crash with restarts off: %v, want ErrCircuitOpen", err)
	}
	e.setScript(fakelsp.Script{})
	if err := e.m.Restart(t.Context(), "", e.file); err != nil {
		t.Fatal(err)
	}
	if st := e.status(); st.State != StateRunning || st.LastError != "" || st.OpenDocuments != 1 {
		t.Fatalf("status after Restart %+v", st)
	}
	e.wantHover()
	if err := e.m.Restart(t.Context(), "fakelsp", ""); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	if err := e.m.Restart(t.Context(), "nosuchserver", ""); err == nil || !strings.Contains(err.Error(), "nosuchserver") {
		t.Fatalf("Restart of an unknown server: %v", err)
	}
	e.close()
	opens := opensPerStart(e.messages())
	if len(opens) != 3 || !slices.Equal(opens[1], []string{"a.fk"}) || !slices.Equal(opens[2], []string{"a.fk"}) {
		t.Fatalf("opens per process %v, want 3 processes, the restarted ones reopening a.fk", opens)
	}
}

// TestFaultEmptyPushWhileLoading: a server that publishes an empty list
// for the current version while it is loading, and the real diagnostics
// once loaded, is waited for: the answer is the real list, not "no
// problems".
func TestFaultEmptyPushWhileLoading(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{Indexing: &fakelsp.Indexing{Eager: true, PublishEmpty: true, EndAfter: "textDocument/hover"}}, nil)
	events, stop := e.m.Subscribe(16)
	defer stop()
	e.prewarm()
	done := make(chan *DiagnosticsReport, 1)
	go func() {
		rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	if ev := <-events; string(ev.Diagnostics) != "[]" || ev.Version != 1 {
		t.Fatalf("first publish %+v, want the empty one for version 1", ev)
	}
	select {
	case rep := <-done:
		t.Fatalf("diagnostics answered from the empty publish made while loading: %+v", rep.Files[0])
	default:
	}
	e.wantHover() // ends the loading: answered empty, re-asked once the loading ended
	rep := <-done
	if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 1 {
		t.Fatalf("diagnostics after loading %+v", fd)
	}
}

// TestFaultCrashWhileDiagnosing: a server that crashes while diagnostics
// are awaited is restarted and waited for once more within the wait, so
// the verdict is its restart's fresh report; one that crashes again is
// Failed.
func TestFaultCrashWhileDiagnosing(t *testing.T) {
	crashOnOpen := fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/didOpen": {Crash: true}}}
	for _, tc := range []struct {
		name    string
		then    fakelsp.Script // what a restarted process reads
		verdict Verdict
	}{
		{"once", fakelsp.Script{}, Fresh},
		{"every time", crashOnOpen, Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, crashOnOpen, nil)
			e.prewarm()
			e.setScript(tc.then)
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fd := rep.Files[0]
			if fd.Verdict != tc.verdict {
				t.Fatalf("diagnostics: %s (%s), want %s", fd.Verdict, fd.Detail, tc.verdict)
			}
			// Two at least; a restart that dies on the documents it is
			// reopened with may be replaced within the same start.
			if n := len(fakelsp.Starts(e.messages())); n < 2 {
				t.Fatalf("%d processes started, want a restart", n)
			}
		})
	}
}
