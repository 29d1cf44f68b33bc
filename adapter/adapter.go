// Package adapter is the upstream half of acp-lsp's LSP feature: it sits in
// the chain next to the editor and answers every `_lsp/*` request coming up
// from below (the component, or an agent that speaks the extension itself).
//
// Per editor connection, per file and per method it picks who answers:
// the editor's language servers when its initialize request offers ACP's
// own LSP proposal (`lsp`, asked first, rfd.go) and one of them takes the
// file and method; the editor, when it offers the method in
// clientCapabilities._meta.lsp; or language servers the adapter runs
// itself (package lsp) otherwise. Below the adapter there is one vocabulary, the
// LSP-native `_lsp/*` methods of docs/protocol.md §3; toward editors that
// only speak the reference methods (§1) the adapter translates.
//
// It also merges the notification streams: the editor's
// `_lsp/publishDiagnostics` and `_lsp/didSave` (either spelling) and the
// diagnostics local servers publish all travel down as one stream, and
// files the agent writes through the editor (fs/write_text_file) or the
// tool writes itself (`_lsp/filesChanged`) are resynced in local servers.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/agentwrite"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/sessionsetup"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Config configures an Adapter. Zero values take the documented defaults.
type Config struct {
	// LSP are the options of the local lsp.Manager. Roots may be empty:
	// every session's cwd is added as a root when the session starts.
	LSP lsp.Options
	// EditorTimeout bounds each call to the editor (default 10s): an
	// editor that never answers gets a clear error to the agent, and its
	// late answer is dropped.
	EditorTimeout time.Duration
	// Spelling is the first spelling tried toward the editor: "_lsp" (the
	// spec-compliant one), "lsp" (bare, as some SDK generations send), or
	// "" for automatic (the spelling the editor listed, else "_lsp"). The
	// other spelling is tried once on -32601 or null until one is known to
	// work.
	Spelling string
	// ForwardToAgent forwards the editor's LSP notifications to the agent
	// even if the agent did not advertise them in its initialize response.
	ForwardToAgent bool
	// NoEditor never routes to the editor, whatever it offers.
	NoEditor bool
	// NoLocal never starts local servers: methods the editor lacks are
	// answered with -32601.
	NoLocal bool
	// Prewarm starts, in the background, the local servers each session
	// folder needs (lsp's Survey) as soon as the session is set up, so
	// the first question finds them loaded rather than paying their whole
	// load: the model spends seconds thinking before it asks anything.
	Prewarm bool
	// OnPrewarm, when set, is called once the prewarm of a session folder
	// has ended: the servers started (initialize answered) and the
	// failures joined.
	OnPrewarm func(root string, servers []string, err error)
	// Host, when set, runs the local servers outside this process: it is
	// given LSP and returns what serves them (internal/serverhost's
	// Client, the user's shared server host). Nil runs them in this
	// process (lsp.NewManager), as tests and embedders do by default.
	Host func(opts lsp.Options) (LocalServers, error)
	// Logger receives the adapter's logs (default: discard).
	Logger *slog.Logger
}

// DefaultEditorTimeout is Config.EditorTimeout's default.
const DefaultEditorTimeout = 10 * time.Second

// Adapter is the chain component that answers `_lsp/*` requests from the
// editor or from local language servers. It implements proxy.Stage and
// proxy.Runner; one Adapter serves one editor connection (one chain). Its
// methods are safe for concurrent use.
type Adapter struct {
	cfg Config
	log *slog.Logger
	mgr LocalServers
	// own is mgr when the servers run in this process (no Config.Host).
	own *lsp.Manager

	// life bounds background work (didSave and write resyncs) that is
	// not tied to a request; it ends with Close.
	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu sync.Mutex
	// synced is closed when the newest resync (filesChanged, didSave, a
	// confirmed write) has reached the local servers. Requests taken after
	// a resync wait for it, so an answer is never computed on content the
	// agent already replaced (a rename and its revert in a row, say).
	synced chan struct{}
	// editor is what the editor offered in initialize; nil before it.
	editor *offer
	// agentNotes are the notifications the agent advertised accepting.
	agentNotes map[string]bool
	// spelling is the spelling confirmed to work toward the editor ("",
	// "_lsp" or "lsp").
	spelling string
	// lacks are editor methods that answered -32601 in both spellings.
	lacks map[string]bool
	// writes are the agent's writes through the editor awaiting its
	// answer; its own lock.
	writes agentwrite.Tracker
	// known are files with diagnostics published (editor or local), for
	// workspace-wide diagnostic reports.
	known map[string]bool
	// samples map a local server (name+root) to a file it served, so that
	// workspace-wide requests can reach it.
	samples map[string]string
	// roots are the workspace roots (config and session folders).
	roots []string
	// surveys are the last survey of each root (survey).
	surveys map[string]*lsp.Survey
	// rfd is what the editor's offer of ACP's LSP proposal set up.
	rfd rfdState

	closeOnce sync.Once
	closeErr  error
}

