// Package lsp is acp-lsp's language-server client: it starts the right
// server for a file lazily, keeps documents in sync with the disk, follows
// readiness, retries what LSP says to retry, answers the server's own
// requests, and reports diagnostics with a verdict on their freshness.
//
// Positions crossing this package's API are LSP-native: 0-based line and
// character counted in UTF-16 code units, whatever encoding a server
// negotiated; the package converts using the document text.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Defaults of the Options fields acp-lsp's configuration also sets (with
// DefaultTimeouts, DefaultMaxFileSize and DefaultMaxWatchedDirs). The
// configuration (internal/config) takes its defaults from these, so a zero
// Options (tests, benchmarks, `acp-lsp doctor`, other embedders) behaves as
// acp-lsp does out of the box.
const (
	// DefaultMaxRestarts is Options.MaxRestarts's default
	// (local.max_restarts).
	DefaultMaxRestarts = 5
	// DefaultRestartBackoff is Options.RestartBackoff's default
	// (local.restart_backoff): a server that crashes at once again is
	// not restarted in a tight loop.
	DefaultRestartBackoff = time.Second
	// DefaultRestartBackoffMax is Options.RestartBackoffMax's default
	// (local.restart_backoff_max).
	DefaultRestartBackoffMax = 30 * time.Second
	// DefaultWedgeAfter is Options.WedgeAfter's default
	// (local.wedge_timeouts).
	DefaultWedgeAfter = 3
	// DefaultDiagnosticsSettle is Options.DiagnosticsSettle's default
	// (diagnostics.settle_window): long enough for a server's burst of
	// publishes after a change, short against the diagnostics wait.
	DefaultDiagnosticsSettle = 250 * time.Millisecond
)

