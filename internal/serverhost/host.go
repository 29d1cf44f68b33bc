package serverhost

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// DefaultIdleGrace is how long a host stays after its last client left,
// so that a session started right after another finds its servers warm.
const DefaultIdleGrace = time.Minute

// HostConfig configures Serve.
type HostConfig struct {
	// Listener is the host's socket, bound by the client that started it
	// (on Windows the host's named pipe, listened on by the host itself).
	Listener net.Listener
	// Socket is the listener's path; the host removes it when it ends
	// (under the lock, so a client starting a new host never loses its
	// socket to the old one).
	Socket string
	// Identity is the build identity clients must have (Identity()).
	Identity string
	// Idle is how long the host stays after its last client left
	// (DefaultIdleGrace when zero; negative ends it at once).
	Idle time.Duration
	// Logger receives the host's logs; nil discards them.
	Logger *slog.Logger
	// OnLeave, when set, is called with a client's pid once its
	// connection ended and everything the host held for it (calls,
	// diagnostics stream, its share of a profile) was released.
	OnLeave func(pid int)
}

// host is one running server host: one lsp.Manager per server profile
// (one server's configuration and the options and environment it runs
// with), shared by every client whose registry holds that server so
// configured.
type host struct {
	cfg  HostConfig
	sock os.FileInfo // the socket file as bound, so retire removes no other
	log  *slog.Logger
	uid  int
	quit chan struct{} // closed when the idle grace ran out

	// budget is the account of every Manager's servers: the memory
	// budget and the cap on running servers hold for the host as a whole.
	budget *lsp.Budget

	mu       sync.Mutex
	profiles map[string]*shared
	clients  map[*hostClient]bool
	idle     *time.Timer
	wg       sync.WaitGroup
	// changed is closed and replaced when a call starts or ends, so a
	// status that waits for calls wakes on the change, not on a timer.
	changed chan struct{}
}

// shared is one server profile's Manager and how many clients use it.
type shared struct {
	mgr   *lsp.Manager
	prof  profile
	users int
}

// world is a client's servers in the host: for each server of its
// registry the Manager of that server's profile (shared with every client
// configuring the server alike), and one with no server, which answers
// for files no server handles. A path goes to the Manager of the server
// the client's registry picks for it, as one Manager holding the whole
// registry would pick.
type world struct {
	prof   profile
	base   *shared
	byName map[string]*shared
	all    []*shared // base first, then in registry order

	mu     sync.Mutex
	routes map[string]*shared // paths routed to an installed server
}

// route returns the Manager of the server the client's registry picks
// for path: the first installed of those handling it (by priority), else
// the first (whose Manager says it is missing); the base when none does.
func (w *world) route(path string) *shared {
	w.mu.Lock()
	sh, ok := w.routes[path]
	w.mu.Unlock()
	if ok {
		return sh
	}
	cands := lsp.ServersFor(w.prof.Servers, path)
	for _, c := range cands {
		if _, err := lsp.LookPath(c.Command, w.prof.Env); err == nil {
			sh := w.byName[c.Name]
			w.mu.Lock()
			if len(w.routes) > 10000 {
				clear(w.routes)
			}
			w.routes[path] = sh
			w.mu.Unlock()
			return sh
		}
	}
	if len(cands) > 0 {
		return w.byName[cands[0].Name]
	}
	return w.base
}

