package serverhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// Config configures a Client.
type Config struct {
	// Executable is the acp-lsp binary that runs the host (`acp-lsp
	// host`); empty means os.Executable().
	Executable string
	// Identity is the build identity the host must share; empty means
	// Identity().
	Identity string
	// Dir is the folder of the host's socket; empty means
	// Dir(os.Getenv).
	Dir string
	// Idle is the host's grace after its last client left, given to a
	// host this client starts (DefaultIdleGrace when zero).
	Idle time.Duration
	// Logger receives the client's logs; nil discards them.
	Logger *slog.Logger
}

// ErrHostGone: the host ended (killed, crashed) while a call was open; the
// call's outcome is not known. The next call starts a new host.
var ErrHostGone = errors.New("the shared language-server host ended during the call")

// Client is one acp-lsp process's access to the shared server host: the
// adapter's local servers (adapter.LocalServers), served by the host's
// servers for the client's profile (lsp.Options) and roots. It starts the
// host on the first call that needs a server, and a new one when the
// host it used is gone. When the host cannot start or will not take it
// (its folder is not the user's own, its socket would not fit a socket
// address, the binary fails, the hello fails), the Client runs the servers in this process from then on, as
// an lsp.Manager would, and logs a warning. Its methods are safe for
// concurrent use.
type Client struct {
	cfg  Config
	log  *slog.Logger
	prof profile
	opts lsp.Options // for the servers run here when the host cannot start
	// local serves every call once the host could not start.
	local atomic.Pointer[lsp.Manager]
	// survey walks workspaces here, with the same registry and PATH as
	// the host's Manager would; it never starts a server.
	survey *lsp.Manager
	ids    atomic.Uint64

	dialMu sync.Mutex // one dial (and host start) at a time

	mu     sync.Mutex
	conn   *link
	roots  []string
	subs   map[int]chan lsp.DiagnosticsEvent
	subID  int
	closed bool
}

