package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// State is the life-cycle state of a (server, root) pair.
type State string

// States reported by Manager.Servers.
const (
	StateStopped  State = "stopped"  // not started yet, or idle-stopped
	StateStarting State = "starting" // spawned, initialize in flight
	StateRunning  State = "running"
	StateCrashed  State = "crashed" // exited unexpectedly; restarts on next use after backoff
	StateBroken   State = "broken"  // too many crashes: circuit open until the restart window passes
	StateMissing  State = "missing" // binary not installed
	StateClosed   State = "closed"  // Manager closed
)

// Errors callers can test with errors.Is / errors.As.
var (
	// ErrTimeout: a request or wait ran out of time.
	ErrTimeout = errors.New("language server did not answer in time")
	// ErrServerExited: the server process ended while a request was open.
	ErrServerExited = errors.New("language server exited")
	// ErrClosed: the Manager is closed.
	ErrClosed = errors.New("lsp manager closed")
	// ErrOutsideWorkspace: the path is not under any workspace root.
	ErrOutsideWorkspace = errors.New("path outside every workspace root")
	// ErrNoServer: no configured server handles the file type.
	ErrNoServer = errors.New("no language server handles this file type")
	// ErrCircuitOpen: the server crashed too often and is not restarted
	// until its restart window passes.
	ErrCircuitOpen = errors.New("language server crashed too often; not restarting for now")
	// ErrProtocol: the server wrote output that is not LSP (a stray print
	// on stdout, a broken frame); it was killed and is restarted on next
	// use.
	ErrProtocol = errors.New("language server broke the LSP protocol")
)

// MissingServerError names a server whose program is not installed.
type MissingServerError struct {
	Server, Command, InstallHint string
}

// Error names the program and how to install it.
func (e *MissingServerError) Error() string {
	return fmt.Sprintf("language server %s: program %q not found on PATH; install it with: %s", e.Server, e.Command, e.InstallHint)
}

// IndexingError is returned instead of an answer while the server is
// still loading the project: for an empty answer, and for a request that
// was not answered within Timeouts.Loading of a loading server.
type IndexingError struct {
	Server string
	// Progress is the loading work in progress, as last reported (empty
	// for a server that reports none).
	Progress []Progress
}

// Error says the server is loading and what it is doing.
func (e *IndexingError) Error() string {
	return fmt.Sprintf("language server %s is still loading the project (%s); its answer is not known yet: try again in a few seconds",
		e.Server, Readiness{State: ReadyLoading, Progress: e.Progress}.Work())
}

// Work are the titles of the loading work in progress.
func (e *IndexingError) Work() []string {
	out := make([]string, len(e.Progress))
	for i, w := range e.Progress {
		out[i] = w.Title
	}
	return out
}

// StartingError is returned to a caller whose wait ended while its
// server was still starting (spawned and initializing, or waiting out the
// restart delay after a crash): the server's answer is unknown, not
// empty. errors.Is matches ErrTimeout and the caller's context error.
type StartingError struct {
	Server string
	// For is how long the start has been going on.
	For time.Duration
	// Restart: the start follows a crash (and may be waiting out the
	// restart delay).
	Restart bool
	// Err is the caller's context error.
	Err error
}

// Error says the server is starting and for how long.
func (e *StartingError) Error() string {
	what := "starting"
	if e.Restart {
		what = "restarting after a crash"
	}
	return fmt.Sprintf("language server %s is still %s (for %s, not ready yet): its answer is unknown, not empty; ask again shortly",
		e.Server, what, e.For.Round(time.Millisecond))
}

// Unwrap matches ErrTimeout (for a deadline) and the context's error.
func (e *StartingError) Unwrap() []error {
	if errors.Is(e.Err, context.DeadlineExceeded) {
		return []error{ErrTimeout, e.Err}
	}
	return []error{e.Err}
}

// ResponseError is a JSON-RPC error a server answered with.
type ResponseError struct {
	Method  string
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error shows the method, code and message.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s: server error %d: %s", e.Method, e.Code, e.Message)
}

func (d Duration) d() time.Duration { return time.Duration(d) }

