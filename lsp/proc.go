package lsp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// LSP error codes that jsonrpc2 does not define.
const (
	codeRequestCancelled = -32800
	codeContentModified  = -32801
	codeServerCancelled  = -32802
	codeMethodNotFound   = -32601
)

// proc is one running language-server process and its connection. A proc
// is never restarted: a crash or recycle makes a new proc (server.ensure).
//
// Concurrency: the jsonrpc2 read loop calls handle synchronously, in
// message order; handle never blocks on the connection (server→client
// requests are answered from goroutines tracked by wg). Everything else may
// be called from any goroutine; mu guards the mutable maps.
type proc struct {
	srv  *server
	log  *slog.Logger
	life serverLife
	pid  int // 0 for a server reached through Options.Connect
	conn *jsonrpc2.Conn
	// done is closed when the process has exited and the conn is closed.
	done    chan struct{}
	exitErr error
	// closing is set by an intentional shutdown, so exit is not a crash.
	closing atomic.Bool
	nextID  atomic.Uint64
	wg      sync.WaitGroup
	stderr  *tailBuffer

	// initOptions are the configuration's InitializationOptions with
	// DataDirVar expanded; data is the data folder the server holds (nil
	// if none), released once it has ended.
	initOptions json.RawMessage
	data        *dataFolder

	// Set once by initialize, read-only afterwards.
	enc      position.Encoding
	caps     serverCaps
	capsRaw  json.RawMessage
	initDone chan struct{}

	syncMu sync.Mutex // serialises document sync so versions go out in order
	// viewMu keeps a check's edited content from every regular request:
	// a request holds it shared from its sync until its answer, a check
	// (Manager.Check) exclusively for its whole run.
	viewMu sync.RWMutex
	// checking holds the URIs whose edited content the server holds
	// during a check, nil otherwise; checkOthers the reports on other
	// files during it (the last per URI); checkedVersions is the last
	// checked version per URI, whose late publishes are dropped (p.mu
	// held for all three).
	checking        map[string]bool
	checkOthers     map[string]json.RawMessage
	checkedVersions map[string]int32
	// held are the files not in a check's edit the server reported on
	// during it, by URI, with the last version the server had of each
	// when the disk's content was restored: their reports are dropped
	// until one carries a later version (proc.holdReported; p.mu held).
	held map[string]int32
	// dirStamps are the folders of open documents as closeVanished last
	// saw them (syncMu held).
	dirStamps map[string]dirStamp
	mu        sync.Mutex
	docs      map[string]*document // by path
	progress  map[string]*Progress // active work-done tokens → their work
	// loaded is set once the server logged the end of its load
	// (LoadSignals.DoneLog); without a DoneLog it is set from the start.
	loaded bool
	// changed is closed, and replaced, whenever the readiness may have
	// changed (progress begun, reported or ended, the load's end logged).
	changed chan struct{}
	begins  uint64 // loading $/progress begins seen, for progressMark
	// answered holds, for the requests in flight, the readiness when
	// their answer was read (set on the read loop).
	answered   map[uint64]*Readiness
	dynRegs    map[string]Registration
	diags      diagStore
	timeouts   int // consecutive request timeouts
	refreshGen uint64
	// pullRefused: the server answered a pull it does not offer
	// (Quirks.UnadvertisedPull) with an error, so it is read by its
	// pushes.
	pullRefused atomic.Bool
	// lost says why the connection is unusable although the process may
	// still run (protocol violation, wedge); first cause wins.
	lost error
	// saveKind is what didSave the server asked for at initialize.
	saveKind saveKind
	// watchCache holds compiled file watchers by registration id and
	// options.
	watchCache map[string][]fileWatcher
	// backlog holds changes on disk seen before the server registered
	// file watchers (keepBacklog); hadWatchers ends the keeping.
	backlog     []filewatch.Event
	backlogLost bool
	hadWatchers bool
	// bases says, per watcher base, whether the workspace watch skips
	// it (skippedBases).
	bases map[string]bool

	// closedVersions are the last versions of documents closed, by path
	// (mu): a reopen continues past it, so a publish the server sends
	// late for the earlier copy is not taken for its word on the new one.
	// Past closedVersionsMax paths the map is folded into closedFloor, the
	// highest version it held, which every document opened from then on
	// starts past (versions only need to increase), so the map stays
	// bounded however many files a long session touches.
	closedVersions map[string]int32
	closedFloor    int32
	// peeks counts the usePeek requests in flight per path (mu).
	peeks map[string]int
}