// Serve runs a server host on cfg.Listener until ctx ends or, once no
// client is connected, the idle grace runs out; then it closes every
// Manager (ending their servers and the servers' trees) and returns. A
// connection from another user is refused (peer credentials).
func Serve(ctx context.Context, cfg HostConfig) error {
	if cfg.Idle == 0 {
		cfg.Idle = DefaultIdleGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h := &host{cfg: cfg, log: cfg.Logger, uid: os.Getuid(), quit: make(chan struct{}), budget: lsp.NewBudget(),
		profiles: map[string]*shared{}, clients: map[*hostClient]bool{}, changed: make(chan struct{})}
	if cfg.Socket != "" {
		h.sock = socketFile(cfg.Socket)
	}
	h.armIdle(true)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ctx.Done():
		case <-h.quit:
		}
		h.retire()
	}()
	for {
		c, err := cfg.Listener.Accept()
		if err != nil {
			break
		}
		if err := h.admit(c); err != nil {
			h.log.Warn("connection refused", "err", err)
			c.Close()
			continue
		}
		h.open(ctx, c)
	}
	cancel()
	h.closeClients()
	h.wg.Wait()
	closeCtx, done := context.WithTimeout(context.Background(), 15*time.Second)
	defer done()
	var errs []error
	for _, sh := range h.profiles {
		if err := sh.mgr.Close(closeCtx); err != nil && !errors.Is(err, lsp.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkUID refuses a peer whose uid is not the host's.
func checkUID(peer, own int) error {
	if peer != own {
		return fmt.Errorf("server host: peer uid %d is not the host's uid %d", peer, own)
	}
	return nil
}

// retire stops accepting: the socket goes first, under the start lock,
// so a client either reaches this host before it stops listening or
// starts a new one. The connections close under the lock too: a named
// pipe's name lives while any of its instances is open, and a new host
// could not take it.
func (h *host) retire() {
	if h.cfg.Socket != "" {
		if unlock, err := lockFile(lockOf(h.cfg.Socket)); err == nil {
			if fi, err := os.Stat(h.cfg.Socket); err == nil && h.sock != nil && os.SameFile(fi, h.sock) {
				os.Remove(h.cfg.Socket)
			}
			h.cfg.Listener.Close()
			h.closeClients()
			unlock()
			return
		}
	}
	h.cfg.Listener.Close()
}

// closeClients closes every client's connection.
func (h *host) closeClients() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for hc := range h.clients {
		hc.conn.Close()
	}
}

// armIdle starts the idle grace when no client is connected. A host
// just started waits at least DefaultIdleGrace for its first client (the
// one that started it is on its way), whatever its grace after the last.
func (h *host) armIdle(first bool) {
	d := max(h.cfg.Idle, 0)
	if first && d == 0 {
		d = DefaultIdleGrace
	}
	h.idle = time.AfterFunc(d, h.idleOut)
}

func (h *host) idleOut() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) == 0 {
		h.stopLocked()
	}
}

// stop ends the host as its idle grace does: it stops listening, closes
// every connection and ends every server.
func (h *host) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopLocked()
}

func (h *host) stopLocked() {
	select {
	case <-h.quit:
	default:
		close(h.quit)
	}
}

// hostClient is one client's connection: its roots bound what it may ask
// about and which diagnostics it is sent.
type hostClient struct {
	h    *host
	conn *link
	ctx  context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	roots    []string
	insides  map[string]bool // paths found inside roots
	w        *world
	unsubs   []func()
	inflight map[uint64]context.CancelFunc
	calls    sync.WaitGroup // the calls being answered
	// work hands a call to an idle worker; workers counts the workers,
	// idle those waiting on work (at most maxIdleWorkers).
	work    chan func()
	workers sync.WaitGroup
	idle    atomic.Int32
	// left is set (under mu) as the client leaves: no call starts after
	// it, so calls.Add never races leave's calls.Wait.
	left bool
	pid  int
	// inspects is set for a connection that asked for the status before
	// any hello: Inspect, StopHost; it is not counted as a client.
	inspects bool
}

func (h *host) open(ctx context.Context, c net.Conn) {
	cctx, stop := context.WithCancel(ctx)
	hc := &hostClient{h: h, ctx: cctx, stop: stop, inflight: map[uint64]context.CancelFunc{}, insides: map[string]bool{}, work: make(chan func())}
	conn := newLink(c, hc.handle)
	hc.conn = conn
	h.mu.Lock()
	h.clients[hc] = true
	h.idle.Stop()
	h.mu.Unlock()
	conn.start()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		<-conn.Done()
		hc.leave()
	}()
}