// Options configure a Manager. A zero field takes its default; a negative
// one, where the field says so, turns the behaviour off (no restarts, no
// restart delay, no recycling for timeouts, no file size cap, no watching,
// no settle window, no closing of idle documents; in Timeouts no
// diagnostics wait, no idle teardown, no loading wait).
// Zero never means off.
type Options struct {
	// Roots are the workspace roots (one per session), each an absolute
	// path to a folder (AddRoot refuses anything else); a server's root is
	// never above the workspace root that holds the file. More can be
	// added with AddRoot.
	Roots []string
	// Servers is the registry; nil means DefaultServers().
	Servers []ServerConfig
	// Timeouts are the defaults for every server (DefaultTimeouts fills
	// zero fields).
	Timeouts Timeouts
	// MaxOpenDocuments bounds open documents per server process; the
	// least recently used is closed beyond it. Default 200.
	MaxOpenDocuments int
	// DocumentIdle closes a document on its server once no request used
	// it for this long (checked when another document is synced).
	// Default 10 minutes; negative keeps documents open until the LRU
	// bound or the server's idle teardown closes them.
	DocumentIdle time.Duration
	// MaxFileSize is the largest file, in bytes, sent to a server
	// (default DefaultMaxFileSize, 10 MiB; negative: no cap). A request
	// or diagnostics about a larger file fails with a *FileError naming
	// the file, its size and the cap; servers choke on such files (gopls
	// type-checks a 12 MiB literal for seconds, holding its memory) and
	// they are generated data, not code an agent reads through a server.
	MaxFileSize int64
	// MaxRestarts is how many crashes within RestartWindow are restarted
	// before the circuit opens. Defaults DefaultMaxRestarts (5) and 3
	// minutes; a negative MaxRestarts never restarts a crashed server
	// (until the window has passed since its crash).
	MaxRestarts   int
	RestartWindow time.Duration
	// RestartBackoff is the delay before restarting after one recent
	// crash; it doubles per further crash in the window, up to
	// RestartBackoffMax. Defaults DefaultRestartBackoff (1s) and
	// DefaultRestartBackoffMax (30s, or RestartBackoff if that is
	// longer); a negative RestartBackoff restarts at once.
	RestartBackoff    time.Duration
	RestartBackoffMax time.Duration
	// WedgeAfter is the number of consecutive request timeouts after which
	// a server is recycled. Default DefaultWedgeAfter (3); negative never
	// recycles for timeouts (a server not reading its input still is).
	WedgeAfter int
	// DiagnosticsSettle is the quiet time after a publish that makes
	// diagnostics fresh for servers that do not echo versions. Default
	// DefaultDiagnosticsSettle (250ms); negative: a publish after the
	// sync is fresh at once.
	DiagnosticsSettle time.Duration
	// MaxWatchedDirs bounds the folders watched for changes made behind
	// the client's back (the agent's shell, a build, git): files written,
	// created, deleted or moved are told to the servers that registered
	// file watchers before the next request goes out. Default
	// DefaultMaxWatchedDirs; past it, Servers says which folders are not
	// covered. Negative turns watching off (only files a request names
	// are synced from disk).
	MaxWatchedDirs int
	// TellAtRequest holds the changes the file watcher sees until the next
	// request, as with a watcher that has no events to wake on (the scan
	// fallback). By default a file written and closed, moved or deleted is
	// told to the running servers at once: the agent's write reaches
	// gopls while the agent is still on its way to ask about it, so the
	// diagnostics it asks for are computed by then. Tests that script the
	// exact traffic set it.
	TellAtRequest bool
	// MemoryBudget bounds the resident memory, in bytes, of the running
	// servers of Budget together: before a start, while what runs already
	// fills it, the least recently used idle server is stopped. Default
	// DefaultMemoryBudget(); negative: no budget.
	MemoryBudget int64
	// MaxRunning bounds the running servers of Budget together, the same
	// way. 0: no cap.
	MaxRunning int
	// DataDir holds the folders servers get for DataDirVar (jdtls's
	// workspace, ccls's cache): one per server, root and running
	// instance. Default DefaultDataDir().
	DataDir string
	// Budget is the account MemoryBudget and MaxRunning are held against;
	// a server host gives all its Managers one. Nil: the Manager's own.
	Budget *Budget
	// Connect, when set, replaces spawning a process: it returns a
	// connection to a server for cfg at root. The Manager treats it as
	// it treats a process (initialize, restarts, idle teardown,
	// shutdown); tests use it to run in-process servers in fake time.
	Connect func(cfg ServerConfig, root string) (ServerConn, error)
	// Env is the base environment of server processes; nil means
	// os.Environ(). Its PATH is where commands are looked up.
	Env []string
	// Logger receives the package's logs; nil discards them.
	Logger *slog.Logger
}

// Manager routes requests about files to language servers; one per
// acp-lsp process. All methods are safe for concurrent use. Requests about
// different files run in parallel; document syncs to one server process
// are serialised so versions go out in order. Close ends every server
// process and waits for them.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	roots   []string
	servers map[string]*server // by name + "\x00" + root
	routes  map[string]routeEntry
	subs    map[int]chan DiagnosticsEvent
	subID   int
	closed  bool
	// checkSent, when set (tests), runs once the server has answered on
	// a check's edited content, before the disk's content goes back.
	checkSent func()
	// checkWaits, when set (tests), runs when a check must wait for
	// requests in flight on its server; requestSynced when a request has
	// synced its document, before it is sent.
	checkWaits    func()
	requestSynced func(path string)

	watch watchSet

	// now is the clock of the restart policy; tests move it past a
	// restart window instead of waiting. Set before any process starts.
	now func() time.Time
}