// saveKind is a server's textDocumentSync.save: whether to send didSave
// and with the text or not.
type saveKind int

const (
	saveNone saveKind = iota
	saveNotify
	saveWithText
)

// serverCaps is the part of ServerCapabilities the client acts on.
type serverCaps struct {
	PositionEncoding string          `json:"positionEncoding"`
	TextDocumentSync json.RawMessage `json:"textDocumentSync"`
	DiagnosticProv   json.RawMessage `json:"diagnosticProvider"`
	Workspace        struct {
		WorkspaceFolders struct {
			Supported bool `json:"supported"`
		} `json:"workspaceFolders"`
		FileOperations struct {
			WillRename json.RawMessage `json:"willRename"`
			DidRename  json.RawMessage `json:"didRename"`
		} `json:"fileOperations"`
	} `json:"workspace"`
}

// Registration is one dynamic capability registration a server made with
// client/registerCapability.
type Registration struct {
	ID              string          `json:"id"`
	Method          string          `json:"method"`
	RegisterOptions json.RawMessage `json:"registerOptions,omitempty"`
}

// tailBuffer keeps the last bytes a server wrote to stderr, for error
// messages about crashes.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf); n > 4096 {
		t.buf = append(t.buf[:0], t.buf[n-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// pipes joins the child's stdout (read) and stdin (write) into the stream
// jsonrpc2 wants. Every write runs under a watchdog: a server that stops
// reading its stdin for longer than the write timeout is killed as wedged,
// which fails the blocked write with EPIPE instead of hanging the caller
// (jsonrpc2 writes ignore contexts).
type pipes struct {
	r       io.ReadCloser
	w       io.WriteCloser
	timeout time.Duration
	onWedge func()
}

func (p *pipes) Read(b []byte) (int, error) { return p.r.Read(b) }
func (p *pipes) Write(b []byte) (int, error) {
	t := time.AfterFunc(p.timeout, p.onWedge)
	defer t.Stop()
	return p.w.Write(b)
}
func (p *pipes) Close() error { return p.w.Close() }

// startProc starts the server, in its own process group, its tree ending
// with acp-lsp (or through Options.Connect), and connects to it; it does
// not initialize. A server that names DataDirVar gets its data folder
// first, held until the server has ended.
func startProc(s *server) (*proc, error) {
	l := launch{cfg: s.cfg}
	if usesDataDir(l.cfg) {
		base := s.mgr.opts.DataDir
		if base == "" {
			var err error
			if base, err = DefaultDataDir(); err != nil {
				return nil, fmt.Errorf("start %s: %w", l.cfg.Name, err)
			}
		}
		d, err := acquireDataFolder(base, l.cfg.Name, s.root)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", l.cfg.Name, err)
		}
		l.cfg, l.data = l.cfg.withDataDir(d.dir), d
	}
	p, err := spawn(s, l)
	if err != nil {
		l.data.release()
	}
	return p, err
}

// launch is what one start of a server runs: its configuration with
// DataDirVar expanded, and the data folder it holds (nil if none).
type launch struct {
	cfg  ServerConfig
	data *dataFolder
}

// spawn starts l's program (or connects through Options.Connect).
func spawn(s *server, l launch) (*proc, error) {
	cfg := l.cfg
	if connect := s.mgr.opts.Connect; connect != nil {
		c, err := connect(cfg, s.root)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
		}
		return newProc(s, l, c, c, connLife{c}, 0, nil), nil
	}
	path, err := s.mgr.lookPath(cfg.Command)
	if err != nil {
		return nil, &MissingServerError{Server: cfg.Name, Command: cfg.Command, InstallHint: cfg.InstallCommand(runtime.GOOS)}
	}
	if l.cfg, err = l.cfg.withTypeScriptLib(s.root, path); err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Dir = s.root
	cmd.Env = append(s.mgr.env(), cfg.Env...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Name, err)
	}
	// Own pipes (not exec's copying goroutines) so that Wait returns when
	// the server exits even if a child it started still holds them.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	child, err := reap.Start(cmd)
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("start %s (%s): %w", cfg.Name, path, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	return newProc(s, l, outR, inW, procLife{child}, child.Pid(), errR), nil
}