// NewClient returns a Client for the local servers opts describe; it
// connects to (or starts) the host on first use. opts.Connect cannot
// cross a process boundary and is refused.
func NewClient(opts lsp.Options, cfg Config) (*Client, error) {
	if opts.Connect != nil {
		return nil, errors.New("server host: lsp.Options.Connect runs servers in process; it cannot be shared")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Idle == 0 {
		cfg.Idle = DefaultIdleGrace
	}
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("server host: %w", err)
		}
		cfg.Executable = exe
	}
	if cfg.Identity == "" {
		id, err := identityOf(cfg.Executable)
		if err != nil {
			return nil, err
		}
		cfg.Identity = id
	}
	if cfg.Dir != "" {
		if err := checkDir(cfg.Dir, os.Getuid()); err != nil {
			return nil, err
		}
	}
	c := &Client{cfg: cfg, log: cfg.Logger, prof: profileOf(opts, os.Environ()), opts: opts, subs: map[int]chan lsp.DiagnosticsEvent{}}
	c.opts.Roots = nil // AddRoot's, at the fallback's start
	sopts := c.prof.options()
	sopts.Logger = cfg.Logger
	m, err := lsp.NewManager(sopts)
	if err != nil {
		return nil, fmt.Errorf("server host: %w", err)
	}
	c.survey = m
	for _, r := range opts.Roots {
		if err := c.AddRoot(r); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// place names the host's files. The folder is made (and checked) the
// first time a host is to be started, so a process that never needs a
// server leaves no trace; without start, a missing folder means no host.
func (c *Client) place(start bool) (place, error) {
	return placeOf(c.cfg.Dir, c.cfg.Identity, start)
}

// placeOf is Client.place for a folder (empty: Dir's) and build id.
func placeOf(dir, id string, start bool) (place, error) {
	if dir == "" {
		dir = dirPath(os.Getenv)
		if _, err := os.Lstat(dir); err != nil && !start {
			return place{}, errNoHost
		}
		var err error
		if dir, err = Dir(os.Getenv); err != nil {
			return place{}, err
		}
	}
	return place{dir: dir, id: id}, nil
}

// session returns the connection to the host, connecting when there is
// none (and, with start, starting the host when none runs). It returns
// nil and no error when no host runs and start is false.
func (c *Client) session(ctx context.Context, start bool) (*link, error) {
	c.mu.Lock()
	conn, closed := c.conn, c.closed
	c.mu.Unlock()
	if closed {
		return nil, lsp.ErrClosed
	}
	if conn != nil {
		return conn, nil
	}
	c.dialMu.Lock()
	defer c.dialMu.Unlock()
	c.mu.Lock()
	conn = c.conn
	c.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	pl, err := c.place(start)
	if errors.Is(err, errNoHost) {
		return nil, nil
	}
	if err != nil && start {
		return nil, c.fallBack(ctx, err)
	}
	if err != nil {
		return nil, err
	}
	var (
		res  helloResult
		told []string
	)
	// Twice: a host ending after its idle grace may take the connection
	// and close it unanswered; then a new host is started.
	for attempt := 0; ; attempt++ {
		uc, err := dial(ctx, pl.socket())
		if err != nil {
			if !start {
				return nil, nil
			}
			if uc, err = startHost(ctx, pl, c.cfg.Executable, c.cfg.Idle, c.log); err != nil {
				return nil, c.fallBack(ctx, err)
			}
		}
		conn = newLink(uc, c.handle)
		conn.start()
		c.mu.Lock()
		roots := slices.Clone(c.roots)
		c.mu.Unlock()
		var m message
		m, err = conn.Call(ctx, 0, mHello, helloParams{Identity: c.cfg.Identity, PID: os.Getpid(), Profile: c.prof, Roots: roots}, nil)
		if err == nil {
			err = json.Unmarshal(m.meta, &res)
		}
		if err == nil {
			told = roots
			break
		}
		conn.Close()
		var we *wireError
		if errors.As(err, &we) {
			err = fmt.Errorf("server host: %w", decodeError(we))
		} else if attempt > 0 || ctx.Err() != nil {
			err = fmt.Errorf("server host: hello: %w", err)
		} else {
			continue
		}
		// A host that refuses this process (its peer credentials
		// unreadable) is one that cannot start for it.
		if start {
			return nil, c.fallBack(ctx, err)
		}
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return nil, lsp.ErrClosed
	}
	// Roots added while hello was on its way are told now (telling one
	// twice is harmless).
	for _, r := range c.roots {
		if !slices.Contains(told, r) {
			conn.Notify(mAddRoot, pathParams{Path: r}, nil)
		}
	}
	c.conn = conn
	go func() {
		<-conn.Done()
		c.mu.Lock()
		if c.conn == conn {
			c.conn = nil
		}
		c.mu.Unlock()
	}()
	c.log.Info("connected to the server host", "pid", res.PID)
	return conn, nil
}

// errInProcess: the host could not start; the call is answered in this
// process (Client.local).
var errInProcess = errors.New("server host: servers run in this process")

// fallBack makes the servers run in this process from now on, the host
// having failed to start with cause, and returns errInProcess; or cause
// when ctx ended (the start was cut short, not refused), or why the
// servers cannot run here either. Once in process a Client stays so: its
// servers, documents and diagnostics are there.
func (c *Client) fallBack(ctx context.Context, cause error) error {
	if ctx.Err() != nil {
		return cause
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return lsp.ErrClosed
	}
	if c.local.Load() != nil {
		return errInProcess
	}
	o := c.opts
	o.Roots = slices.Clone(c.roots)
	m, err := lsp.NewManager(o)
	if err != nil {
		return fmt.Errorf("%w; in this process: %w", cause, err)
	}
	c.log.Warn("the shared server host cannot start; running language servers in this process", "err", cause)
	// The Manager's diagnostics reach the Client's subscribers as the
	// host's would; the channel closes with the Manager.
	events, _ := m.Subscribe(64)
	go func() {
		for ev := range events {
			c.publish(ev)
		}
	}()
	c.local.Store(m)
	return errInProcess
}

// either answers through the host (host), or in this process (here) once
// the host could not start.
func either[T any](c *Client, host func() (T, error), here func(*lsp.Manager) (T, error)) (T, error) {
	if m := c.local.Load(); m != nil {
		return here(m)
	}
	v, err := host()
	if errors.Is(err, errInProcess) {
		return here(c.local.Load())
	}
	return v, err
}

// handle receives the host's diagnostics.
func (c *Client) handle(m message) {
	if m.kind != kindNotify || m.method != nDiagnostics {
		return
	}
	var ev lsp.DiagnosticsEvent
	if err := json.Unmarshal(m.meta, &ev); err != nil {
		return
	}
	c.publish(ev)
}

// publish hands ev to every subscriber (dropped for one whose buffer is
// full, as lsp.Manager does).
func (c *Client) publish(ev lsp.DiagnosticsEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// call calls method on the host with params (its meta) and raw bytes
// carried as they are, and decodes the answer's meta into result (nil:
// none); it returns the answer's raw bytes. When the host is gone before
// the answer (killed, crashed), a call that changes nothing on disk is
// made once more on a new host; any other fails with ErrHostGone.
func (c *Client) call(ctx context.Context, method string, params any, raw []byte, result any, start, retry bool) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		conn, err := c.session(ctx, start)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if conn == nil {
			return nil, errNoHost
		}
		id := c.ids.Add(1)
		m, err := conn.Call(ctx, id, method, params, raw)
		var we *wireError
		switch {
		case err == nil:
			if result != nil && len(m.meta) > 0 {
				if err := json.Unmarshal(m.meta, result); err != nil {
					return nil, fmt.Errorf("%s: decode the host's answer: %w", method, err)
				}
			}
			return m.raw, nil
		case errors.As(err, &we):
			return nil, decodeError(we)
		case ctx.Err() != nil:
			conn.Notify(mCancel, cancelParams{ID: id}, nil)
			return nil, ctx.Err()
		}
		// The connection broke: the host is gone.
		conn.Close()
		c.mu.Lock()
		if c.conn == conn {
			c.conn = nil
		}
		c.mu.Unlock()
		if !retry || attempt > 0 {
			return nil, fmt.Errorf("%s: %w (%v); ask again: the next call starts a new host", method, ErrHostGone, err)
		}
		c.log.Warn("the server host went away; asking a new one", "method", method, "err", err)
	}
}