var (
	_ proxy.Stage  = (*Adapter)(nil)
	_ proxy.Runner = (*Adapter)(nil)
)

// New returns an Adapter with its own lsp.Manager; it starts no process.
func New(cfg Config) (*Adapter, error) {
	if cfg.EditorTimeout <= 0 {
		cfg.EditorTimeout = DefaultEditorTimeout
	}
	switch cfg.Spelling {
	case "", "_lsp", "lsp":
	default:
		return nil, fmt.Errorf("adapter: spelling %q: want \"_lsp\", \"lsp\" or empty", cfg.Spelling)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.LSP.Logger == nil {
		cfg.LSP.Logger = cfg.Logger
	}
	var (
		mgr LocalServers
		own *lsp.Manager
		err error
	)
	if cfg.Host != nil {
		mgr, err = cfg.Host(cfg.LSP)
	} else {
		own, err = lsp.NewManager(cfg.LSP)
		mgr = own
	}
	if err != nil {
		return nil, fmt.Errorf("adapter: %w", err)
	}
	life, stop := context.WithCancel(context.Background())
	return &Adapter{
		cfg: cfg, log: cfg.Logger, mgr: mgr, own: own, life: life, stop: stop, roots: slices.Clone(cfg.LSP.Roots),
		agentNotes: map[string]bool{}, lacks: map[string]bool{},
		known: map[string]bool{}, samples: map[string]string{}, surveys: map[string]*lsp.Survey{},
	}, nil
}

// Manager returns the Manager of the local language servers when they run
// in this process; nil when they run in a server host (Config.Host).
func (a *Adapter) Manager() *lsp.Manager { return a.own }

// Local returns what serves the local language servers: the in-process
// Manager or the server host's client.
func (a *Adapter) Local() LocalServers { return a.mgr }

// Close shuts the local servers down (shutdown, then their process groups
// are killed) and waits for the adapter's background work. It is
// idempotent: later calls return the first call's result.
func (a *Adapter) Close() error {
	a.closeOnce.Do(func() {
		a.stop()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.mgr.Close(ctx); err != nil && !errors.Is(err, lsp.ErrClosed) {
			a.closeErr = fmt.Errorf("adapter close: %w", err)
		}
		a.wg.Wait()
	})
	return a.closeErr
}

// Name implements proxy.Stage.
func (a *Adapter) Name() string { return "adapter" }

// Nonblocking implements proxy.Nonblocking: the adapter's handlers only
// patch, record and hand work to goroutines (requests it answers, resyncs),
// so a reader may keep batching writes across them.
func (a *Adapter) Nonblocking() {}

// Barrier implements proxy.Barrier: every handler passes on what it was
// given before it returns (Run and the request goroutines only originate
// messages), so an end of input travels on at once, and the agent sees
// the editor's end rather than being stopped after the drain bound.
func (a *Adapter) Barrier(_ bool, pass func()) { pass() }

// Run implements proxy.Runner: it forwards what local servers publish as
// `_lsp/publishDiagnostics` toward the agent until the chain stops, then
// waits for the requests it is still answering.
func (a *Adapter) Run(ctx context.Context, hop *proxy.Hop) error {
	events, cancel := a.mgr.Subscribe(256)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			a.publishLocal(hop, ev)
		}
	}
}

// publishLocal sends one local server's diagnostics downstream in the
// native form of docs/protocol.md §2.
func (a *Adapter) publishLocal(hop *proxy.Hop, ev lsp.DiagnosticsEvent) {
	p := lspext.PublishDiagnosticsParams{URI: ev.URI, Diagnostics: ev.Diagnostics, Server: ev.Server, Native: true}
	if len(p.Diagnostics) == 0 {
		p.Diagnostics = json.RawMessage("[]")
	}
	if ev.Version != 0 {
		v := ev.Version
		p.Version = &v
	}
	b, err := json.Marshal(p)
	if err != nil {
		a.log.Warn("local diagnostics not forwarded", "uri", ev.URI, "err", err)
		return
	}
	a.noteKnown(ev.URI)
	hop.NotifyAgent(lspext.PublishDiagnostics, b)
}