// newProc connects to a started server: LSP read from r, written to w
// (closing w ends the client's side), its stderr (nil if none) kept for
// error messages, and a goroutine that waits for its end.
func newProc(s *server, l launch, r io.ReadCloser, w io.WriteCloser, life serverLife, pid int, stderr io.ReadCloser) *proc {
	cfg := s.cfg
	p := &proc{initOptions: l.cfg.InitializationOptions, data: l.data,
		srv: s, log: s.log, life: life, pid: pid, done: make(chan struct{}), stderr: &tailBuffer{},
		initDone: make(chan struct{}), docs: map[string]*document{}, progress: map[string]*Progress{},
		dynRegs: map[string]Registration{}, enc: position.UTF16, changed: make(chan struct{}),
		loaded: s.load.doneLog == nil, answered: map[uint64]*Readiness{},
	}
	p.diags.init()
	if stderr != nil {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			_, _ = io.Copy(p.stderr, stderr)
			stderr.Close()
		}()
	}
	stream := jsonrpc2.NewBufferedStream(&pipes{r: r, w: w, timeout: s.tm.Write.d(), onWedge: func() {
		err := fmt.Errorf("%w: server %s wedged: it stopped reading its input for %s", ErrTimeout, cfg.Name, s.tm.Write.d())
		p.loseConn(err)
		// Out of rotation first, so no request is sent to it, then the
		// group is killed, which fails the blocked write.
		p.srv.recycle(p, err)
	}}, frameCodec{onError: p.protocolError})
	p.conn = jsonrpc2.NewConn(context.Background(), stream, p,
		jsonrpc2.SetLogger(slog.NewLogLogger(p.log.Handler(), slog.LevelDebug)), jsonrpc2.OnRecv(p.onRecv))
	go p.wait(r)
	return p
}

// ServerConn is a language server the Manager reaches without spawning a
// process (Options.Connect): tests run in-process fakes with it, under
// testing/synctest. Read and Write carry LSP frames; Close ends the
// client's side of the stream. Done is closed once the server has ended
// (on its own, after the client's Close, or after Kill); Kill ends it at
// once.
type ServerConn interface {
	io.ReadWriteCloser
	Done() <-chan struct{}
	Kill()
}

// serverLife is how a proc waits for, terminates and kills its server.
type serverLife interface {
	// wait returns once the server has ended, with its exit error.
	wait() error
	// terminate asks it to end (SIGTERM); kill ends it now (SIGKILL),
	// with everything it started.
	terminate()
	kill()
}

// procLife is a server process leading its own process group, its tree
// ending with acp-lsp (reap.Start).
type procLife struct{ c *reap.Child }

func (l procLife) wait() error {
	err := l.c.Wait()
	// What the server started may still run: end it.
	l.kill()
	return err
}

func (l procLife) terminate() { l.c.Terminate() }

// kill returns once the tree has ended: who killed a server may count on
// it being gone.
func (l procLife) kill() {
	l.c.Kill()
	<-l.c.Gone()
}

