// Package rfdeditor is a scripted editor that speaks ACP's own LSP
// proposal (the RFD "Language Server Proxy", internal/lspext/rfd.go) and
// fronts real language servers: it runs them (an lsp.Manager of its own,
// one per editor, apart from acp-lsp's) and answers `lsp/servers` and
// `lsp/request` from them, as an editor with the RFD would. Tests plug
// its Handler into the editor end of a chain (stacktest.Config.Editor)
// and drive everything else themselves.
//
// Fault injection sits on top of the real servers: a server's state can
// be forced (State), a method left out of availableMethods (Config), and
// every request it answered is recorded (Requests).
package rfdeditor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Server is one language server the editor runs for every session root.
type Server struct {
	// Config is the server's configuration (lsp's registry entry).
	Config lsp.ServerConfig
	// Sample is a file of the server's language, relative to a session
	// root: the editor starts the server on it when the session is added.
	Sample string
}

// Config configures an Editor.
type Config struct {
	Servers []Server
	// Env is the servers' environment (peers.Env()).
	Env []string
	// Methods are the availableMethods; nil takes DefaultMethods.
	Methods []string
	// Refuse are methods listed in availableMethods that the editor
	// refuses all the same, with method_not_forwarded (its list changed
	// since the asker read it).
	Refuse []string
	// Hold are methods whose lsp/requests the editor holds unanswered
	// until a $/cancel_request names them; it then answers -32800, as
	// the RFD asks.
	Hold []string
	// Encoding is the positionEncoding the editor advertises for every
	// server (default UTF-16): it converts requests and results between
	// it and its Manager's UTF-16, as an editor that negotiated it would
	// leave them.
	Encoding position.Encoding
}

// DefaultMethods are the methods an Editor forwards by default: the
// questions the lsp tool asks.
var DefaultMethods = []string{
	"textDocument/hover", "textDocument/definition", "textDocument/references",
	"textDocument/documentSymbol", "workspace/symbol", "textDocument/diagnostic",
	"textDocument/rename", "textDocument/prepareRename", "textDocument/codeAction",
	"textDocument/implementation", "textDocument/typeDefinition",
	"textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls",
}

// Request is one lsp/request the editor got.
type Request struct {
	Session, Server, Method string
	Params                  json.RawMessage
	// Refused is the RFD reason it was refused with, "" when it was
	// forwarded to the server.
	Refused string
	// Held is set for a request held (Config.Hold), ID its id.
	Held bool
	ID   string
}

// Editor is the scripted editor. Its methods are safe for concurrent use.
type Editor struct {
	cfg Config
	mgr *lsp.Manager

	mu       sync.Mutex
	sessions map[string][]string // id → roots
	states   map[string]string   // server id → forced state
	gen      int                 // bumped by Renumber
	requests []Request
	lists    int
	held     map[string]chan struct{} // request id → closed on its cancel
	cancels  []string                 // ids named by $/cancel_request
	wg       sync.WaitGroup
	heldWG   sync.WaitGroup // held requests not yet let go
}

// New returns an Editor whose servers start when a session is added.
func New(cfg Config) (*Editor, error) {
	if cfg.Methods == nil {
		cfg.Methods = DefaultMethods
	}
	if cfg.Encoding == "" {
		cfg.Encoding = position.UTF16
	}
	servers := make([]lsp.ServerConfig, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		servers = append(servers, s.Config)
	}
	mgr, err := lsp.NewManager(lsp.Options{Servers: servers, Env: cfg.Env, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, fmt.Errorf("rfdeditor: %w", err)
	}
	return &Editor{cfg: cfg, mgr: mgr, sessions: map[string][]string{}, states: map[string]string{}, held: map[string]chan struct{}{}}, nil
}

// Manager is the editor's own Manager (its servers' pids, for tests that
// tell them from acp-lsp's).
func (e *Editor) Manager() *lsp.Manager { return e.mgr }

// Close stops the editor's servers after the requests it is answering;
// held requests are let go (answered cancelled).
func (e *Editor) Close() error {
	e.mu.Lock()
	for id, ch := range e.held {
		close(ch)
		delete(e.held, id)
	}
	e.mu.Unlock()
	e.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.mgr.Close(ctx); err != nil && !errors.Is(err, lsp.ErrClosed) {
		return fmt.Errorf("rfdeditor close: %w", err)
	}
	return nil
}

// AddSession makes roots the session's folders and starts every server on
// its sample file under the first root, returning once each answered
// initialize.
func (e *Editor) AddSession(ctx context.Context, id string, roots ...string) error {
	for _, r := range roots {
		if err := e.mgr.AddRoot(r); err != nil {
			return fmt.Errorf("rfdeditor: add session %s: %w", id, err)
		}
	}
	e.mu.Lock()
	e.sessions[id] = roots
	e.mu.Unlock()
	for _, s := range e.cfg.Servers {
		if err := e.mgr.Prewarm(ctx, filepath.Join(roots[0], s.Sample)); err != nil {
			return fmt.Errorf("rfdeditor: start %s: %w", s.Config.Name, err)
		}
	}
	return nil
}

// ServerID is the id the editor gives a server in a root (before any
// Renumber).
func ServerID(name, root string) string { return name + "@" + root }

// Renumber gives every server a new id, as an editor restarted would:
// requests naming an old id are refused with unknown_server.
func (e *Editor) Renumber() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen++
}