// leave forgets a client that went away: its calls are cancelled, its
// diagnostics stream ends; the servers stay for the others (and their
// own idle teardown).
func (hc *hostClient) leave() {
	hc.stop()
	hc.mu.Lock()
	hc.left = true
	hc.mu.Unlock()
	hc.calls.Wait()
	hc.workers.Wait()
	hc.mu.Lock()
	unsubs, w := hc.unsubs, hc.w
	hc.unsubs, hc.w = nil, nil
	hc.mu.Unlock()
	for _, unsub := range unsubs {
		unsub()
	}
	h := hc.h
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, hc)
	if w != nil {
		for _, sh := range w.all {
			sh.users--
		}
	}
	if len(h.clients) == 0 {
		h.armIdle(false)
	}
	h.log.Info("client left", "pid", hc.pid, "clients", len(h.clients))
	if h.cfg.OnLeave != nil {
		h.cfg.OnLeave(hc.pid)
	}
}

// handle takes what the client sent. Notifications (addRoot, cancel) are
// handled in the order read, so a root added before a request is in
// force for it; calls run on workers (worker), off the reading goroutine.
func (hc *hostClient) handle(req message) {
	if req.kind == kindNotify {
		switch req.method {
		case mAddRoot:
			var p pathParams
			if unmarshal(req.meta, &p) == nil {
				hc.addRoots(p.Path)
			}
		case mCancel:
			var p cancelParams
			if unmarshal(req.meta, &p) == nil {
				hc.mu.Lock()
				if cancel := hc.inflight[p.ID]; cancel != nil {
					cancel()
				}
				hc.mu.Unlock()
			}
		}
		return
	}
	ctx, cancel := context.WithCancel(hc.ctx)
	hc.mu.Lock()
	if hc.left {
		// Read after the connection ended: nobody is there to answer.
		hc.mu.Unlock()
		cancel()
		return
	}
	hc.inflight[req.id] = cancel
	hc.calls.Add(1)
	hc.mu.Unlock()
	hc.h.change()
	job := func() {
		defer hc.calls.Done()
		defer func() {
			hc.mu.Lock()
			delete(hc.inflight, req.id)
			hc.mu.Unlock()
			cancel()
			hc.h.change()
		}()
		res, raw, err := hc.serve(ctx, req)
		if err != nil {
			hc.conn.ReplyError(req.id, encodeError(err))
			return
		}
		hc.conn.Reply(req.id, res, raw)
	}
	select {
	case hc.work <- job:
	default:
		hc.workers.Add(1)
		go hc.worker(job)
	}
}

// maxIdleWorkers bounds the workers a client keeps waiting for calls.
const maxIdleWorkers = 4

// worker answers calls, job first, then those handed to it while it
// waits, until the client leaves or enough others wait. Calls run on
// kept goroutines because a fresh one grows its stack anew through the
// Manager's JSON encoding on every call (a tenth of the host's CPU per
// warm call, BenchmarkWarmHoverHost/host-here).
func (hc *hostClient) worker(job func()) {
	defer hc.workers.Done()
	for {
		job()
		if hc.idle.Add(1) > maxIdleWorkers {
			hc.idle.Add(-1)
			return
		}
		select {
		case job = <-hc.work:
			hc.idle.Add(-1)
		case <-hc.ctx.Done():
			hc.idle.Add(-1)
			return
		}
	}
}

func unmarshal(meta []byte, v any) error {
	if meta == nil {
		return errors.New("missing params")
	}
	return json.Unmarshal(meta, v)
}

// errNoHello: a call before hello.
var errNoHello = errors.New("server host: hello first")

func (hc *hostClient) world() (*world, error) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if hc.w == nil {
		return nil, errNoHello
	}
	return hc.w, nil
}