// connLife is a server behind Options.Connect.
type connLife struct{ c ServerConn }

func (l connLife) wait() error {
	<-l.c.Done()
	return nil
}

func (l connLife) terminate() { l.c.Kill() }
func (l connLife) kill()      { l.c.Kill() }

// wait reaps the server and closes the connection; it is the only
// goroutine that closes done.
func (p *proc) wait(outR io.Closer) {
	err := p.life.wait()
	p.data.release() // the server has ended: another instance may use its folder
	p.conn.Close()
	<-p.conn.DisconnectNotify()
	outR.Close()
	p.exitErr = err
	// Record the crash before done is closed, so whoever waits on done
	// sees the server's new state.
	if !p.closing.Load() {
		msg := fmt.Sprintf("server %s exited unexpectedly: %v", p.srv.cfg.Name, err)
		if lost := p.lostErr(); lost != nil {
			msg = fmt.Sprintf("server %s killed: %v", p.srv.cfg.Name, lost)
		}
		if tail := p.stderr.String(); tail != "" {
			msg += "; stderr: " + tellingLine(tail)
		}
		p.log.Warn(msg)
		p.srv.crashed(p, errors.New(msg))
	}
	close(p.done)
}

// kill ends the server and everything it started at once.
func (p *proc) kill() { p.life.kill() }

// loseConn records why the connection is unusable (first cause wins).
func (p *proc) loseConn(err error) {
	p.mu.Lock()
	if p.lost == nil {
		p.lost = err
	}
	p.mu.Unlock()
}

func (p *proc) lostErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

// protocolError is called by the frame reader, in the read loop, when the
// server wrote bytes that are not LSP. The connection closes after it; a
// server that wrote garbage cannot be trusted with the next message
// either, so its group is killed now (a crash: it counts towards the
// restart limit) rather than when someone next needs it.
func (p *proc) protocolError(err error) {
	err = fmt.Errorf("server %s: %w", p.srv.cfg.Name, err)
	p.log.Warn("language server broke the protocol; killing it", "server", p.srv.cfg.Name, "pid", p.pid, "err", err)
	p.loseConn(err)
	p.srv.noteError(err)
	p.kill()
}

// lostC is closed when the connection is gone (nil without one, in tests
// that drive a proc with no process).
func (p *proc) lostC() <-chan struct{} {
	if p.conn == nil {
		return nil
	}
	return p.conn.DisconnectNotify()
}

// disconnected reports whether the connection is gone (the process may
// not have been reaped yet).
func (p *proc) disconnected() bool {
	select {
	case <-p.conn.DisconnectNotify():
		return true
	default:
		return false
	}
}

// crashedUnder reports whether the process ended or lost its connection
// on its own (not stopped by acp-lsp: shut down, recycled) while ctx
// still has time: what is asked of it may be asked of its restart.
func (p *proc) crashedUnder(ctx context.Context) bool {
	return ctx.Err() == nil && !p.closing.Load() && (p.exited() || p.disconnected())
}

// exited reports whether the process is gone.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// call sends one request with a client-chosen id and waits for its answer.
// When ctx ends first it sends $/cancelRequest (on a detached context) and
// returns ctx's error; a process exit returns ErrServerExited.
func (p *proc) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	raw, _, err := p.callReady(ctx, method, params)
	return raw, err
}