// SetState forces the state listed for a server id ("" lifts it); a
// request to a server forced to anything but running is refused with
// server_not_running.
func (e *Editor) SetState(serverID, state string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if state == "" {
		delete(e.states, serverID)
		return
	}
	e.states[serverID] = state
}

// Requests returns the lsp/requests got so far.
func (e *Editor) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.requests)
}

// Cancels are the request ids $/cancel_request named so far (raw JSON).
func (e *Editor) Cancels() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.cancels)
}

// Released returns a channel closed once every request held so far has
// been let go by its $/cancel_request (or by Close).
func (e *Editor) Released() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		e.heldWG.Wait()
		close(done)
	}()
	return done
}

// holds reports whether lsp/request params name a method to hold.
func (e *Editor) holds(params json.RawMessage) bool {
	return slices.Contains(e.cfg.Hold, method(params))
}

// method is the LSP method of lsp/request params.
func method(params json.RawMessage) string {
	var p lspext.RFDRequestParams
	json.Unmarshal(params, &p)
	return p.Method
}

// Lists counts the lsp/servers requests answered so far.
func (e *Editor) Lists() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lists
}

// Handler answers lsp/servers and lsp/request, each on a goroutine of
// its own (a server may take seconds); every other message is left to
// the test.
func (e *Editor) Handler(p *acptest.Peer, m acptest.Msg) bool {
	if m.IsNotification() && m.Method == lspext.RFDCancelRequest {
		var c lspext.RFDCancelRequestParams
		json.Unmarshal(m.Params, &c)
		e.mu.Lock()
		e.cancels = append(e.cancels, string(c.RequestID))
		if ch, ok := e.held[string(c.RequestID)]; ok {
			close(ch)
			delete(e.held, string(c.RequestID))
		}
		e.mu.Unlock()
		return true
	}
	if !m.IsRequest() || (m.Method != lspext.RFDServers && m.Method != lspext.RFDRequest) {
		return false
	}
	if m.Method == lspext.RFDRequest && e.holds(m.Params) {
		// Registered here, on the reader, so a cancel read next finds it.
		ch := make(chan struct{})
		e.mu.Lock()
		e.held[string(m.ID)] = ch
		e.requests = append(e.requests, Request{Method: method(m.Params), Held: true, ID: string(m.ID)})
		e.mu.Unlock()
		e.wg.Add(1)
		e.heldWG.Add(1)
		go func() {
			defer e.wg.Done()
			defer e.heldWG.Done()
			<-ch
			p.ReplyError(m.ID, lspext.RFDCodeRequestCancelled, "request cancelled")
		}()
		return true
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		res, rerr := e.answer(m)
		if rerr != nil {
			p.Send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rerr})
			return
		}
		p.Reply(m.ID, res)
	}()
	return true
}

// answer is the result of m, or its error.
func (e *Editor) answer(m acptest.Msg) (any, *proxy.Error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	switch m.Method {
	case lspext.RFDServers:
		var p lspext.RFDServersParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &proxy.Error{Code: proxy.CodeInvalidParams, Message: err.Error()}
		}
		e.mu.Lock()
		e.lists++
		e.mu.Unlock()
		return lspext.RFDServersResult{Servers: e.list(p.SessionID), AvailableMethods: e.cfg.Methods}, nil
	}
	var p lspext.RFDRequestParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInvalidParams, Message: err.Error()}
	}
	res, rerr := e.request(ctx, p)
	got := Request{Session: p.SessionID, Server: p.ServerID, Method: p.Method, Params: p.Params}
	if d, ok := lspext.ParseRFDErrorData(errData(rerr)); ok && rerr.Code == lspext.RFDCodeInvalidParams {
		got.Refused = d.Reason
	}
	e.mu.Lock()
	e.requests = append(e.requests, got)
	e.mu.Unlock()
	return res, rerr
}

func errData(e *proxy.Error) json.RawMessage {
	if e == nil {
		return nil
	}
	return e.Data
}