// serve answers a call: the answer's meta and raw bytes.
func (hc *hostClient) serve(ctx context.Context, req message) (any, []byte, error) {
	switch req.method {
	case mRequest, mWillRenameFile:
		w, err := hc.world()
		if err != nil {
			return nil, nil, err
		}
		if req.method == mWillRenameFile {
			var p renameParams
			if err := unmarshal(req.meta, &p); err != nil {
				return nil, nil, err
			}
			if err := hc.inside(p.Old); err != nil {
				return nil, nil, err
			}
			raw, err := w.route(p.Old).mgr.WillRenameFile(ctx, p.Old, p.New)
			return nil, raw, err
		}
		var p requestParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, nil, err
		}
		if err := hc.inside(p.Path); err != nil {
			return nil, nil, err
		}
		mgr := w.route(p.Path).mgr
		ask := mgr.Ask
		switch {
		case p.Native:
			ask = mgr.AskNative
		case p.Peek:
			ask = mgr.Peek
		}
		a, err := ask(ctx, p.Path, p.Method, req.raw)
		if err != nil {
			return nil, nil, err
		}
		return askResult{Readiness: a.Readiness}, a.Result, nil
	}
	res, err := hc.serveMeta(ctx, req)
	return res, nil, err
}

// serveMeta answers the calls whose answer is all meta.
func (hc *hostClient) serveMeta(ctx context.Context, req message) (any, error) {
	if req.method == mHello {
		var p helloParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		return hc.hello(p)
	}
	if req.method == mStatus {
		hc.mu.Lock()
		if hc.w == nil {
			hc.inspects = true
		}
		hc.mu.Unlock()
		var p statusParams
		if req.meta != nil {
			if err := unmarshal(req.meta, &p); err != nil {
				return nil, err
			}
		}
		return hc.h.status(ctx, p.Calls)
	}
	if req.method == mStop {
		hc.h.log.Info("stop asked", "by", hc.pid)
		hc.h.stop()
		return nil, nil
	}
	w, err := hc.world()
	if err != nil {
		return nil, err
	}
	switch req.method {
	case mCheck:
		var p checkParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		opts := lsp.DiagnosticsOptions{Timeout: p.Timeout, Settle: p.Settle}
		if len(p.Files) > 0 {
			return hc.checkEdit(ctx, w, p.Files, opts)
		}
		if err := hc.inside(p.Path); err != nil {
			return outsideCheck(p.Path, err), nil
		}
		return w.route(p.Path).mgr.Check(ctx, p.Path, string(req.raw), opts)
	case mDiagnostics:
		var p diagnosticsParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		return hc.diagnostics(ctx, w, p)
	case mFileChanged:
		var p pathsParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		paths := slices.DeleteFunc(p.Paths, func(path string) bool { return hc.inside(path) != nil })
		var errs []error
		for _, sh := range w.all {
			errs = append(errs, sh.mgr.FileChanged(ctx, paths...))
		}
		return nil, errors.Join(errs...)
	case mFileSaved, mPrewarm:
		var p pathParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		if err := hc.inside(p.Path); err != nil {
			return nil, err
		}
		m := w.route(p.Path).mgr
		if req.method == mPrewarm {
			return nil, m.Prewarm(ctx, p.Path)
		}
		return nil, m.FileSaved(ctx, p.Path)
	case mFileRenamed:
		var p renameParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		if err := hc.inside(p.Old); err != nil {
			return nil, err
		}
		from, to := w.route(p.Old), w.route(p.New)
		err := from.mgr.FileRenamed(ctx, p.Old, p.New)
		if to != from {
			// Another server handles the new name: it learns of the file.
			err = errors.Join(err, to.mgr.FileChanged(ctx, p.New))
		}
		return nil, err
	case mRestart:
		var p restartParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		if p.Path != "" {
			if err := hc.inside(p.Path); err != nil {
				return nil, err
			}
		}
		sh := w.base
		if p.Path != "" {
			sh = w.route(p.Path)
		} else if n, ok := w.byName[p.Name]; ok {
			sh = n
		}
		return nil, sh.mgr.Restart(ctx, p.Name, p.Path)
	case mServers:
		return hc.servers(w), nil
	case mWatchStatus:
		// The watch starts with a Manager's first server: the status of
		// one that watches, else the base's (pending or off).
		ws := w.base.mgr.WatchStatus()
		for _, sh := range w.all[1:] {
			if st := sh.mgr.WatchStatus(); st.Mode != "pending" {
				return st, nil
			}
		}
		return ws, nil
	}
	return nil, errors.New("server host: no method " + req.method)
}

