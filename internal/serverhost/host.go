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
	"time"

	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// DefaultIdleGrace is how long a host stays after its last client left,
// so that a session started right after another finds its servers warm.
const DefaultIdleGrace = time.Minute

// HostConfig configures Serve.
type HostConfig struct {
	// Listener is the host's socket, bound by the client that started it.
	Listener *net.UnixListener
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

// host is one running server host: one lsp.Manager per profile, shared by
// every client with that profile.
type host struct {
	cfg  HostConfig
	sock os.FileInfo // the socket file as bound, so retire removes no other
	log  *slog.Logger
	uid  int
	quit chan struct{} // closed when the idle grace ran out

	// budget is the account of every profile's servers: the memory
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

// shared is one profile's Manager and how many clients use it.
type shared struct {
	mgr   *lsp.Manager
	prof  profile
	users int
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
		h.sock, _ = os.Stat(cfg.Socket)
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
		c, err := cfg.Listener.AcceptUnix()
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
	h.mu.Lock()
	for hc := range h.clients {
		hc.conn.Close()
	}
	h.mu.Unlock()
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

// admit refuses a peer of another user.
func (h *host) admit(c *net.UnixConn) error {
	uid, err := peerUID(c)
	if err != nil {
		return err
	}
	return checkUID(uid, h.uid)
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
// starts a new one.
func (h *host) retire() {
	if h.cfg.Socket != "" {
		if unlock, err := lockFile(lockOf(h.cfg.Socket)); err == nil {
			if fi, err := os.Stat(h.cfg.Socket); err == nil && h.sock != nil && os.SameFile(fi, h.sock) {
				os.Remove(h.cfg.Socket)
			}
			h.cfg.Listener.Close()
			unlock()
			return
		}
	}
	h.cfg.Listener.Close()
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
	sh       *shared
	key      string
	unsub    func()
	inflight map[uint64]context.CancelFunc
	calls    sync.WaitGroup // the goroutines answering its calls
	// left is set (under mu) as the client leaves: no call starts after
	// it, so calls.Add never races leave's calls.Wait.
	left bool
	pid  int
	// inspects is set for a connection that asked for the status before
	// any hello: Inspect, StopHost; it is not counted as a client.
	inspects bool
}

func (h *host) open(ctx context.Context, c *net.UnixConn) {
	cctx, stop := context.WithCancel(ctx)
	hc := &hostClient{h: h, ctx: cctx, stop: stop, inflight: map[uint64]context.CancelFunc{}}
	conn := newLink(c, hc.handle)
	hc.conn = conn
	h.mu.Lock()
	h.clients[hc] = true
	h.idle.Stop()
	h.mu.Unlock()
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
	hc.mu.Lock()
	unsub, sh := hc.unsub, hc.sh
	hc.unsub, hc.sh = nil, nil
	hc.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	h := hc.h
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, hc)
	if sh != nil {
		sh.users--
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
// force for it; calls run on goroutines of their own.
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
	go func() {
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
	}()
}

func unmarshal(meta []byte, v any) error {
	if meta == nil {
		return errors.New("missing params")
	}
	return json.Unmarshal(meta, v)
}

// errNoHello: a call before hello.
var errNoHello = errors.New("server host: hello first")

func (hc *hostClient) manager() (*lsp.Manager, error) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if hc.sh == nil {
		return nil, errNoHello
	}
	return hc.sh.mgr, nil
}

// serve answers a call: the answer's meta and raw bytes.
func (hc *hostClient) serve(ctx context.Context, req message) (any, []byte, error) {
	switch req.method {
	case mRequest, mWillRenameFile:
		m, err := hc.manager()
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
			raw, err := m.WillRenameFile(ctx, p.Old, p.New)
			return nil, raw, err
		}
		var p requestParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, nil, err
		}
		if err := hc.inside(p.Path); err != nil {
			return nil, nil, err
		}
		ask := m.Ask
		if p.Native {
			ask = m.AskNative
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
		if hc.sh == nil {
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
	m, err := hc.manager()
	if err != nil {
		return nil, err
	}
	switch req.method {
	case mCheck:
		var p checkParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		if err := hc.inside(p.Path); err != nil {
			// As the Manager answers a file outside its roots.
			fd := lsp.FileDiagnostics{Path: p.Path, Diagnostics: json.RawMessage("[]"), Verdict: lsp.Failed, Detail: err.Error()}
			return lsp.CheckReport{Before: fd, After: fd, Added: json.RawMessage("[]"), Removed: json.RawMessage("[]")}, nil
		}
		return m.Check(ctx, p.Path, string(req.raw), lsp.DiagnosticsOptions{Timeout: p.Timeout, Settle: p.Settle})
	case mDiagnostics:
		var p diagnosticsParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		return hc.diagnostics(ctx, m, p)
	case mFileChanged:
		var p pathsParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		return nil, m.FileChanged(ctx, slices.DeleteFunc(p.Paths, func(path string) bool { return hc.inside(path) != nil })...)
	case mFileSaved, mPrewarm:
		var p pathParams
		if err := unmarshal(req.meta, &p); err != nil {
			return nil, err
		}
		if err := hc.inside(p.Path); err != nil {
			return nil, err
		}
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
		return nil, m.FileRenamed(ctx, p.Old, p.New)
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
		return nil, m.Restart(ctx, p.Name, p.Path)
	case mServers:
		return hc.servers(m), nil
	case mWatchStatus:
		return m.WatchStatus(), nil
	}
	return nil, errors.New("server host: no method " + req.method)
}

// hello binds the client to its profile's Manager (made on first use)
// and subscribes it to the diagnostics of files under its roots.
func (hc *hostClient) hello(p helloParams) (any, error) {
	if p.Identity != hc.h.cfg.Identity {
		return nil, fmt.Errorf("server host: client build %s is not the host's %s", p.Identity, hc.h.cfg.Identity)
	}
	b, err := json.Marshal(p.Profile)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	key := hex.EncodeToString(sum[:])
	h := hc.h
	h.mu.Lock()
	sh := h.profiles[key]
	if sh == nil {
		opts := p.Profile.options()
		opts.Logger = h.log.With("profile", key[:8])
		opts.Budget = h.budget
		m, err := lsp.NewManager(opts)
		if err != nil {
			h.mu.Unlock()
			return nil, fmt.Errorf("server host: %w", err)
		}
		sh = &shared{mgr: m, prof: p.Profile}
		h.profiles[key] = sh
	}
	sh.users++
	h.mu.Unlock()
	events, unsub := sh.mgr.Subscribe(256)
	hc.mu.Lock()
	if hc.sh != nil {
		hc.mu.Unlock()
		unsub()
		return nil, errors.New("server host: hello twice")
	}
	hc.sh, hc.key, hc.unsub, hc.pid = sh, key, unsub, p.PID
	hc.mu.Unlock()
	hc.addRoots(p.Roots...)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		hc.forward(events)
	}()
	h.log.Info("client joined", "pid", p.PID, "profile", key[:8])
	return helloResult{PID: os.Getpid()}, nil
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
	sh := hc.sh
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
		if sh != nil {
			sh.mgr.AddRoot(abs)
		}
	}
}

// inside refuses a path outside the client's roots, as the Manager
// refuses one outside all roots: the Manager holds the roots of every
// client of the profile, a client may ask only about its own.
func (hc *hostClient) inside(path string) error {
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
			return nil
		}
	}
	return fmt.Errorf("resolve %s: %w", path, lsp.ErrOutsideWorkspace)
}