// joinTimeout bounds joining a running host from Subscribe.
const joinTimeout = 10 * time.Second

// errNoHost: no host runs and the call does not start one.
var errNoHost = errors.New("no server host")

// AddRoot adds a workspace root, as lsp.Manager.AddRoot.
func (c *Client) AddRoot(root string) error {
	abs, err := edit.RootDir(root)
	if err != nil {
		return fmt.Errorf("add root: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.roots, abs) {
		return nil
	}
	c.roots = append(c.roots, abs)
	if m := c.local.Load(); m != nil {
		return m.AddRoot(abs)
	}
	if c.conn != nil {
		// A notification, read by the host in order: in force for
		// every call sent after it.
		c.conn.Notify(mAddRoot, pathParams{Path: abs}, nil)
	}
	return nil
}

// writes reports whether an LSP request may change files (a command's
// edits are applied by the server's workspace/applyEdit): it is not made
// twice when the host dies during it.
func writes(method string) bool { return method == "workspace/executeCommand" }

// Ask is lsp.Manager.Ask, through the host: the raw result and the
// server's readiness when its answer was read.
func (c *Client) Ask(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error) {
	return c.ask(ctx, requestParams{Path: path, Method: method}, params)
}

// AskNative is lsp.Manager.AskNative, through the host.
func (c *Client) AskNative(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error) {
	return c.ask(ctx, requestParams{Path: path, Method: method, Native: true}, params)
}

// Peek is lsp.Manager.Peek, through the host.
func (c *Client) Peek(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error) {
	return c.ask(ctx, requestParams{Path: path, Method: method, Peek: true}, params)
}

// ask makes the request p says, with the server's params carried as they
// are; a request that may write files is not retried on a new host.
func (c *Client) ask(ctx context.Context, p requestParams, params json.RawMessage) (lsp.Answer, error) {
	return either(c, func() (lsp.Answer, error) {
		var res askResult
		raw, err := c.call(ctx, mRequest, p, params, &res, true, !writes(p.Method))
		if err != nil {
			return lsp.Answer{}, err
		}
		return lsp.Answer{Result: raw, Readiness: res.Readiness}, nil
	}, func(m *lsp.Manager) (lsp.Answer, error) {
		switch {
		case p.Native:
			return m.AskNative(ctx, p.Path, p.Method, params)
		case p.Peek:
			return m.Peek(ctx, p.Path, p.Method, params)
		}
		return m.Ask(ctx, p.Path, p.Method, params)
	})
}

// Request is lsp.Manager.Request, through the host.
func (c *Client) Request(ctx context.Context, path, method string, params json.RawMessage) (json.RawMessage, error) {
	a, err := c.Ask(ctx, path, method, params)
	return a.Result, err
}

// Diagnostics is lsp.Manager.Diagnostics, through the host.
func (c *Client) Diagnostics(ctx context.Context, paths []string, opts lsp.DiagnosticsOptions) (*lsp.DiagnosticsReport, error) {
	return either(c, func() (*lsp.DiagnosticsReport, error) {
		var rep lsp.DiagnosticsReport
		if _, err := c.call(ctx, mDiagnostics, diagnosticsParams{Paths: paths, Timeout: opts.Timeout, Settle: opts.Settle}, nil, &rep, true, true); err != nil {
			return nil, err
		}
		return &rep, nil
	}, func(m *lsp.Manager) (*lsp.DiagnosticsReport, error) { return m.Diagnostics(ctx, paths, opts) })
}

// Check is lsp.Manager.Check, through the host: the host's Manager holds
// the server for the check alone, so no other client, of this process or
// another, sees the checked content. A host gone mid-check is asked
// once more (the check writes nothing).
func (c *Client) Check(ctx context.Context, path, text string, opts lsp.DiagnosticsOptions) (lsp.CheckReport, error) {
	return either(c, func() (lsp.CheckReport, error) {
		var rep lsp.CheckReport
		_, err := c.call(ctx, mCheck, checkParams{Path: path, Timeout: opts.Timeout, Settle: opts.Settle}, []byte(text), &rep, true, true)
		return rep, err
	}, func(m *lsp.Manager) (lsp.CheckReport, error) { return m.Check(ctx, path, text, opts) })
}

// CheckEdit is lsp.Manager.CheckEdit, through the host, as Check.
func (c *Client) CheckEdit(ctx context.Context, files map[string]string, opts lsp.DiagnosticsOptions) (lsp.CheckEditReport, error) {
	p := checkParams{Timeout: opts.Timeout, Settle: opts.Settle}
	for _, path := range slices.Sorted(maps.Keys(files)) {
		p.Files = append(p.Files, checkFile{Path: path, Text: files[path]})
	}
	return either(c, func() (lsp.CheckEditReport, error) {
		var rep lsp.CheckEditReport
		_, err := c.call(ctx, mCheck, p, nil, &rep, true, true)
		return rep, err
	}, func(m *lsp.Manager) (lsp.CheckEditReport, error) { return m.CheckEdit(ctx, files, opts) })
}

// quiet makes a call that starts no host: with none running there is no
// server to tell.
func (c *Client) quiet(ctx context.Context, method string, params any) error {
	_, err := c.call(ctx, method, params, nil, nil, false, true)
	if errors.Is(err, errNoHost) {
		return nil
	}
	return err
}

// FileChanged is lsp.Manager.FileChanged, through the host.
func (c *Client) FileChanged(ctx context.Context, paths ...string) error {
	if m := c.local.Load(); m != nil {
		return m.FileChanged(ctx, paths...)
	}
	return c.quiet(ctx, mFileChanged, pathsParams{Paths: paths})
}

// FileSaved is lsp.Manager.FileSaved, through the host.
func (c *Client) FileSaved(ctx context.Context, path string) error {
	if m := c.local.Load(); m != nil {
		return m.FileSaved(ctx, path)
	}
	return c.quiet(ctx, mFileSaved, pathParams{Path: path})
}

// FileRenamed is lsp.Manager.FileRenamed, through the host.
func (c *Client) FileRenamed(ctx context.Context, oldPath, newPath string) error {
	if m := c.local.Load(); m != nil {
		return m.FileRenamed(ctx, oldPath, newPath)
	}
	return c.quiet(ctx, mFileRenamed, renameParams{Old: oldPath, New: newPath})
}

// WillRenameFile is lsp.Manager.WillRenameFile, through the host.
func (c *Client) WillRenameFile(ctx context.Context, oldPath, newPath string) (json.RawMessage, error) {
	return either(c, func() (json.RawMessage, error) {
		raw, err := c.call(ctx, mWillRenameFile, renameParams{Old: oldPath, New: newPath}, nil, nil, true, true)
		return raw, err
	}, func(m *lsp.Manager) (json.RawMessage, error) { return m.WillRenameFile(ctx, oldPath, newPath) })
}

// Prewarm is lsp.Manager.Prewarm, through the host.
func (c *Client) Prewarm(ctx context.Context, path string) error {
	_, err := either(c, func() ([]byte, error) {
		return c.call(ctx, mPrewarm, pathParams{Path: path}, nil, nil, true, true)
	}, func(m *lsp.Manager) ([]byte, error) { return nil, m.Prewarm(ctx, path) })
	return err
}

// Restart is lsp.Manager.Restart, through the host. Restarting by name
// restarts that server for every client of the profile.
func (c *Client) Restart(ctx context.Context, name, path string) error {
	_, err := either(c, func() ([]byte, error) {
		return c.call(ctx, mRestart, restartParams{Name: name, Path: path}, nil, nil, true, true)
	}, func(m *lsp.Manager) ([]byte, error) { return nil, m.Restart(ctx, name, path) })
	return err
}

// Servers is lsp.Manager.Servers for the servers of the client's roots
// (none while no host runs).
func (c *Client) Servers() []lsp.ServerStatus {
	if m := c.local.Load(); m != nil {
		return m.Servers()
	}
	var out []lsp.ServerStatus
	if _, err := c.call(context.Background(), mServers, nil, nil, &out, false, true); err != nil {
		return []lsp.ServerStatus{}
	}
	return out
}

// WatchStatus is lsp.Manager.WatchStatus of the host's Manager.
func (c *Client) WatchStatus() lsp.WatchStatus {
	if m := c.local.Load(); m != nil {
		return m.WatchStatus()
	}
	var ws lsp.WatchStatus
	if _, err := c.call(context.Background(), mWatchStatus, nil, nil, &ws, false, true); err != nil {
		return c.survey.WatchStatus() // "pending" or "off", as before any server
	}
	return ws
}

// Survey is lsp.Manager.Survey, walked in this process.
func (c *Client) Survey(root string, keep int) *lsp.Survey { return c.survey.Survey(root, keep) }

// Status asks the host about itself, starting none; it answers once at
// least calls calls (its own included) are open in the host, or when ctx
// ends.
func (c *Client) Status(ctx context.Context, calls int) (Status, error) {
	var st Status
	_, err := c.call(ctx, mStatus, statusParams{Calls: calls}, nil, &st, false, true)
	return st, err
}

// Subscribe is lsp.Manager.Subscribe: the diagnostics the host's servers
// publish for files under the client's roots, across host restarts. When
// a host runs already, the client joins it now, so what servers other
// processes started publish about its files reaches it before it asks
// anything; otherwise it joins with its first call.
func (c *Client) Subscribe(buf int) (<-chan lsp.DiagnosticsEvent, func()) {
	ch := make(chan lsp.DiagnosticsEvent, max(buf, 1))
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		close(ch)
		return ch, func() {}
	}
	id := c.subID
	c.subID++
	c.subs[id] = ch
	c.mu.Unlock()
	// Bounded: a host that took the connection and never answers must
	// not hold the subscriber (the adapter's Run) for good.
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	c.session(ctx, false)
	cancel()
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if ch, ok := c.subs[id]; ok {
			delete(c.subs, id)
			close(ch)
		}
	}
}