// server is one (server config, root) pair and the process currently
// serving it. mu guards every field below it.
type server struct {
	mgr     *Manager
	cfg     ServerConfig
	root    string // project root, the workspace folder
	ceiling string // workspace root the project root lies in
	tm      Timeouts
	load    loadRules // cfg.Loading compiled
	log     *slog.Logger
	// quit is closed by close: a start in its backoff delay or initialize
	// gives up at once instead of holding Manager.Close.
	quit chan struct{}

	mu       sync.Mutex
	cur      *proc
	starting chan struct{}
	state    State
	lastErr  error
	crashes  []time.Time
	restarts int
	// startedAt is when the current start began, and whether it
	// follows a crash (restarting), for StartingError.
	startedAt  time.Time
	restarting bool
	reopen     []string
	dead       []*proc
	inflight   int
	lastUsed   time.Time
	idleTimer  *time.Timer
	closed     bool
}

func (s *server) noteError(err error) {
	s.mu.Lock()
	s.lastErr = err
	s.mu.Unlock()
}

// ensure returns the running process, starting it (once, shared by
// concurrent callers) when needed. A process whose connection is gone is
// never returned: it is killed and reaped first, so its crash is recorded
// and a new one started (with the restart backoff and circuit breaker)
// instead of sending into a dead connection.
func (s *server) ensure(ctx context.Context) (*proc, error) {
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		if p := s.cur; p != nil {
			if !p.exited() && !p.disconnected() {
				s.mu.Unlock()
				return p, nil
			}
			if !p.exited() {
				// The connection closed before the process was reaped (it
				// is crashing, or broke the protocol). Give it the
				// shutdown grace to exit on its own, so its real exit
				// status and stderr are what the status reports, then
				// kill the group.
				s.mu.Unlock()
				if err := s.reap(ctx, p); err != nil {
					return nil, err
				}
				s.mu.Lock()
				continue
			}
			if s.cur == p {
				// It died before it became current, so nobody recorded it.
				s.cur = nil
				s.dead = append(s.dead, p)
				s.state = StateCrashed
				s.crashes = append(s.crashes, s.mgr.now())
				s.reopen = p.openPaths()
			}
			continue
		}
		if s.starting == nil {
			break
		}
		ch := s.starting
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, s.startCtxErr(ctx)
		}
		s.mu.Lock()
		if s.cur == nil && s.lastErr != nil && s.starting == nil {
			err := s.lastErr
			s.mu.Unlock()
			return nil, err
		}
	}
	now := s.mgr.now()
	window := s.mgr.opts.RestartWindow
	o := s.mgr.opts
	delay, recent, open := restartDelay(s.crashes, now, window, o.MaxRestarts, o.RestartBackoff, o.RestartBackoffMax)
	s.crashes = recent
	if open {
		s.state = StateBroken
		err := fmt.Errorf("%s (%d crashes within %s, last: %v; next try after %s): %w", s.cfg.Name, len(recent), window,
			s.lastErr, recent[0].Add(window).Sub(now).Round(time.Second), ErrCircuitOpen)
		s.mu.Unlock()
		return nil, err
	}
	ch := make(chan struct{})
	s.starting = ch
	s.state = StateStarting
	s.startedAt, s.restarting = time.Now(), len(recent) > 0
	reopen := s.reopen
	s.reopen = nil
	s.mu.Unlock()
	// The start runs on its own: the process is shared, so it must not
	// die with this caller's context, and this caller must not wait past
	// its own deadline for a slow initialize.
	go s.finishStart(context.WithoutCancel(ctx), delay, reopen, len(recent) > 0, ch)
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, s.startCtxErr(ctx)
	}
	s.mu.Lock()
	if s.cur == nil && s.lastErr != nil {
		err := s.lastErr
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Unlock()
	return s.ensure(ctx)
}

// startCtxErr is the error of a caller that stopped waiting for a start:
// a *StartingError for a deadline (the server is not failing, it is not
// ready), the context's error for a cancel.
func (s *server) startCtxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return &StartingError{Server: s.cfg.Name, For: time.Since(s.startedAt), Restart: s.restarting, Err: ctx.Err()}
	}
	return fmt.Errorf("start %s: %w", s.cfg.Name, ctx.Err())
}