// hello binds the client to its profile's Manager (made on first use)
// and subscribes it to the diagnostics of files under its roots.
func (hc *hostClient) hello(p helloParams) (any, error) {
	if p.Identity != hc.h.cfg.Identity {
		return nil, fmt.Errorf("server host: client build %s is not the host's %s", p.Identity, hc.h.cfg.Identity)
	}
	h := hc.h
	w := &world{prof: p.Profile, byName: map[string]*shared{}, routes: map[string]*shared{}}
	h.mu.Lock()
	for _, sp := range p.Profile.perServer() {
		sh, err := h.sharedLocked(sp)
		if err != nil {
			for _, got := range w.all {
				got.users--
			}
			h.mu.Unlock()
			return nil, err
		}
		sh.users++
		w.all = append(w.all, sh)
		if len(sp.Servers) == 0 {
			w.base = sh
		} else {
			w.byName[sp.Servers[0].Name] = sh
		}
	}
	h.mu.Unlock()
	var unsubs []func()
	var streams []<-chan lsp.DiagnosticsEvent
	for _, sh := range w.all {
		events, unsub := sh.mgr.Subscribe(256)
		unsubs, streams = append(unsubs, unsub), append(streams, events)
	}
	hc.mu.Lock()
	if hc.w != nil {
		hc.mu.Unlock()
		for _, unsub := range unsubs {
			unsub()
		}
		h.mu.Lock()
		for _, sh := range w.all {
			sh.users--
		}
		h.mu.Unlock()
		return nil, errors.New("server host: hello twice")
	}
	hc.w, hc.unsubs, hc.pid = w, unsubs, p.PID
	hc.mu.Unlock()
	hc.addRoots(p.Roots...)
	for _, events := range streams {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			hc.forward(events)
		}()
	}
	h.log.Info("client joined", "pid", p.PID, "servers", len(w.all)-1)
	return helloResult{PID: os.Getpid()}, nil
}

// sharedLocked returns the Manager of server profile sp, made on first
// use (h.mu held).
func (h *host) sharedLocked(sp profile) (*shared, error) {
	b, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	key := hex.EncodeToString(sum[:])
	if sh := h.profiles[key]; sh != nil {
		return sh, nil
	}
	opts := sp.options()
	name := "none"
	if len(sp.Servers) > 0 {
		name = sp.Servers[0].Name
	}
	opts.Logger = h.log.With("profile", name+"/"+key[:8])
	opts.Budget = h.budget
	m, err := lsp.NewManager(opts)
	if err != nil {
		return nil, fmt.Errorf("server host: %w", err)
	}
	sh := &shared{mgr: m, prof: sp}
	h.profiles[key] = sh
	return sh, nil
}

// forward sends the client the diagnostics of files under its roots.
func (hc *hostClient) forward(events <-chan lsp.DiagnosticsEvent) {
	for ev := range events {
		if hc.inside(ev.Path) != nil {
			continue
		}
		if err := hc.conn.Notify(nDiagnostics, ev, nil); err != nil {
			return
		}
	}
}