// Close leaves the host (whose servers stay for its other clients) and
// ends the subscriptions. Later calls return lsp.ErrClosed.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return lsp.ErrClosed
	}
	c.closed = true
	conn := c.conn
	c.conn = nil
	for id, ch := range c.subs {
		delete(c.subs, id)
		close(ch)
	}
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	var errs []error
	if m := c.local.Load(); m != nil {
		errs = append(errs, m.Close(ctx))
	}
	return errors.Join(append(errs, c.survey.Close(ctx))...)
}

var _ adapter.LocalServers = (*Client)(nil)

// ErrNoHost: no server host of this build runs for the user.
var ErrNoHost = errors.New("no shared language-server host of this acp-lsp build is running")

// Inspect returns the status of the user's server host of this build
// (cfg.Dir, cfg.Executable and cfg.Identity as NewClient fills them), every server of it
// included, starting none: ErrNoHost when none runs. It joins no profile.
func Inspect(ctx context.Context, cfg Config) (Status, error) {
	var st Status
	err := withHost(ctx, cfg, func(conn *link) error {
		return callMeta(ctx, conn, mStatus, statusParams{}, &st)
	})
	return st, err
}

// StopHost ends the user's server host of this build and its servers, and
// returns what it held; ErrNoHost when none runs. It returns once the
// host has closed the connection (it stopped listening and ends every
// server); a process still using it starts a new host at its next call.
func StopHost(ctx context.Context, cfg Config) (Status, error) {
	var st Status
	err := withHost(ctx, cfg, func(conn *link) error {
		if err := callMeta(ctx, conn, mStatus, statusParams{}, &st); err != nil {
			return err
		}
		if _, err := conn.Call(ctx, 0, mStop, nil, nil); err != nil && !errors.Is(err, errLinkClosed) {
			return err
		}
		select {
		case <-conn.Done():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return st, err
}

// callMeta calls method and decodes the answer's meta into result.
func callMeta(ctx context.Context, conn *link, method string, params, result any) error {
	m, err := conn.Call(ctx, 0, method, params, nil)
	if err != nil {
		return err
	}
	return json.Unmarshal(m.meta, result)
}

// withHost runs f on a connection to the running host of cfg.
func withHost(ctx context.Context, cfg Config, f func(*link) error) error {
	if cfg.Identity == "" {
		exe := cfg.Executable
		if exe == "" {
			var err error
			if exe, err = os.Executable(); err != nil {
				return fmt.Errorf("server host: %w", err)
			}
		}
		id, err := identityOf(exe)
		if err != nil {
			return err
		}
		cfg.Identity = id
	}
	pl, err := placeOf(cfg.Dir, cfg.Identity, false)
	if errors.Is(err, errNoHost) {
		return fmt.Errorf("server host: %w", ErrNoHost)
	}
	if err != nil {
		return fmt.Errorf("server host: %w", err)
	}
	uc, err := dial(ctx, pl.socket())
	if err != nil {
		return fmt.Errorf("server host: %w", ErrNoHost)
	}
	conn := newLink(uc, nil)
	conn.start()
	defer conn.Close()
	if err := f(conn); err != nil {
		var we *wireError
		if errors.As(err, &we) {
			return fmt.Errorf("server host: %w", decodeError(we))
		}
		return fmt.Errorf("server host: %w", err)
	}
	return nil
}