func (a *Adapter) noteKnown(uri string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.known) < 100000 {
		a.known[uri] = true
	}
}

// background runs f on the adapter's lifetime context, tracked by Close.
// resync runs f (telling local servers that files changed) after every
// earlier resync, off the message path; requests taken from now on wait for
// it to finish.
func (a *Adapter) resync(f func(ctx context.Context)) {
	done := make(chan struct{})
	a.mu.Lock()
	prev := a.synced
	a.synced = done
	a.mu.Unlock()
	a.background(func(ctx context.Context) {
		defer close(done)
		if prev != nil {
			select {
			case <-prev:
			case <-ctx.Done():
				return
			}
		}
		f(ctx)
	})
}

// awaitSync waits for the resync that was newest when the request was
// taken, or for ctx.
func awaitSync(ctx context.Context, synced <-chan struct{}) {
	if synced == nil {
		return
	}
	select {
	case <-synced:
	case <-ctx.Done():
	}
}

func (a *Adapter) background(f func(ctx context.Context)) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		f(a.life)
	}()
}

// Passes implements proxy.Passer: of the notifications, the adapter looks
// only at LSP extensions (the editor's diagnostics and saves, the tool's
// filesChanged); everything else, above all the agent's session/update
// stream, skips its handlers.
func (a *Adapter) Passes(toAgent bool, method string) bool {
	return !lspext.InNamespace(method)
}

// FromClient implements proxy.Stage: it reads the editor's offer in
// initialize (and tells the chain below what it now has), adds session
// folders as roots, passes the editor's LSP notifications to the component,
// and resyncs local servers after confirmed writes.
func (a *Adapter) FromClient(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch {
	case m.Kind == proxy.KindRequest && m.Method == "initialize":
		hop.ToAgent(a.offerRFD(hop, a.initializeDown(hop, m)))
	case m.Kind == proxy.KindRequest && sessionsetup.Is(m.Method):
		a.addRoot(hop, m)
		hop.ToAgent(m)
	case m.Kind == proxy.KindNotification && (lspext.Is(m.Method, lspext.PublishDiagnostics) || lspext.Is(m.Method, lspext.DidSave)):
		hop.ToAgent(a.editorNotification(m))
	case m.Kind == proxy.KindResponse && m.Method == agentwrite.Method:
		a.written(m)
		hop.ToAgent(m)
	default:
		hop.ToAgent(m)
	}
}

// addRoot adds the cwd of a session setup request as a workspace root,
// and its additionalDirectories (ACP's further roots of the session), as
// the session's files may be in any of them. One that is no root (not an
// absolute path to a folder: lsp.Manager.AddRoot says why) is left out
// with a warning. The message is only read, never changed.
func (a *Adapter) addRoot(hop *proxy.Hop, m *proxy.Message) {
	var dirs, roots []string
	if raw, ok := proxy.GetPath(m.Params(), "cwd"); ok {
		var cwd string
		if err := json.Unmarshal(raw, &cwd); err != nil {
			hop.Logger().Warn("session cwd is not a path; not a workspace root", "method", m.Method, "cwd", string(raw))
		} else {
			dirs = append(dirs, cwd)
		}
	}
	if raw, ok := proxy.GetPath(m.Params(), "additionalDirectories"); ok {
		var extra []string
		if err := json.Unmarshal(raw, &extra); err != nil {
			hop.Logger().Warn("session additionalDirectories is not a list of paths; no root added from it", "method", m.Method, "err", err)
		}
		dirs = append(dirs, extra...)
	}
	for _, dir := range dirs {
		if err := a.mgr.AddRoot(dir); err != nil {
			hop.Logger().Warn("not a workspace root", "method", m.Method, "dir", dir, "err", err)
			continue
		}
		a.mu.Lock()
		if !slices.Contains(a.roots, dir) {
			a.roots = append(a.roots, dir)
		}
		a.mu.Unlock()
		roots = append(roots, dir)
		if a.cfg.Prewarm && !a.cfg.NoLocal && !a.rfdOn() {
			a.background(func(ctx context.Context) { a.prewarm(ctx, dir) })
		}
	}
	// Every session's folders are kept for its answer: the agent's RFD
	// requests name the session (rfdagent.go); with the editor's RFD
	// servers, the prewarm waits for the answer (rfdSetup), as it needs
	// the session's id to ask what they cover.
	a.rfdSetupRequested(m, roots)
}