func (hc *hostClient) addRoots(dirs ...string) {
	hc.mu.Lock()
	w := hc.w
	hc.mu.Unlock()
	for _, dir := range dirs {
		abs, err := edit.RootDir(dir)
		if err != nil {
			continue // the client checked it; it went away since
		}
		hc.mu.Lock()
		if !slices.Contains(hc.roots, abs) {
			hc.roots = append(hc.roots, abs)
		}
		hc.mu.Unlock()
		if w != nil {
			for _, sh := range w.all {
				sh.mgr.AddRoot(abs)
			}
		}
	}
}

// inside refuses a path outside the client's roots, as the Manager
// refuses one outside all roots: the Manager holds the roots of every
// client of the profile, a client may ask only about its own.
// outsideCheck is the check of a file outside the client's roots, as the
// Manager answers one.
func outsideCheck(path string, err error) lsp.CheckReport {
	fd := lsp.FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]"), Verdict: lsp.Failed, Detail: err.Error()}
	return lsp.CheckReport{Before: fd, After: fd, Added: json.RawMessage("[]"), Removed: json.RawMessage("[]")}
}

// checkEdit answers a check of several files: each Manager their servers
// run in checks its files (one after another), the edited files' reports
// first, in the order asked, then the other files'.
func (hc *hostClient) checkEdit(ctx context.Context, w *world, files []checkFile, opts lsp.DiagnosticsOptions) (lsp.CheckEditReport, error) {
	edited := make([]lsp.CheckReport, len(files))
	byMgr := map[*lsp.Manager]map[string]int{}
	var order []*lsp.Manager
	for i, f := range files {
		if err := hc.inside(f.Path); err != nil {
			edited[i] = outsideCheck(f.Path, err)
			continue
		}
		m := w.route(f.Path).mgr
		if byMgr[m] == nil {
			byMgr[m] = map[string]int{}
			order = append(order, m)
		}
		byMgr[m][f.Path] = i
	}
	var others []lsp.CheckReport
	for _, m := range order {
		texts := map[string]string{}
		for path, i := range byMgr[m] {
			texts[path] = files[i].Text
		}
		rep, err := m.CheckEdit(ctx, texts, opts)
		if err != nil {
			return lsp.CheckEditReport{}, err
		}
		// The Manager answers its edited files in the order of their
		// paths, then the others.
		paths := slices.Sorted(maps.Keys(texts))
		for j, r := range rep.Files {
			if j < len(paths) {
				edited[byMgr[m][paths[j]]] = r
				continue
			}
			others = append(others, r)
		}
	}
	return lsp.CheckEditReport{Files: append(edited, others...)}, nil
}

func (hc *hostClient) inside(path string) error {
	hc.mu.Lock()
	ok := hc.insides[path]
	hc.mu.Unlock()
	if ok {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", path, err)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	hc.mu.Lock()
	defer hc.mu.Unlock()
	for _, r := range hc.roots {
		if edit.Within(r, filepath.Dir(abs)) {
			// Roots are never removed: a path inside stays inside (as
			// the Manager keeps a path's route).
			if len(hc.insides) > 10000 {
				clear(hc.insides)
			}
			hc.insides[path] = true
			return nil
		}
	}
	return fmt.Errorf("resolve %s: %w", path, lsp.ErrOutsideWorkspace)
}

// diagnostics answers for the files inside the client's roots from the
// Managers of their servers and refuses the others, in the order asked.
func (hc *hostClient) diagnostics(ctx context.Context, w *world, p diagnosticsParams) (*lsp.DiagnosticsReport, error) {
	rep := &lsp.DiagnosticsReport{Files: make([]lsp.FileDiagnostics, len(p.Paths))}
	type batch struct {
		paths []string
		at    []int
	}
	var order []*shared
	batches := map[*shared]*batch{}
	for i, path := range p.Paths {
		if err := hc.inside(path); err != nil {
			rep.Files[i] = lsp.FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]"), Verdict: lsp.Failed, Detail: err.Error()}
			continue
		}
		sh := w.route(path)
		b := batches[sh]
		if b == nil {
			b = &batch{}
			batches[sh] = b
			order = append(order, sh)
		}
		b.paths, b.at = append(b.paths, path), append(b.at, i)
	}
	// The servers' waits run side by side, as one Manager's would.
	type result struct {
		b   *batch
		got *lsp.DiagnosticsReport
		err error
	}
	results := make(chan result, len(order))
	for _, sh := range order {
		go func() {
			got, err := sh.mgr.Diagnostics(ctx, batches[sh].paths, lsp.DiagnosticsOptions{Timeout: p.Timeout, Settle: p.Settle})
			results <- result{batches[sh], got, err}
		}()
	}
	var errs []error
	failed := false
	for range order {
		r := <-results
		errs = append(errs, r.err)
		if r.got == nil {
			failed = true
			continue
		}
		for j, f := range r.got.Files {
			rep.Files[r.b.at[j]] = f
		}
	}
	if failed {
		return nil, errors.Join(errs...)
	}
	return rep, errors.Join(errs...)
}