// callReady is call that also returns the server's readiness when the
// answer was read: what the server wrote before its answer has been
// handled by then, and nothing it wrote after.
func (p *proc) callReady(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, Readiness, error) {
	id := jsonrpc2.ID{Num: p.nextID.Add(1)}
	var pv any
	if params != nil {
		pv = params
	}
	ready := new(Readiness)
	p.mu.Lock()
	p.answered[id.Num] = ready
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.answered, id.Num)
		p.mu.Unlock()
	}()
	w, err := p.conn.DispatchCall(context.Background(), method, pv, jsonrpc2.PickID(id))
	if err != nil {
		return nil, Readiness{}, p.connErr(method, err)
	}
	var raw json.RawMessage
	err = w.Wait(ctx, &raw)
	p.mu.Lock()
	r := *ready
	if r.Server == "" {
		r = p.readinessLocked() // no answer was read
	}
	p.mu.Unlock()
	if err == nil {
		return raw, r, nil
	}
	if ctx.Err() != nil && !p.exited() {
		p.goNotify("$/cancelRequest", json.RawMessage(fmt.Sprintf(`{"id":%d}`, id.Num)))
		return nil, r, fmt.Errorf("%s: %w", method, ctx.Err())
	}
	return nil, r, p.connErr(method, err)
}

// onRecv runs on the read loop for every message read: at the answer to
// a request in flight it notes the server's readiness.
func (p *proc) onRecv(_ *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil || resp.ID.IsString {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slot := p.answered[resp.ID.Num]; slot != nil {
		*slot = p.readinessLocked()
	}
}

func (p *proc) connErr(method string, err error) error {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return &ResponseError{Method: method, Code: rpcErr.Code, Message: rpcErr.Message, Data: rawData(rpcErr.Data)}
	}
	if errors.Is(err, jsonrpc2.ErrClosed) {
		// jsonrpc2 fails pending calls just before it marks the connection
		// disconnected, in the same critical section: wait for the mark so
		// that whoever sees this error also sees the connection gone
		// (ensure then replaces the process instead of reusing it).
		<-p.conn.DisconnectNotify()
	}
	if lost := p.lostErr(); lost != nil {
		return fmt.Errorf("%s: %w", method, lost)
	}
	if p.exited() || p.disconnected() || errors.Is(err, jsonrpc2.ErrClosed) {
		return fmt.Errorf("%s: %w", method, ErrServerExited)
	}
	return fmt.Errorf("%s: %w", method, err)
}

func rawData(d *json.RawMessage) json.RawMessage {
	if d == nil {
		return nil
	}
	return *d
}

// notify sends a notification; the write watchdog bounds it.
func (p *proc) notify(method string, params json.RawMessage) error {
	if err := p.conn.Notify(context.Background(), method, params); err != nil {
		return p.connErr(method, err)
	}
	return nil
}

// goNotify sends a notification without making the caller wait for the
// write.
func (p *proc) goNotify(method string, params json.RawMessage) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = p.notify(method, params)
	}()
}

// Handle is the connection's single synchronous handler (see proc).
func (p *proc) Handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		p.notification(req.Method, params)
		return
	}
	if req.Method == "window/workDoneProgress/create" {
		// Here, in wire order: the work is under way from now on, though
		// its begin comes only after the answer. clangd creates its
		// background index's token as it opens the first file, and its
		// first answers, from an index of that file alone, come before
		// the begin.
		p.progressCreated(params)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		result, rerr := p.serverRequest(req.Method, params)
		if rerr != nil {
			_ = conn.ReplyWithError(context.Background(), req.ID, rerr)
			return
		}
		_ = conn.Reply(context.Background(), req.ID, result)
	}()
}

func (p *proc) notification(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		p.publishDiagnostics(params)
	case "$/progress":
		p.onProgress(params)
	case "window/logMessage", "window/showMessage":
		var m struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if decode(params, &m) == nil {
			p.log.Debug("server message", "server", p.srv.cfg.Name, "type", m.Type, "message", m.Message)
			if method == "window/logMessage" {
				p.onLog(m.Message)
			}
		}
	default:
		if answer, ok := p.srv.cfg.Quirks.NotificationRequests[method]; ok {
			p.answerNotificationRequest(method, answer, params)
			return
		}
		p.log.Debug("server notification ignored", "server", p.srv.cfg.Name, "method", method)
	}
}