// diagnostics answers for the files inside the client's roots from the
// Manager and refuses the others, in the order asked.
func (hc *hostClient) diagnostics(ctx context.Context, m *lsp.Manager, p diagnosticsParams) (*lsp.DiagnosticsReport, error) {
	rep := &lsp.DiagnosticsReport{Files: make([]lsp.FileDiagnostics, len(p.Paths))}
	var ask []string
	var at []int
	for i, path := range p.Paths {
		if err := hc.inside(path); err != nil {
			rep.Files[i] = lsp.FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]"), Verdict: lsp.Failed, Detail: err.Error()}
			continue
		}
		ask, at = append(ask, path), append(at, i)
	}
	got, err := m.Diagnostics(ctx, ask, lsp.DiagnosticsOptions{Timeout: p.Timeout, Settle: p.Settle})
	if got == nil {
		return nil, err
	}
	for j, f := range got.Files {
		rep.Files[at[j]] = f
	}
	return rep, err
}

// servers lists the servers of the client's world: those whose root lies
// under one of its roots or holds one.
func (hc *hostClient) servers(m *lsp.Manager) []lsp.ServerStatus {
	hc.mu.Lock()
	roots := slices.Clone(hc.roots)
	hc.mu.Unlock()
	out := []lsp.ServerStatus{}
	for _, st := range m.Servers() {
		if slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, st.Root) || edit.Within(st.Root, r) }) {
			out = append(out, st)
		}
	}
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
		sh    *shared
		pid   int
		roots []string
	}
	h.mu.Lock()
	profiles := slices.Collect(maps.Values(h.profiles))
	var users []user
	for hc := range h.clients {
		hc.mu.Lock()
		if hc.sh != nil {
			users = append(users, user{hc.sh, hc.pid, slices.Clone(hc.roots)})
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
				if u.sh == sh && slices.ContainsFunc(u.roots, func(r string) bool { return edit.Within(r, st.Root) || edit.Within(st.Root, r) }) {
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