// finishStart starts a process and publishes the outcome: the new current
// process, or the error (a crash for the restart policy unless the program
// is missing). ch is closed last, so whoever waits on it sees the result.
func (s *server) finishStart(ctx context.Context, delay time.Duration, reopen []string, restart bool, ch chan struct{}) {
	p, err := s.start(ctx, delay, reopen)
	s.mu.Lock()
	defer close(ch)
	defer s.mu.Unlock()
	s.starting = nil
	if err != nil {
		var me *MissingServerError
		switch {
		case errors.As(err, &me):
			s.state = StateMissing
		case errors.Is(err, ErrClosed):
		default:
			s.state = StateCrashed
			s.crashes = append(s.crashes, s.mgr.now())
		}
		s.lastErr = err
		s.reopen = reopen
		return
	}
	if s.closed {
		s.lastErr = ErrClosed
		s.dead = append(s.dead, p) // close waits on starting, then shuts it down
		return
	}
	s.cur = p
	s.state = StateRunning
	if restart {
		s.restarts++
	}
	// A start counts as a use: a process started without a request
	// (Prewarm, Restart) and never asked anything is idle too, and the
	// timer may have fired while no process ran, with nothing to rearm it.
	s.lastUsed = time.Now()
	s.armIdleLocked()
}

// reap waits for a process whose connection is gone to exit, killing its
// group after the shutdown grace.
func (s *server) reap(ctx context.Context, p *proc) error {
	t := time.NewTimer(s.tm.Shutdown.d())
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		p.loseConn(fmt.Errorf("%w: server %s closed its output but kept running", ErrServerExited, s.cfg.Name))
		p.kill()
	case <-ctx.Done():
		p.kill() // it is useless either way; the next caller finds it gone
		return fmt.Errorf("start %s: %w", s.cfg.Name, ctx.Err())
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("start %s: %w", s.cfg.Name, ctx.Err())
	}
}

// restartDelay applies the restart policy to a crash history: the crashes
// still inside window, whether they are too many (more than maxRestarts:
// the circuit is open), and otherwise how long to wait before the next
// start: base doubling per recent crash, at most ceiling, counted from the
// last crash.
func restartDelay(crashes []time.Time, now time.Time, window time.Duration, maxRestarts int, base, ceiling time.Duration) (time.Duration, []time.Time, bool) {
	var recent []time.Time
	for _, t := range crashes {
		if now.Sub(t) < window {
			recent = append(recent, t)
		}
	}
	n := len(recent)
	if n > maxRestarts {
		return 0, recent, true
	}
	if n == 0 {
		return 0, recent, false
	}
	backoff := min(base<<min(n-1, 16), ceiling)
	return max(backoff-now.Sub(recent[n-1]), 0), recent, false
}

func (s *server) start(ctx context.Context, delay time.Duration, reopen []string) (*proc, error) {
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-s.quit:
			t.Stop()
			return nil, ErrClosed
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("start %s: %w", s.cfg.Name, ctx.Err())
		}
	}
	s.mgr.watchRoot(s.ceiling)
	s.mgr.opts.Budget.makeRoom(s, s.mgr.opts.MemoryBudget, s.mgr.opts.MaxRunning)
	p, err := startProc(s)
	if err != nil {
		return nil, err
	}
	// A shared process must not die with the first caller's context, but
	// it does with the Manager.
	ictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ictx.Done():
		}
	}()
	if err := p.initialize(ictx); err != nil {
		p.closing.Store(true)
		p.kill()
		<-p.done
		p.wg.Wait()
		if tail := p.stderr.String(); tail != "" {
			err = fmt.Errorf("%w; stderr: %s", err, tellingLine(tail))
		}
		return nil, err
	}
	for _, path := range reopen {
		if _, err := os.Stat(path); err == nil {
			_, _ = p.sync(path)
		}
	}
	s.log.Info("language server started", "server", s.cfg.Name, "root", s.root, "pid", p.pid, "encoding", p.enc)
	return p, nil
}

// crashed is called by proc.wait when the process exits on its own.
func (s *server) crashed(p *proc, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != p {
		return
	}
	s.cur = nil
	s.dead = append(s.dead, p)
	s.state = StateCrashed
	s.lastErr = err
	s.crashes = append(s.crashes, s.mgr.now())
	s.reopen = p.openPaths()
}