// NewManager returns a Manager; it starts no process.
func NewManager(opts Options) (*Manager, error) {
	opts = opts.withDefaults()
	m := &Manager{opts: opts, log: opts.Logger, servers: map[string]*server{}, routes: map[string]routeEntry{}, subs: map[int]chan DiagnosticsEvent{}, now: time.Now}
	for _, r := range opts.Roots {
		if err := m.AddRoot(r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// withDefaults returns opts with every zero field set to its default.
func (opts Options) withDefaults() Options {
	if opts.Servers == nil {
		opts.Servers = DefaultServers()
	}
	opts.Timeouts = opts.Timeouts.withDefaults(DefaultTimeouts)
	switch {
	case opts.MemoryBudget == 0:
		opts.MemoryBudget = DefaultMemoryBudget()
	case opts.MemoryBudget < 0:
		opts.MemoryBudget = 0 // makeRoom: no budget
	}
	if opts.Budget == nil {
		opts.Budget = NewBudget()
	}
	if opts.MaxOpenDocuments <= 0 {
		opts.MaxOpenDocuments = 200
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.DocumentIdle == 0 {
		opts.DocumentIdle = 10 * time.Minute
	}
	switch {
	case opts.MaxRestarts == 0:
		opts.MaxRestarts = DefaultMaxRestarts
	case opts.MaxRestarts < 0:
		opts.MaxRestarts = 0 // the first crash opens the circuit
	}
	if opts.RestartWindow <= 0 {
		opts.RestartWindow = 3 * time.Minute
	}
	switch {
	case opts.RestartBackoff == 0:
		opts.RestartBackoff = DefaultRestartBackoff
	case opts.RestartBackoff < 0:
		opts.RestartBackoff = 0
	}
	if opts.RestartBackoffMax <= 0 {
		opts.RestartBackoffMax = max(DefaultRestartBackoffMax, opts.RestartBackoff)
	}
	switch {
	case opts.WedgeAfter == 0:
		opts.WedgeAfter = DefaultWedgeAfter
	case opts.WedgeAfter < 0:
		opts.WedgeAfter = math.MaxInt
	}
	switch {
	case opts.DiagnosticsSettle == 0:
		opts.DiagnosticsSettle = DefaultDiagnosticsSettle
	case opts.DiagnosticsSettle < 0:
		opts.DiagnosticsSettle = 0 // fresh as soon as published
	}
	if opts.MaxWatchedDirs == 0 {
		opts.MaxWatchedDirs = DefaultMaxWatchedDirs
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return opts
}

// AddRoot adds a workspace root (a session's folder): an absolute path
// that resolves to a folder (edit.RootDir); anything else is refused.
func (m *Manager) AddRoot(root string) error {
	abs, err := edit.RootDir(root)
	if err != nil {
		return fmt.Errorf("add root: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.roots, abs) {
		m.roots = append(m.roots, abs)
		clear(m.routes) // a deeper root changes the ceiling of some paths
	}
	return nil
}

func (m *Manager) env() []string { return m.opts.Env }

// lookPath finds a command on the PATH of the server environment.
func (m *Manager) lookPath(cmd string) (string, error) { return LookPath(cmd, m.opts.Env) }

// resolve returns the absolute path and the server that handles it.
func (m *Manager) resolve(path string) (string, *server, error) {
	m.mu.Lock()
	r, ok := m.routes[path]
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return "", nil, ErrClosed
	}
	if ok {
		return r.abs, r.srv, nil
	}
	abs, s, err := m.route(path)
	if err == nil {
		m.mu.Lock()
		if len(m.routes) > 10000 {
			clear(m.routes)
		}
		m.routes[path] = routeEntry{abs, s}
		m.mu.Unlock()
	}
	return abs, s, err
}

// routeEntry caches a successful route: root markers and installed
// programs are looked up once per path, not per request.
type routeEntry struct {
	abs string
	srv *server
}

func (m *Manager) route(path string) (string, *server, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", nil, ErrClosed
	}
	// A file's ceiling is the deepest root holding its folder: a root is
	// a folder, so one that is the path itself (a root replaced by a file
	// since it was added) is no root of it.
	ceiling := ""
	for _, r := range m.roots {
		if edit.Within(r, filepath.Dir(abs)) && len(r) > len(ceiling) {
			ceiling = r
		}
	}
	if ceiling == "" {
		return "", nil, fmt.Errorf("resolve %s: %w", path, ErrOutsideWorkspace)
	}
	cfg, ok := pickServer(ServersFor(m.opts.Servers, abs), m.installed)
	if !ok {
		return "", nil, fmt.Errorf("resolve %s: %w", path, ErrNoServer)
	}
	if !m.installed(cfg) {
		return "", nil, &MissingServerError{Server: cfg.Name, Command: cfg.Command, InstallHint: cfg.InstallCommand(runtime.GOOS)}
	}
	root := FindRoot(abs, ceiling, cfg.RootMarkers)
	key := cfg.Name + "\x00" + root
	s := m.servers[key]
	if s == nil {
		load, err := cfg.Loading.compile(cfg.Name)
		if err != nil {
			return "", nil, fmt.Errorf("resolve %s: %w", path, err)
		}
		s = &server{mgr: m, cfg: cfg, root: root, ceiling: ceiling, state: StateStopped, log: m.log,
			tm: cfg.Timeouts.withDefaults(m.opts.Timeouts), load: load, quit: make(chan struct{})}
		m.servers[key] = s
		m.opts.Budget.add(s)
	}
	return abs, s, nil
}

// Request sends an LSP request about the file at path to the server that
// handles it, after syncing the file from disk, and returns the raw
// result. params is the full LSP params object (including textDocument);
// positions in params and in the result are UTF-16. It returns an
// *IndexingError instead of an empty result while the server is loading,
// a *MissingServerError when the program is not installed, a *FileError
// for a file over Options.MaxFileSize or not text (nothing is sent), an
// error wrapping fs.ErrNotExist ("no such file") for a file gone from
// disk (closed on the server if it was open), and errors wrapping
// ErrTimeout, ErrServerExited, ErrOutsideWorkspace or ErrNoServer.
func (m *Manager) Request(ctx context.Context, path, method string, params json.RawMessage) (json.RawMessage, error) {
	a, err := m.Ask(ctx, path, method, params)
	return a.Result, err
}

// Answer is a server's answer to a request with the server's readiness
// when the answer arrived: a list given while the server was not Ready
// (references, workspace symbols) may be incomplete.
type Answer struct {
	Result    json.RawMessage
	Readiness Readiness
}

// Ask is Request that also says how ready the server was when it
// answered (see LoadSignals). A request to a server that is still loading
// waits at most Timeouts.Loading for its answer, then returns an
// *IndexingError with the progress seen so far; timeouts while a server
// loads never count toward recycling it (Options.WedgeAfter).
func (m *Manager) Ask(ctx context.Context, path, method string, params json.RawMessage) (Answer, error) {
	abs, s, err := m.resolve(path)
	if err != nil {
		return Answer{}, err
	}
	raw, ready, err := s.request(ctx, abs, method, params, useKeep, false)
	return Answer{Result: raw, Readiness: ready}, err
}

// AskNative is Ask for a caller that counts characters in the position
// encoding the server negotiated (ServerStatus.Encoding, the
// positionEncoding of its capabilities), as ACP's LSP proposal has agents
// do: params and result pass without position conversion. The file at
// path is synced as for Ask.
func (m *Manager) AskNative(ctx context.Context, path, method string, params json.RawMessage) (Answer, error) {
	abs, s, err := m.resolve(path)
	if err != nil {
		return Answer{}, err
	}
	raw, ready, err := s.request(ctx, abs, method, params, useKeep, true)
	return Answer{Result: raw, Readiness: ready}, err
}

// Peek is Ask for a request that reads a file in passing, not one the
// agent works on (the outline that gives a reference its enclosing
// symbol): a file not open yet is asked about as it is on disk, without
// didOpen, which would make the server analyse its package; a server that
// answers only about open documents (an error or an empty answer) is
// asked again with the file opened for the request and closed right
// after, unless a request of the agent's opened it meanwhile. So a long
// answer neither leaves its files open nor has them all analysed.
func (m *Manager) Peek(ctx context.Context, path, method string, params json.RawMessage) (Answer, error) {
	abs, s, err := m.resolve(path)
	if err != nil {
		return Answer{}, err
	}
	raw, ready, err := s.request(ctx, abs, method, params, usePeek, false)
	return Answer{Result: raw, Readiness: ready}, err
}

// WaitReady starts the server of path if needed and waits until it is
// Ready (or ctx ends, with the readiness seen last and ctx's error).
func (m *Manager) WaitReady(ctx context.Context, path string) (Readiness, error) {
	_, s, err := m.resolve(path)
	if err != nil {
		return Readiness{}, err
	}
	p, err := s.ensure(ctx)
	if err != nil {
		return Readiness{Server: s.cfg.Name, State: ReadyStarting}, err
	}
	for {
		r, changed := p.readiness()
		if r.State == Ready {
			return r, nil
		}
		select {
		case <-changed:
		case <-p.done:
			return r, fmt.Errorf("wait for %s: %w", s.cfg.Name, ErrServerExited)
		case <-ctx.Done():
			return r, fmt.Errorf("wait for %s: %w", s.cfg.Name, ctx.Err())
		}
	}
}

// Diagnostics syncs each file and returns its diagnostics with a verdict
// per file and server. Files are handled in parallel; the report keeps the
// order of paths. It returns an error only when the Manager is closed;
// every other problem is a verdict (Failed, Unsupported, Timeout ...).
func (m *Manager) Diagnostics(ctx context.Context, paths []string, opts DiagnosticsOptions) (*DiagnosticsReport, error) {
	rep := &DiagnosticsReport{Files: make([]FileDiagnostics, len(paths))}
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep.Files[i] = m.fileDiagnostics(ctx, path, opts)
		}()
	}
	wg.Wait()
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return rep, ErrClosed
	}
	return rep, nil
}

// unresolved is fd's verdict when no server could be found for its file
// (err from resolve): unsupported when no server serves it, failed
// otherwise, and a missing server's verdict is that server's, not an
// anonymous one.
func unresolved(fd FileDiagnostics, err error) FileDiagnostics {
	fd.Verdict, fd.Detail = Failed, err.Error()
	if errors.Is(err, ErrNoServer) {
		fd.Verdict = Unsupported
	}
	if me := (*MissingServerError)(nil); errors.As(err, &me) {
		fd.Server = me.Server
	}
	return fd
}

func (m *Manager) fileDiagnostics(ctx context.Context, path string, opts DiagnosticsOptions) FileDiagnostics {
	fd := FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]")}
	abs, s, err := m.resolve(path)
	if err != nil {
		return unresolved(fd, err)
	}
	fd.Path, fd.URI, fd.Server = abs, edit.URIFromPath(abs), s.cfg.Name
	s.begin()
	defer s.end()
	settle := m.settleOf(opts)
	wait := s.diagnosticsWait(opts)
	// No wait (a negative timeout) is a context that is over already:
	// every wait below then ends at once with its honest verdict, and a
	// server still to start is started for the calls to come.
	ctx, cancel := context.WithTimeout(ctx, max(wait, 0))
	defer cancel()
	fd = m.syncedDiagnostics(ctx, s, abs, settle, fd)
	switch fd.Verdict {
	case Stale, Timeout, Starting, Indexing:
		if wait < 0 {
			// Say why nothing fresher was waited for.
			fd.Detail += " (answered without waiting, as asked)"
		}
	}
	return fd
}