// servers lists the servers of the client's world: those whose root lies
// under one of its roots or holds one.
func (hc *hostClient) servers(w *world) []lsp.ServerStatus {
	hc.mu.Lock()
	roots := slices.Clone(hc.roots)
	hc.mu.Unlock()
	out := []lsp.ServerStatus{}
	for _, sh := range w.all {
		for _, st := range sh.mgr.Servers() {
			if slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, st.Root) || edit.Within(st.Root, r) }) {
				out = append(out, st)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b lsp.ServerStatus) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Root, b.Root))
	})
	return out
}

// change wakes the status calls waiting for a number of calls.
func (h *host) change() {
	h.mu.Lock()
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

// status says what the host holds, once at least calls calls are open
// (this one included) or ctx ends.
func (h *host) status(ctx context.Context, calls int) (Status, error) {
	for {
		h.mu.Lock()
		st := Status{PID: os.Getpid(), Profiles: len(h.profiles)}
		for hc := range h.clients {
			hc.mu.Lock()
			st.Calls += len(hc.inflight)
			// A connection that asked for the status before any hello
			// (Inspect) is no client.
			if !hc.inspects {
				st.Clients++
			}
			hc.mu.Unlock()
		}
		changed := h.changed
		h.mu.Unlock()
		if st.Calls >= calls {
			st.Servers = h.servers()
			return st, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// servers lists every server of every profile with the clients using it.
func (h *host) servers() []HostServer {
	type user struct {
		w     *world
		pid   int
		roots []string
	}
	h.mu.Lock()
	profiles := slices.Collect(maps.Values(h.profiles))
	var users []user
	for hc := range h.clients {
		hc.mu.Lock()
		if hc.w != nil {
			users = append(users, user{hc.w, hc.pid, slices.Clone(hc.roots)})
		}
		hc.mu.Unlock()
	}
	h.mu.Unlock()
	out := []HostServer{}
	for _, sh := range profiles {
		for _, st := range sh.mgr.Servers() {
			hs := HostServer{ServerStatus: st, Clients: []int{}}
			// The status lines need none of the protocol detail.
			hs.Capabilities, hs.Registrations = nil, nil
			if i := slices.IndexFunc(sh.prof.Servers, func(c lsp.ServerConfig) bool { return c.Name == st.Name }); i >= 0 {
				hs.Command = append([]string{sh.prof.Servers[i].Command}, sh.prof.Servers[i].Args...)
			}
			for _, u := range users {
				if slices.Contains(u.w.all, sh) && slices.ContainsFunc(u.roots, func(r string) bool { return edit.Within(r, st.Root) || edit.Within(st.Root, r) }) {
					hs.Clients = append(hs.Clients, u.pid)
				}
			}
			slices.Sort(hs.Clients)
			out = append(out, hs)
		}
	}
	slices.SortFunc(out, func(a, b HostServer) int {
		return cmp.Or(strings.Compare(a.Root, b.Root), strings.Compare(a.Name, b.Name), a.PID-b.PID)
	})
	return out
}