// answerNotificationRequest answers a request the server sent as the
// notification method with the notification answer, null as the result
// (see Quirks.NotificationRequests). The request's params are
// [id, command, args], or that array as the one positional parameter,
// [[id, command, args]], as vscode-jsonrpc sends an array; the answer
// takes the same shape, [id, null] or [[id, null]].
func (p *proc) answerNotificationRequest(method, answer string, params json.RawMessage) {
	var req []json.RawMessage
	if err := decode(params, &req); err != nil || len(req) == 0 {
		p.log.Warn("bad notification request", "server", p.srv.cfg.Name, "method", method, "err", err)
		return
	}
	var inner []json.RawMessage
	if len(req) == 1 && decode(req[0], &inner) == nil && len(inner) > 0 {
		p.goNotify(answer, json.RawMessage(`[[`+string(inner[0])+`,null]]`))
		return
	}
	p.goNotify(answer, json.RawMessage(`[`+string(req[0])+`,null]`))
}

func (p *proc) onProgress(params json.RawMessage) {
	var m struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind       string `json:"kind"`
			Title      string `json:"title"`
			Message    string `json:"message"`
			Percentage *int   `json:"percentage"`
		} `json:"value"`
	}
	if decode(params, &m) != nil {
		return
	}
	tok := string(m.Token)
	v := m.Value
	p.mu.Lock()
	defer p.mu.Unlock()
	switch v.Kind {
	case "begin":
		if w, ok := p.progress[tok]; (!ok || *w != Progress{}) && p.srv.load.loadingWork(v.Title) {
			p.begins++ // counted at its create otherwise
		}
		p.progress[tok] = &Progress{Title: v.Title, Message: v.Message, Percentage: v.Percentage}
	case "report":
		w, ok := p.progress[tok]
		if !ok {
			return
		}
		// A report carries what changed; the rest stands.
		nw := *w
		if v.Message != "" {
			nw.Message = v.Message
		}
		if v.Percentage != nil {
			nw.Percentage = v.Percentage
		}
		p.progress[tok] = &nw
	case "end":
		if _, ok := p.progress[tok]; !ok {
			return
		}
		delete(p.progress, tok)
	default:
		return
	}
	p.changedLocked()
}

// progressCreated notes a token the server created for work it is about
// to report: work in progress, of unknown title, until its begin.
func (p *proc) progressCreated(params json.RawMessage) {
	var m struct {
		Token json.RawMessage `json:"token"`
	}
	if decode(params, &m) != nil || len(m.Token) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.progress[string(m.Token)]; ok {
		return
	}
	if p.srv.load.loadingWork("") {
		p.begins++
	}
	p.progress[string(m.Token)] = &Progress{}
	p.changedLocked()
}

// onLog notes the end of the load a server logs (LoadSignals.DoneLog).
func (p *proc) onLog(msg string) {
	re := p.srv.load.doneLog
	if re == nil || !re.MatchString(strings.TrimSpace(msg)) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded {
		p.loaded = true
		p.changedLocked()
	}
}

// changedLocked (p.mu held) wakes whoever waits for the readiness to
// change.
func (p *proc) changedLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// readiness returns the server's readiness now and a channel closed at
// its next change.
func (p *proc) readiness() (Readiness, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readinessLocked(), p.changed
}

// readinessLocked (p.mu held): loading until the load's end was logged
// (LoadSignals.DoneLog) and while loading work is in progress.
func (p *proc) readinessLocked() Readiness {
	r := Readiness{Server: p.srv.cfg.Name, State: Ready}
	busy := false
	for _, w := range p.progress {
		if !p.srv.load.loadingWork(w.Title) {
			continue
		}
		busy = true
		if *w != (Progress{}) { // created, not begun: nothing to show
			r.Progress = append(r.Progress, *w)
		}
	}
	slices.SortFunc(r.Progress, func(a, b Progress) int { return strings.Compare(a.Title, b.Title) })
	if !p.loaded || busy {
		r.State = ReadyLoading
	}
	return r
}