// recycle takes a wedged process out of rotation (no request is sent to
// it any more) and then kills its group; the next use starts a fresh one
// with the documents reopened. A process that is not current (it wedged
// while starting) is only killed.
func (s *server) recycle(p *proc, why error) {
	s.mu.Lock()
	if s.cur == p {
		s.cur = nil
		s.dead = append(s.dead, p)
		s.state = StateCrashed
		s.lastErr = fmt.Errorf("%s recycled: %w", s.cfg.Name, why)
		s.crashes = append(s.crashes, s.mgr.now())
		s.reopen = p.openPaths()
		p.closing.Store(true) // recorded here, not as a crash by wait
	}
	s.mu.Unlock()
	s.log.Warn("recycling language server", "server", s.cfg.Name, "pid", p.pid, "why", why)
	p.kill()
}

// begin and end count requests in flight for idle teardown.
func (s *server) begin() {
	s.mu.Lock()
	s.inflight++
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (s *server) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	s.lastUsed = time.Now()
	s.armIdleLocked()
}

// armIdleLocked (s.mu held) starts the idle count over: the server is
// shut down once it has gone Timeouts.Idle without a request.
func (s *server) armIdleLocked() {
	idle := s.tm.Idle.d()
	if idle <= 0 || s.closed {
		return
	}
	if s.idleTimer == nil {
		s.idleTimer = time.AfterFunc(idle, s.idleCheck)
	} else {
		s.idleTimer.Reset(idle)
	}
}