// written tells local servers about a file the editor confirmed writing.
func (a *Adapter) written(m *proxy.Message) {
	path, ok := a.writes.Answered(m)
	if !ok || !filepath.IsAbs(path) {
		return
	}
	a.resync(func(ctx context.Context) {
		if err := a.mgr.FileChanged(ctx, path); err != nil {
			a.log.Debug("resync after write", "path", path, "err", err)
		}
	})
}

// FromAgent implements proxy.Stage: it answers `_lsp/*` requests,
// consumes `_lsp/filesChanged`, advertises the chain's LSP support in the
// initialize response, and remembers agent writes to resync them.
func (a *Adapter) FromAgent(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch {
	case m.Kind == proxy.KindRequest && isRFDAgentRequest(m):
		a.takeRFD(ctx, hop, m)
	case m.Kind == proxy.KindRequest && isExt(m.Method):
		a.take(ctx, hop, m)
	case m.Kind == proxy.KindNotification && lspext.Is(m.Method, lspext.FilesChanged):
		a.filesChanged(hop, m)
	case m.Kind == proxy.KindNotification && m.Method == proxy.MethodCancelRequest:
		// For a request the adapter took: its ctx is already cancelled,
		// and the goroutine answering it replies -32800.
	case m.Kind == proxy.KindResponse && m.Method == "initialize":
		hop.ToClient(a.initializeUp(hop, m))
	case m.Kind == proxy.KindResponse && sessionsetup.Is(m.Method):
		a.rfdSetup(hop, m)
		hop.ToClient(m)
	case m.Kind == proxy.KindRequest && m.Method == agentwrite.Method:
		a.writes.Requested(m)
		hop.ToClient(m)
	default:
		hop.ToClient(m)
	}
}

func isExt(method string) bool {
	_, ok := lspext.Canonical(method)
	return ok
}

// take answers an `_lsp/*` request off the pipeline (Hop.Answer), so it
// keeps flowing while a server or the editor works. The component's own
// requests are then served on the goroutine that waits for them.
func (a *Adapter) take(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	method, _ := lspext.Canonical(m.Method)
	params := m.Params()
	a.answerOff(ctx, hop, m, func() (json.RawMessage, error) {
		res, err := a.serve(ctx, hop, method, params)
		if err != nil {
			return nil, rpcError(ctx, method, err)
		}
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		return res, nil
	})
}

// answerOff answers the request m with answer, off the pipeline
// (Hop.Answer), once the local servers have seen the files the chain
// synced before m; Close waits for it.
func (a *Adapter) answerOff(ctx context.Context, hop *proxy.Hop, m *proxy.Message, answer func() (json.RawMessage, error)) {
	a.mu.Lock()
	synced := a.synced
	a.mu.Unlock()
	a.wg.Add(1)
	hop.Answer(m, func() (json.RawMessage, error) {
		defer a.wg.Done()
		awaitSync(ctx, synced)
		return answer()
	})
}

// filesChanged resyncs local servers after the tool wrote files, and
// passes the notification to an editor that asked for it.
func (a *Adapter) filesChanged(hop *proxy.Hop, m *proxy.Message) {
	var p lspext.FilesChangedParams
	if err := json.Unmarshal(m.Params(), &p); err != nil {
		hop.Logger().Warn("malformed filesChanged", "err", err)
		return
	}
	var paths []string
	for _, c := range p.Changes {
		if path, err := edit.PathFromURI(c.URI); err == nil {
			paths = append(paths, path)
		}
	}
	if spelling, ok := a.editorNotifies(lspext.FilesChanged); ok {
		hop.NotifyClient(spell(spelling, lspext.FilesChanged), m.Params())
	}
	if len(paths) == 0 {
		return
	}
	a.resync(func(ctx context.Context) {
		if err := a.mgr.FileChanged(ctx, paths...); err != nil {
			a.log.Debug("resync after filesChanged", "err", err)
		}
	})
}