// progressMark is what a request saw of the server's load when it went
// out: an empty answer is suspect if the server was loading then or began
// loading work before the answer arrived (the read loop handles messages
// in wire order, so a begin sent before the answer has been counted by
// the time the caller looks).
type progressMark struct {
	begins uint64
	busy   bool
}

func (p *proc) mark() progressMark {
	p.mu.Lock()
	defer p.mu.Unlock()
	return progressMark{begins: p.begins, busy: p.readinessLocked().State != Ready}
}

// busySince reports whether the server was loading at m or began loading
// work since.
func (p *proc) busySince(m progressMark) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return m.busy || p.begins > m.begins
}

// serverRequest answers a server→client request.
func (p *proc) serverRequest(method string, params json.RawMessage) (any, *jsonrpc2.Error) {
	switch method {
	case "workspace/configuration":
		return p.configuration(params)
	case "window/workDoneProgress/create", "window/showMessageRequest",
		"workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
		"workspace/codeLens/refresh", "workspace/inlineValue/refresh", "workspace/foldingRange/refresh":
		return nil, nil
	case "workspace/diagnostic/refresh":
		p.mu.Lock()
		p.refreshGen++
		p.mu.Unlock()
		p.diags.bump()
		return nil, nil
	case "client/registerCapability":
		var m struct {
			Registrations []Registration `json:"registrations"`
		}
		if err := decode(params, &m); err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		p.mu.Lock()
		for _, r := range m.Registrations {
			p.dynRegs[r.ID] = r
		}
		p.mu.Unlock()
		p.diags.bump() // a waiter may now pull instead of waiting for a push
		return nil, nil
	case "client/unregisterCapability":
		var m struct {
			// The specification's field name is misspelt on purpose.
			Unregisterations []Registration `json:"unregisterations"`
		}
		if err := decode(params, &m); err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		p.mu.Lock()
		for _, r := range m.Unregisterations {
			delete(p.dynRegs, r.ID)
		}
		p.mu.Unlock()
		return nil, nil
	case "workspace/workspaceFolders":
		return json.RawMessage(p.srv.foldersJSON()), nil
	case "workspace/applyEdit":
		return p.applyEdit(params), nil
	case "window/showDocument":
		return json.RawMessage(`{"success":false}`), nil
	}
	return nil, &jsonrpc2.Error{Code: codeMethodNotFound, Message: "method not supported by acp-lsp: " + method}
}

func (p *proc) configuration(params json.RawMessage) (any, *jsonrpc2.Error) {
	var m struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	if err := decode(params, &m); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	out := make([]json.RawMessage, len(m.Items))
	settings := p.srv.cfg.Settings
	none := json.RawMessage("null")
	if p.srv.cfg.Quirks.ObjectSettings {
		none = json.RawMessage("{}")
	}
	for i, it := range m.Items {
		out[i] = none
		switch v, ok := settings[it.Section]; {
		case it.Section == "" && len(settings) > 0:
			all, err := encode(settings)
			if err == nil {
				out[i] = all
			}
		case ok:
			out[i] = v
		}
	}
	return out, nil
}

// applyEdit applies a server-initiated edit on disk through lsp/edit,
// reading the files it names under Options.MaxFileSize; the next sync of
// each touched file sends its new text.
func (p *proc) applyEdit(params json.RawMessage) any {
	var m struct {
		Edit json.RawMessage `json:"edit"`
	}
	fail := func(err error) any {
		reason, _ := encode(err.Error())
		return json.RawMessage(`{"applied":false,"failureReason":` + string(reason) + `}`)
	}
	if err := decode(params, &m); err != nil {
		return fail(err)
	}
	we, err := edit.Parse(m.Edit)
	if err != nil {
		return fail(err)
	}
	opts := edit.Options{Encoding: p.enc, Root: p.srv.ceiling, FS: edit.OS{MaxFileSize: p.srv.mgr.opts.MaxFileSize}}
	if _, err := edit.Apply(context.Background(), we, opts); err != nil {
		return fail(err)
	}
	return json.RawMessage(`{"applied":true}`)
}