// request answers one lsp/request.
func (e *Editor) request(ctx context.Context, p lspext.RFDRequestParams) (any, *proxy.Error) {
	servers := e.list(p.SessionID)
	i := slices.IndexFunc(servers, func(s lspext.RFDServerInfo) bool { return s.ServerID == p.ServerID })
	if i < 0 {
		return nil, rfdError("unknown server "+p.ServerID, lspext.RFDErrorData{Reason: lspext.RFDUnknownServer, Servers: servers})
	}
	s := servers[i]
	if !s.Running() {
		return nil, rfdError(p.ServerID+" is "+s.State, lspext.RFDErrorData{Reason: lspext.RFDServerNotRunning, ServerID: s.ServerID, State: s.State})
	}
	if lspext.RFDNeverForwarded(p.Method) || !slices.Contains(e.cfg.Methods, p.Method) || slices.Contains(e.cfg.Refuse, p.Method) {
		return nil, rfdError(p.Method+" is not forwarded", lspext.RFDErrorData{Reason: lspext.RFDMethodNotForwarded, AvailableMethods: e.cfg.Methods})
	}
	res, err := e.forward(ctx, s, p)
	if err != nil {
		var re *lsp.ResponseError
		if errors.As(err, &re) {
			code := int64(re.Code)
			data, _ := json.Marshal(lspext.RFDErrorData{Code: &code, Message: re.Message, Data: re.Data})
			return nil, &proxy.Error{Code: int(re.Code), Message: re.Message, Data: data}
		}
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: err.Error()}
	}
	return lspext.RFDRequestResult{LspResult: res}, nil
}

// forward sends p to the Manager's server for the file p names (or the
// server's sample file, for a request that names none), converting
// between the advertised encoding and the Manager's UTF-16.
func (e *Editor) forward(ctx context.Context, s lspext.RFDServerInfo, p lspext.RFDRequestParams) (json.RawMessage, error) {
	uri := documentURI(p.Params)
	path := ""
	if uri != "" {
		var err error
		if path, err = edit.PathFromURI(uri); err != nil {
			return nil, err
		}
	} else {
		for _, c := range e.cfg.Servers {
			if c.Config.Name == s.Name {
				path = filepath.Join(s.WorkspacePath, c.Sample)
			}
		}
	}
	params, err := lsp.ConvertPositions(p.Params, uri, e.cfg.Encoding, position.UTF16, 0)
	if err != nil {
		return nil, err
	}
	res, err := e.mgr.Request(ctx, path, p.Method, params)
	if err != nil {
		return nil, err
	}
	return lsp.ConvertPositions(res, uri, position.UTF16, e.cfg.Encoding, 0)
}

// documentURI is the textDocument.uri of LSP params, "" without one.
func documentURI(params json.RawMessage) string {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	json.Unmarshal(params, &p)
	return p.TextDocument.URI
}

// list is the session's servers: every configured server in every root,
// running when the Manager runs it (or as forced).
func (e *Editor) list(session string) []lspext.RFDServerInfo {
	e.mu.Lock()
	roots := slices.Clone(e.sessions[session])
	states := maps.Clone(e.states)
	gen := e.gen
	e.mu.Unlock()
	status := e.mgr.Servers()
	out := []lspext.RFDServerInfo{}
	for _, root := range roots {
		for _, c := range e.cfg.Servers {
			id := ServerID(c.Config.Name, root)
			if gen > 0 {
				id = fmt.Sprintf("%s#%d", id, gen)
			}
			info := lspext.RFDServerInfo{ServerID: id, Name: c.Config.Name, WorkspacePath: root,
				LanguageID: c.Config.Language, FileExtensions: c.Config.Extensions, State: lspext.RFDStateNotRunning, Capabilities: json.RawMessage("{}")}
			for _, st := range status {
				if st.Name == c.Config.Name && edit.Within(root, st.Root) || st.Name == c.Config.Name && edit.Within(st.Root, root) {
					if st.State == lsp.StateRunning {
						info.State = lspext.RFDStateRunning
					} else {
						info.State = lspext.RFDStateStarting
					}
					info.Capabilities = e.capabilities(st)
				}
			}
			if forced, ok := states[ServerID(c.Config.Name, root)]; ok {
				info.State = forced
			}
			out = append(out, info)
		}
	}
	return out
}

// capabilities are the server's initialize capabilities verbatim, as the
// RFD has them (so a provider registered dynamically is not among them),
// but for positionEncoding: the encoding the editor takes.
func (e *Editor) capabilities(st lsp.ServerStatus) json.RawMessage {
	var caps map[string]json.RawMessage
	if json.Unmarshal(st.Capabilities, &caps) != nil || caps == nil {
		caps = map[string]json.RawMessage{}
	}
	enc, _ := json.Marshal(e.cfg.Encoding)
	caps["positionEncoding"] = enc
	b, _ := json.Marshal(caps)
	return b
}

// rfdError is an RFD error: -32602 with data.
func rfdError(msg string, d lspext.RFDErrorData) *proxy.Error {
	data, _ := json.Marshal(d)
	return &proxy.Error{Code: lspext.RFDCodeInvalidParams, Message: msg, Data: data}
}

// GoAndPython are gopls, with pull diagnostics on (textDocument/diagnostic,
// off by default), and pyright, started on shop.go and shop.py.
func GoAndPython() []Server {
	var out []Server
	for _, c := range lsp.DefaultServers() {
		switch c.Name {
		case "gopls":
			c.InitializationOptions = json.RawMessage(`{"symbolScope":"workspace","pullDiagnostics":true}`)
			out = append(out, Server{Config: c, Sample: "shop.go"})
		case "pyright":
			out = append(out, Server{Config: c, Sample: "shop.py"})
		}
	}
	return out
}