func (s *server) idleCheck() {
	s.mu.Lock()
	idle := s.tm.Idle.d()
	if s.closed || s.cur == nil {
		s.mu.Unlock()
		return
	}
	if left := idle - time.Since(s.lastUsed); s.inflight > 0 || left > 0 {
		s.idleTimer.Reset(max(left, idle/10))
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.stopIdle("idle")
}

// stopIdle shuts the running process down unless a request is in flight
// (or none runs), and reports whether it did; the next request starts it
// again. why is logged.
func (s *server) stopIdle(why string) bool {
	s.mu.Lock()
	if s.closed || s.cur == nil || s.inflight > 0 {
		s.mu.Unlock()
		return false
	}
	p := s.cur
	s.cur = nil
	s.state = StateStopped
	s.dead = append(s.dead, p)
	s.mu.Unlock()
	s.log.Info("stopping idle language server", "server", s.cfg.Name, "root", s.root, "why", why)
	p.shutdown(context.Background())
	s.forget(p)
	return true
}

// forget drops a process that was shut down from dead: close has nothing
// left to wait for, and a long session's idle teardowns and restarts must
// not keep every stopped process's documents in memory until the end.
func (s *server) forget(p *proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dead = slices.DeleteFunc(s.dead, func(d *proc) bool { return d == p })
}

// close shuts the process down and waits for every process this server
// ever ran.
func (s *server) close(ctx context.Context) {
	s.mu.Lock()
	if !s.closed && s.quit != nil {
		close(s.quit)
	}
	s.closed = true
	if s.idleTimer != nil {
		s.idleTimer.Stop()
	}
	p := s.cur
	s.cur = nil
	dead := s.dead
	s.dead = nil
	s.state = StateClosed
	starting := s.starting
	s.mu.Unlock()
	if starting != nil {
		<-starting
		s.mu.Lock()
		dead = append(dead, s.dead...) // what the start made (finishStart saw closed)
		s.dead = nil
		s.mu.Unlock()
	}
	if p != nil {
		p.shutdown(ctx)
	}
	for _, d := range dead {
		d.shutdown(ctx)
	}
}

// errServerDeadline is the cause of a request's own deadline
// (Timeouts.Request) expiring, as against its caller's.
var errServerDeadline = errors.New("the language server's request timeout passed")

// errLoadingWait is the cause of a request given up because its server
// was still loading when Timeouts.Loading had passed.
var errLoadingWait = errors.New("the language server was still loading when the loading wait passed")

// retryWait waits d before a retry, or, when loading, until the server is
// ready if that comes first; it fails when ctx ends.
func (s *server) retryWait(ctx context.Context, p *proc, d time.Duration, loading bool) error {
	t := time.NewTimer(d)
	defer t.Stop()
	var changed <-chan struct{} // nil: never, when not loading
	if loading {
		_, changed = p.readiness()
	}
	for {
		select {
		case <-t.C:
			return nil
		case <-changed:
			var r Readiness
			if r, changed = p.readiness(); r.State == Ready {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// retryWhileLoading is the longest a request answered ContentModified by a
// loading server waits before it asks again, when no readiness change
// comes first.
const retryWhileLoading = 250 * time.Millisecond

// call sends a request on p with retries for ContentModified and
// ServerCancelled, readiness handling and timeout accounting, and returns
// the answer with the server's readiness when it arrived. params and the
// result are in the server's encoding.
func (s *server) call(ctx context.Context, p *proc, d document, method string, params json.RawMessage) (json.RawMessage, Readiness, error) {
	backoff := 20 * time.Millisecond
	reasks := 0
	for attempt := 0; ; attempt++ {
		mark := p.mark()
		raw, ready, err := p.callReady(ctx, method, params)
		var re *ResponseError
		if err == nil || errors.As(err, &re) {
			// An answer, a result or an error, shows the server alive and
			// reading: it breaks a row of timeouts.
			p.mu.Lock()
			p.timeouts = 0
			p.mu.Unlock()
		}
		if err == nil {
			if isEmptyResult(raw) && method != "shutdown" {
				if again, err := s.afterEmpty(ctx, p, method, mark, &reasks); again || err != nil {
					if err != nil {
						return nil, ready, err
					}
					continue
				}
			}
			return raw, ready, nil
		}
		// A server still loading its project may answer ContentModified
		// to everything until it is done (rust-analyzer while it
		// indexes): ask again until the load ends, without spending the
		// retries, every retryWhileLoading at most; the loading wait
		// (boundLoading) bounds it.
		loading := re != nil && re.Code == codeContentModified && ready.State != Ready
		if re != nil && (re.Code == codeContentModified || re.Code == codeServerCancelled) && (attempt < 6 || loading) {
			if werr := s.retryWait(ctx, p, backoff, loading); werr != nil {
				if context.Cause(ctx) == errLoadingWait {
					return nil, ready, &IndexingError{Server: s.cfg.Name, Progress: ready.Progress}
				}
				return nil, ready, err
			}
			backoff *= 2
			if loading {
				attempt-- // this one waits for the load, it is no retry
				backoff = min(backoff, retryWhileLoading)
			}
			if d.path != "" {
				// The file may have changed under the server: resync.
				if nd, serr := p.sync(d.path); serr == nil {
					d = nd
				}
			}
			continue
		}
		if ctx.Err() != nil && context.Cause(ctx) == errLoadingWait {
			return nil, ready, &IndexingError{Server: s.cfg.Name, Progress: ready.Progress}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			if ready.State != Ready {
				return nil, ready, &IndexingError{Server: s.cfg.Name, Progress: ready.Progress}
			}
			// Only the server's own deadline (Timeouts.Request) counts
			// toward recycling, and only when the server was not loading
			// as the request went out either: a caller that waits less,
			// such as the tool's diagnostics wait, says the server is
			// slow, not that it is wedged, and a server slow with its
			// first load (gopls on a large module with an empty cache)
			// is not wedged either; recycling it would start its load
			// over.
			if context.Cause(ctx) == errServerDeadline && !mark.busy {
				p.mu.Lock()
				p.timeouts++
				n := p.timeouts
				p.mu.Unlock()
				if n >= s.mgr.opts.WedgeAfter {
					s.recycle(p, fmt.Errorf("%w: %d requests in a row timed out", ErrTimeout, n))
				}
			}
			return nil, ready, fmt.Errorf("%s %s: %w (%w)", s.cfg.Name, method, ErrTimeout, err)
		}
		return nil, ready, err
	}
}

// afterEmpty decides what an empty answer means. While the server is
// loading it waits for the load to end and says to ask again (or returns
// an *IndexingError when ctx ends first); when the server was loading as
// the request went out, or began loading work before answering, but is
// ready now, the answer may predate the end of loading, so it says to ask
// again at once (a few times: a server that begins work for every request
// must not loop us). Otherwise the empty answer stands.
func (s *server) afterEmpty(ctx context.Context, p *proc, method string, mark progressMark, reasks *int) (bool, error) {
	r, changed := p.readiness()
	if r.State == Ready {
		if p.busySince(mark) && *reasks < 3 {
			*reasks++
			return true, nil
		}
		return false, nil
	}
	for {
		select {
		case <-changed:
			if r, changed = p.readiness(); r.State == Ready {
				return true, nil
			}
		case <-ctx.Done():
			return false, &IndexingError{Server: s.cfg.Name, Progress: r.Progress}
		case <-p.done:
			return false, fmt.Errorf("%s: %w", method, ErrServerExited)
		}
	}
}

// boundLoading returns ctx cancelled with the cause errLoadingWait once
// wait has passed since began while p is loading, or as soon as it starts
// loading after that: a request to a server that is still loading its
// project answers "loading" instead of holding its caller until the
// request timeout. stop releases it.
func boundLoading(ctx context.Context, p *proc, began time.Time, wait time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(max(wait-time.Since(began), 0), func() {
		for {
			r, changed := p.readiness()
			if r.State != Ready {
				cancel(errLoadingWait)
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	})
	return ctx, func() {
		t.Stop()
		cancel(nil)
	}
}

// request syncs path, converts positions (UTF-16 on the caller's side,
// unless native: the server's own encoding) and runs method; it returns
// the answer with the server's readiness when it arrived.
//
// A server that crashes while the request is open (it exits, or breaks
// the protocol; not one acp-lsp stopped) is restarted and asked once
// more within the same deadline: servers crash for reasons of their own
// (ccls's concurrent indexers trip an assertion now and then), and the
// caller should not pay for that with a failed answer. Only once, so a
// request that is itself what crashes the server costs two crashes, and
// the error then says so. workspace/executeCommand is never asked twice:
// a command may have done part of its work before the crash.
func (s *server) request(ctx context.Context, path, method string, params json.RawMessage, use docUse, native bool) (json.RawMessage, Readiness, error) {
	began := time.Now()
	s.begin()
	defer s.end()
	ctx, cancel := context.WithTimeoutCause(ctx, s.tm.Request.d(), errServerDeadline)
	defer cancel()
	raw, ready, p, err := s.requestOn(ctx, began, path, method, params, use, native)
	if err == nil || p == nil || !p.crashedUnder(ctx) || method == "workspace/executeCommand" {
		return raw, ready, err
	}
	s.log.Warn("language server crashed during a request; asking its restart", "server", s.cfg.Name, "method", method, "err", err)
	first := err
	raw, ready, p, err = s.requestOn(ctx, began, path, method, params, use, native)
	switch {
	case err == nil:
	case p == nil:
		err = fmt.Errorf("%w; not asked again: %w", first, err) // no restart: circuit open, or slow start
	case p.crashedUnder(ctx):
		err = fmt.Errorf("%w (it crashed on this request twice, the second time right after a restart: the request itself may be what crashes it)", err)
	}
	return raw, ready, err
}

// requestOn is one attempt of request: it starts the server if needed
// and returns the process it asked (nil if none started).
func (s *server) requestOn(ctx context.Context, began time.Time, path, method string, params json.RawMessage, use docUse, native bool) (json.RawMessage, Readiness, *proc, error) {
	p, err := s.ensure(ctx)
	if err != nil {
		return nil, Readiness{Server: s.cfg.Name, State: ReadyStarting}, nil, err
	}
	if wait := s.tm.Loading.d(); wait > 0 {
		var stop func()
		ctx, stop = boundLoading(ctx, p, began, wait)
		defer stop()
	}
	s.mgr.syncDiskQuiet()
	p.viewMu.RLock()
	defer p.viewMu.RUnlock()
	if use == usePeek && !p.isOpen(path) {
		// A file read in passing is asked about as it is on disk, without
		// opening it: opening makes the server analyse its package (gopls
		// type-checks it for diagnostics), the cost the peek is there to
		// avoid. A server that answers only about open documents (an
		// error, or nothing) is asked again with the file opened for the
		// request and closed after.
		raw, ready, err := s.callIn(ctx, p, document{uri: edit.URIFromPath(path)}, method, params, native)
		if err == nil && !isEmptyResult(raw) {
			return raw, ready, p, nil
		}
	}
	d, err := p.syncFor(path, use)
	if err != nil {
		return nil, Readiness{}, p, err
	}
	if use == usePeek {
		defer p.unpeek(path)
	}
	if h := s.mgr.requestSynced; h != nil {
		h(path)
	}
	raw, ready, err := s.callIn(ctx, p, d, method, params, native)
	return raw, ready, p, err
}

// callIn is call with positions converted between UTF-16 and the
// server's encoding (unless native), in the document d or the disk's file.
func (s *server) callIn(ctx context.Context, p *proc, d document, method string, params json.RawMessage, native bool) (json.RawMessage, Readiness, error) {
	var err error
	convert := p.enc != position.UTF16 && !native
	if convert && len(params) > 0 {
		c := newConverter(position.UTF16, p.enc, p.openText, p.srv.mgr.opts.MaxFileSize)
		if params, err = c.convert(params, d.uri); err != nil {
			return nil, Readiness{}, fmt.Errorf("%s: %w", method, err)
		}
	}
	raw, ready, err := s.call(ctx, p, d, method, params)
	if err != nil {
		return nil, ready, err
	}
	if convert {
		c := newConverter(p.enc, position.UTF16, p.openText, p.srv.mgr.opts.MaxFileSize)
		raw, err = c.convert(raw, d.uri)
	}
	return raw, ready, err
}

func (s *server) foldersJSON() string {
	type folder struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	b, _ := encode([]folder{{edit.URIFromPath(s.root), filepath.Base(s.root)}})
	return string(b)
}

// initializeParams builds initialize's params: the client's real
// capabilities, the root and its workspace folder, and initOptions (the
// configuration's, DataDirVar expanded).
func initializeParams(s *server, initOptions json.RawMessage) (json.RawMessage, error) {
	rootURI, _ := encode(edit.URIFromPath(s.root))
	init := json.RawMessage("null")
	if len(initOptions) > 0 {
		init = initOptions
	}
	return json.RawMessage(`{"processId":` + strconv.Itoa(os.Getpid()) +
		`,"clientInfo":{"name":"acp-lsp"},"locale":"en","rootUri":` + string(rootURI) +
		`,"rootPath":` + mustString(s.root) +
		`,"workspaceFolders":` + s.foldersJSON() +
		`,"initializationOptions":` + string(init) +
		`,"capabilities":` + clientCapabilities + `}`), nil
}

func mustString(s string) string {
	b, _ := encode(s)
	return string(b)
}

// clientCapabilities are what this client really implements.
// offsetEncoding is clangd's pre-3.17 form of positionEncodings (clangd 14).
const clientCapabilities = `{
 "general": {"positionEncodings": ["utf-8", "utf-16"]},
 "offsetEncoding": ["utf-8", "utf-16"],
 "window": {"workDoneProgress": true, "showMessage": {}, "showDocument": {"support": false}},
 "workspace": {
  "applyEdit": true,
  "configuration": true,
  "workspaceFolders": true,
  "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"], "failureHandling": "transactional"},
  "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true},
  "didChangeConfiguration": {"dynamicRegistration": true},
  "symbol": {"dynamicRegistration": true},
  "executeCommand": {"dynamicRegistration": true},
  "fileOperations": {"dynamicRegistration": true, "willRename": true, "didRename": true},
  "diagnostics": {"refreshSupport": true}
 },
 "textDocument": {
  "synchronization": {"dynamicRegistration": true, "didSave": true, "willSave": false},
  "publishDiagnostics": {"relatedInformation": true, "versionSupport": true, "codeDescriptionSupport": true, "dataSupport": true, "tagSupport": {"valueSet": [1, 2]}},
  "diagnostic": {"dynamicRegistration": true, "relatedDocumentSupport": false},
  "hover": {"dynamicRegistration": true, "contentFormat": ["markdown", "plaintext"]},
  "definition": {"dynamicRegistration": true, "linkSupport": true},
  "declaration": {"dynamicRegistration": true, "linkSupport": true},
  "typeDefinition": {"dynamicRegistration": true, "linkSupport": true},
  "implementation": {"dynamicRegistration": true, "linkSupport": true},
  "references": {"dynamicRegistration": true},
  "documentSymbol": {"dynamicRegistration": true, "hierarchicalDocumentSymbolSupport": true, "symbolKind": {"valueSet": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26]}},
  "rename": {"dynamicRegistration": true, "prepareSupport": true},
  "callHierarchy": {"dynamicRegistration": true},
  "typeHierarchy": {"dynamicRegistration": true},
  "signatureHelp": {"dynamicRegistration": true, "signatureInformation": {"documentationFormat": ["markdown", "plaintext"]}},
  "codeAction": {"dynamicRegistration": true, "isPreferredSupport": true, "dataSupport": true, "resolveSupport": {"properties": ["edit"]},
   "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"]}}},
  "formatting": {"dynamicRegistration": true},
  "completion": {"dynamicRegistration": true, "completionItem": {"snippetSupport": false, "documentationFormat": ["markdown", "plaintext"]}}
 }
}`