// initialize runs the LSP handshake and records what the server offers.
func (p *proc) initialize(ctx context.Context) error {
	params, err := initializeParams(p.srv, p.initOptions)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, p.srv.tm.Initialize.d())
	defer cancel()
	raw, err := p.call(ctx, "initialize", params)
	if err != nil {
		return fmt.Errorf("initialize %s: %w", p.srv.cfg.Name, err)
	}
	var res struct {
		Capabilities json.RawMessage `json:"capabilities"`
		// OffsetEncoding is clangd's answer to offsetEncoding.
		OffsetEncoding string `json:"offsetEncoding"`
	}
	if err := decode(raw, &res); err != nil {
		return fmt.Errorf("initialize %s: %w", p.srv.cfg.Name, err)
	}
	p.capsRaw = res.Capabilities
	if err := decode(res.Capabilities, &p.caps); err != nil {
		return fmt.Errorf("initialize %s: capabilities: %w", p.srv.cfg.Name, err)
	}
	// lua-language-server answers offsetEncoding inside its capabilities
	// rather than beside them, as clangd does.
	var inCaps struct {
		OffsetEncoding string `json:"offsetEncoding"`
	}
	if err := decode(res.Capabilities, &inCaps); err != nil {
		return fmt.Errorf("initialize %s: capabilities: %w", p.srv.cfg.Name, err)
	}
	if p.caps.PositionEncoding == "" {
		p.caps.PositionEncoding = cmp.Or(res.OffsetEncoding, inCaps.OffsetEncoding)
	}
	if enc, err := position.ParseEncoding(p.caps.PositionEncoding); err == nil {
		p.enc = enc
	}
	p.saveKind = parseSave(p.caps.TextDocumentSync)
	if err := p.notify("initialized", json.RawMessage("{}")); err != nil {
		return fmt.Errorf("initialize %s: %w", p.srv.cfg.Name, err)
	}
	// Settings are pushed as well as answered: the JSON, YAML and CSS
	// servers read most of theirs only from this update, as editors send
	// it. Never an empty one: {} turns the JSON server's validation off.
	if len(p.srv.cfg.Settings) > 0 {
		b, err := encode(struct {
			Settings map[string]json.RawMessage `json:"settings"`
		}{p.srv.cfg.Settings})
		if err != nil {
			return fmt.Errorf("initialize %s: settings: %w", p.srv.cfg.Name, err)
		}
		if err := p.notify("workspace/didChangeConfiguration", b); err != nil {
			return fmt.Errorf("initialize %s: %w", p.srv.cfg.Name, err)
		}
	}
	close(p.initDone)
	return nil
}

// shutdown ends the process politely and then by force: shutdown, exit,
// SIGTERM, SIGKILL to the group, each bounded by the shutdown timeout. It
// returns once the process has exited and every goroutine of the proc
// ended.
func (p *proc) shutdown(ctx context.Context) {
	p.closing.Store(true)
	grace := p.srv.tm.Shutdown.d()
	if !p.exited() {
		cctx, cancel := context.WithTimeout(ctx, grace)
		_, err := p.call(cctx, "shutdown", nil)
		cancel()
		if err == nil {
			// Sent before the connection closes (the write watchdog bounds
			// it): a server may take stdin closing as a crash.
			_ = p.notify("exit", nil)
		}
		p.conn.Close()
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.life.terminate()
		t.Reset(grace)
		select {
		case <-p.done:
		case <-t.C:
			p.kill()
			<-p.done
		}
	}
	p.wg.Wait()
	p.diags.closeAll()
}

// capability reports whether the server offers a static capability raw
// (present and not false) or registered method dynamically.
func (p *proc) dynamic(method string) []Registration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Registration
	for _, r := range p.dynRegs {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func present(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "null" && s != "false"
}