// syncedDiagnostics runs server s, brings abs up to date in it and
// returns its diagnostics, within ctx. A server that crashes during the
// wait is restarted and waited for once more, within ctx, as a request
// is (server.request).
func (m *Manager) syncedDiagnostics(ctx context.Context, s *server, abs string, settle time.Duration, fd FileDiagnostics) FileDiagnostics {
	got, p := m.syncedDiagnosticsOn(ctx, s, abs, settle, fd)
	if got.Verdict != Failed || p == nil || !p.crashedUnder(ctx) {
		return got
	}
	s.log.Warn("language server crashed while diagnostics were awaited; waiting for its restart", "server", s.cfg.Name, "detail", got.Detail)
	got, _ = m.syncedDiagnosticsOn(ctx, s, abs, settle, fd)
	return got
}

// syncedDiagnosticsOn is one attempt of syncedDiagnostics; it returns the
// process it waited on (nil if none started).
func (m *Manager) syncedDiagnosticsOn(ctx context.Context, s *server, abs string, settle time.Duration, fd FileDiagnostics) (FileDiagnostics, *proc) {
	p, err := s.ensure(ctx)
	if err != nil {
		return startVerdict(fd, err), nil
	}
	m.syncDiskQuiet()
	p.viewMu.RLock()
	defer p.viewMu.RUnlock()
	d, err := p.syncFor(abs, useKeep)
	if err != nil {
		fd.Verdict, fd.Detail = Failed, err.Error()
		return fd, p
	}
	return s.diagnostics(ctx, p, d, settle), p
}

// FileChanged tells running servers that files changed on disk (created,
// changed or deleted), with the changes the file watcher saw since the
// last request: deleted documents are closed, open ones resynced,
// workspace/didChangeWatchedFiles is sent to servers whose file watchers
// match, and every other open document is sent again (new version)
// before its next request, so its diagnostics reflect the change. It
// starts no server. Changes the watcher sees need no call: they are told
// as the watcher reads them (see Options.TellAtRequest), and every request
// tells what is left first.
func (m *Manager) FileChanged(ctx context.Context, paths ...string) error {
	return m.syncDisk(paths...)
}

// FileSaved syncs path and sends didSave to its server if it is running.
func (m *Manager) FileSaved(ctx context.Context, path string) error {
	abs, s, err := m.resolve(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	p := s.cur
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	m.syncDiskQuiet()
	return p.saved(abs)
}

// WillRenameFile asks the running server of oldPath for the edit that
// should accompany moving it to newPath (workspace/willRenameFiles) and
// returns the WorkspaceEdit (UTF-16) or null; it changes nothing.
func (m *Manager) WillRenameFile(ctx context.Context, oldPath, newPath string) (json.RawMessage, error) {
	abs, s, err := m.resolve(oldPath)
	if err != nil {
		return nil, err
	}
	p, err := s.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if !present(p.caps.Workspace.FileOperations.WillRename) {
		return json.RawMessage("null"), nil
	}
	newAbs, _ := filepath.Abs(newPath)
	params, err := renameParams(abs, newAbs)
	if err != nil {
		return nil, err
	}
	raw, _, err := s.request(ctx, abs, "workspace/willRenameFiles", params, useKeep, false)
	return raw, err
}

// FileRenamed tells running servers that oldPath moved to newPath: the old
// document is closed and didRenameFiles (or didChangeWatchedFiles) sent.
func (m *Manager) FileRenamed(ctx context.Context, oldPath, newPath string) error {
	m.syncDiskQuiet()
	oldAbs, _ := filepath.Abs(oldPath)
	newAbs, _ := filepath.Abs(newPath)
	var errs []error
	for _, p := range m.running() {
		if edit.Within(p.srv.ceiling, oldAbs) || edit.Within(p.srv.ceiling, newAbs) {
			errs = append(errs, p.renamed(ctx, oldAbs, newAbs))
		}
	}
	return errors.Join(errs...)
}

func (m *Manager) running() []*proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*proc
	for _, s := range m.servers {
		s.mu.Lock()
		if s.cur != nil && !s.cur.exited() && !s.cur.disconnected() {
			out = append(out, s.cur)
		}
		s.mu.Unlock()
	}
	return out
}

// Prewarm starts the server for path (and opens nothing), so the first
// real request does not pay for start-up.
func (m *Manager) Prewarm(ctx context.Context, path string) error {
	_, s, err := m.resolve(path)
	if err != nil {
		return err
	}
	_, err = s.ensure(ctx)
	return err
}

// Subscribe returns a channel receiving every publishDiagnostics of every
// server, in arrival order per server, and a function that ends the
// subscription. The channel has buffer buf; when it is full, events are
// dropped for that subscriber (the handler never blocks on a slow reader).
// The channel is closed by cancel or Close.
func (m *Manager) Subscribe(buf int) (<-chan DiagnosticsEvent, func()) {
	ch := make(chan DiagnosticsEvent, max(buf, 1))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		close(ch)
		return ch, func() {}
	}
	id := m.subID
	m.subID++
	m.subs[id] = ch
	return ch, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if c, ok := m.subs[id]; ok {
			delete(m.subs, id)
			close(c)
		}
	}
}

func (m *Manager) broadcast(ev DiagnosticsEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// ServerStatus describes one (server, root) pair.
type ServerStatus struct {
	Name     string `json:"name"`
	Root     string `json:"root"`
	State    State  `json:"state"`
	PID      int    `json:"pid,omitempty"`
	RSSBytes int64  `json:"rssBytes,omitempty"`
	// Readiness says whether the running server has loaded its project,
	// with the loading work it reports (see LoadSignals); zero while no
	// process runs.
	Readiness Readiness `json:"readiness,omitzero"`
	// OverBudget is set when the process alone exceeds
	// Options.MemoryBudget: it is reported, never stopped for it.
	OverBudget bool `json:"overBudget,omitempty"`
	// LastUsed is when a request last ended (or the process started).
	LastUsed      time.Time         `json:"lastUsed,omitzero"`
	LastError     string            `json:"lastError,omitempty"`
	Encoding      position.Encoding `json:"encoding,omitempty"`
	Restarts      int               `json:"restarts"`
	OpenDocuments int               `json:"openDocuments"`
	// Capabilities is the server's ServerCapabilities as sent.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Registrations are the dynamic registrations in force.
	Registrations []Registration `json:"registrations,omitempty"`
}

// Servers returns the status of every (server, root) pair used so far,
// sorted by name and root.
func (m *Manager) Servers() []ServerStatus {
	m.mu.Lock()
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.mu.Unlock()
	out := make([]ServerStatus, 0, len(list))
	pids := map[*server]int{}
	for _, s := range list {
		s.mu.Lock()
		st := ServerStatus{Name: s.cfg.Name, Root: s.root, State: s.state, Restarts: s.restarts, LastUsed: s.lastUsed}
		if s.lastErr != nil {
			st.LastError = s.lastErr.Error()
		}
		p := s.cur
		s.mu.Unlock()
		if p != nil && st.State == StateRunning && (p.exited() || p.disconnected()) {
			// Its connection is gone (it crashed, or closed its output and
			// kept running) and no request has replaced it yet (ensure
			// does): it serves nobody, whatever its process does.
			st.State = StateCrashed
			st.LastError = fmt.Sprintf("server %s closed its connection", s.cfg.Name)
			if lost := p.lostErr(); lost != nil {
				st.LastError = lost.Error()
			}
		}
		if p != nil {
			st.PID, st.Encoding, st.Capabilities = p.pid, p.enc, p.capsRaw
			pids[s] = p.pid
			st.Readiness, _ = p.readiness()
			p.mu.Lock()
			st.OpenDocuments = len(p.docs)
			for _, r := range p.dynRegs {
				st.Registrations = append(st.Registrations, r)
			}
			p.mu.Unlock()
			sort.Slice(st.Registrations, func(i, j int) bool { return st.Registrations[i].ID < st.Registrations[j].ID })
		}
		out = append(out, st)
	}
	// One read for all (one ps run on macOS); out is still in list's order.
	rss := m.opts.Budget.rss(pids)
	for i, s := range list {
		if _, ok := pids[s]; ok {
			out[i].RSSBytes = rss[s]
			out[i].OverBudget = overBudget(out[i].RSSBytes, m.opts.MemoryBudget)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Root < out[j].Root
	})
	return out
}

// Close shuts every server down (shutdown, exit, SIGTERM, SIGKILL of the
// process group) and returns when no process and no goroutine of the
// Manager is left. Later calls return ErrClosed.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.closed = true
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	for id, ch := range m.subs {
		delete(m.subs, id)
		close(ch)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close(ctx)
			m.opts.Budget.remove(s)
		}()
	}
	wg.Wait()
	m.closeWatch()
	return nil
}

// settleOf is the settle window of a diagnostics call: opts.Settle, the
// manager's DiagnosticsSettle for zero, none for a negative one.
func (m *Manager) settleOf(opts DiagnosticsOptions) time.Duration {
	switch {
	case opts.Settle == 0:
		return m.opts.DiagnosticsSettle
	case opts.Settle < 0:
		return 0
	}
	return opts.Settle
}
