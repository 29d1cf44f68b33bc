package component

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// PermissionFunc asks the editor, through ACP session/request_permission in
// session sessionID, whether a change may be applied. diff shows the change.
// It returns false when the user declined or cancelled.
type PermissionFunc func(ctx context.Context, sessionID, title, diff string) (bool, error)

// Transport selects how the agent reaches the MCP server.
type Transport string

// Transports.
const (
	// TransportAuto is HTTP when the agent advertises
	// mcpCapabilities.http, stdio otherwise.
	TransportAuto  Transport = ""
	TransportHTTP  Transport = "http"
	TransportStdio Transport = "stdio"
)

// Defaults of the Config fields acp-lsp's configuration also sets. The
// configuration (internal/config) takes its defaults from these, so a
// zero Config (tests, benchmarks, other embedders) behaves as acp-lsp
// does out of the box: two copies of a number drift apart.
const (
	// DefaultBudget is Config.Budget's default, in characters
	// (tool.output_budget).
	DefaultBudget = 20000
	// DefaultPageSize is Config.PageSize's default (tool.page_size).
	DefaultPageSize = 50
	// DefaultCacheFiles is Config.CacheFiles's default
	// (diagnostics.cache_files).
	DefaultCacheFiles = 2000
	// DefaultCachePerFile is Config.CachePerFile's default
	// (diagnostics.per_file).
	DefaultCachePerFile = 200
	// DefaultInjectBudget is Config.InjectBudget's default, in characters
	// (diagnostics.injection_budget).
	DefaultInjectBudget = 2000
	// DefaultPermissionWait is Config.PermissionWait's default
	// (timeouts.permission): long enough to read a diff, short enough
	// that an agent is not kept waiting on a prompt nobody is watching.
	DefaultPermissionWait = 5 * time.Minute
)

// NoWait as Config.DiagnosticsWait answers diagnostics at once from what
// the servers have already said, each with its freshness verdict (stale,
// timeout, starting, indexing ...): a zero DiagnosticsWait cannot say it,
// since zero takes the default like every other zero field. Any negative
// duration means the same.
//
// The default wait itself is not the component's to know: zero travels
// as "the answering side's default" (`_lsp/diagnosticReport` wait 0), which
// is lsp.DefaultTimeouts.Diagnostics where a local server answers.
const NoWait time.Duration = -1

// Config configures a Tool. The zero value is usable: every zero
// field takes the default named in its comment.
type Config struct {
	// Name is the MCP server's name in mcpServers (default "acp-lsp").
	Name string
	// Transport picks the transport (default auto).
	Transport Transport
	// Executable is the absolute path of the acp-lsp binary for stdio
	// entries (default os.Executable()).
	Executable string
	// SocketDir is the private folder for stdio sockets (default a new
	// 0700 folder under os.TempDir()).
	SocketDir string
	// AllowMutating overrides which mutating actions are allowed, by
	// action name ("rename", "rename_file", "code_actions", "format",
	// "restart", "request"). Defaults: all on except "request".
	AllowMutating map[string]bool
	// AskPermission is called before any change is written; nil applies
	// without asking (tests, headless use).
	AskPermission PermissionFunc
	// PermissionWait bounds how long AskPermission waits for the user's
	// answer (default DefaultPermissionWait, 5m): then its ctx ends (the
	// editor's prompt is cancelled) and the call answers that permission
	// was not given in time.
	PermissionWait time.Duration
	// Budget is the per-call output budget in characters (default
	// DefaultBudget, 20000).
	Budget int
	// PageSize is the page length of long lists when a call gives no
	// limit (default DefaultPageSize, 50).
	PageSize int
	// DiagnosticsWait bounds how long a diagnostics call waits for fresh
	// answers (zero: the backend's default, 5s for acp-lsp's own
	// servers; NoWait, or any negative duration, does not wait).
	DiagnosticsWait time.Duration
	// CacheFiles and CachePerFile size the diagnostics cache (defaults
	// DefaultCacheFiles, 2000 files, and DefaultCachePerFile, 200 per
	// file).
	CacheFiles, CachePerFile int
	// NoDiagnosticsOnSave turns off fetching diagnostics on didSave.
	NoDiagnosticsOnSave bool
	// NoContextInjection turns off PromptContext.
	NoContextInjection bool
	// InjectWarnings adds warnings to PromptContext (errors only by
	// default).
	InjectWarnings bool
	// InjectBudget bounds PromptContext's block in characters (default
	// DefaultInjectBudget, 2000).
	InjectBudget int
	// MaxFileSize is the largest workspace file, in bytes, the tool reads
	// (to place a position, to show a result's line, to apply or preview
	// a server's edit); a position in a larger one, or an edit of one, is
	// refused naming its size and the cap (default
	// edit.DefaultMaxFileSize, 10 MiB, as lsp.Options.MaxFileSize;
	// negative: no cap).
	MaxFileSize int64
	// Logger receives the component's logs (default discard).
	Logger *slog.Logger
	// ForSession, when set, gives a session settings of its own: called
	// as the session is set up, before its request goes on, with the
	// session's workspace (its cwd, symlinks resolved) and this Config,
	// it returns the Config that session's calls use. Of it only what
	// one session's calls read counts (see WithSessionSettings; zero
	// values take their defaults); everything else belongs to the
	// Tool. It must not change base's AllowMutating map, and may be
	// called from several goroutines at once.
	ForSession func(root string, base Config) Config
}

// WithSessionSettings returns c with the settings one session can have of
// its own taken from s: AllowMutating, Budget, PageSize, DiagnosticsWait,
// NoContextInjection, InjectWarnings and InjectBudget. A ForSession hook
// returns it for a session with settings of its own.
func (c Config) WithSessionSettings(s Config) Config {
	c.AllowMutating = s.AllowMutating
	c.Budget, c.PageSize, c.DiagnosticsWait = s.Budget, s.PageSize, s.DiagnosticsWait
	c.NoContextInjection, c.InjectWarnings, c.InjectBudget = s.NoContextInjection, s.InjectWarnings, s.InjectBudget
	return c
}

func (c *Config) fill() error {
	if c.Name == "" {
		c.Name = "acp-lsp"
	}
	if c.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("component: find own executable: %w", err)
		}
		c.Executable = exe
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	if c.DiagnosticsWait < 0 {
		c.DiagnosticsWait = NoWait // one spelling for the backend
	}
	if c.CacheFiles <= 0 {
		c.CacheFiles = DefaultCacheFiles
	}
	if c.CachePerFile <= 0 {
		c.CachePerFile = DefaultCachePerFile
	}
	if c.InjectBudget <= 0 {
		c.InjectBudget = DefaultInjectBudget
	}
	if c.PermissionWait <= 0 {
		c.PermissionWait = DefaultPermissionWait
	}
	if c.MaxFileSize == 0 {
		c.MaxFileSize = edit.DefaultMaxFileSize
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func (c *Config) allowed(action string) bool {
	if v, ok := c.AllowMutating[action]; ok {
		return v
	}
	return action != "request"
}

// Tool serves the `lsp` tool to agent sessions and keeps the
// diagnostics cache. Its methods are safe for concurrent use.
type Tool struct {
	cfg     Config
	backend Backend
	cache   *DiagCache
	log     *slog.Logger

	// lifetime of listeners and background fetches.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// fetches counts didSave diagnostics fetches in flight.
	fetches sync.WaitGroup

	// docs are the files the tool read, kept while unchanged on disk.
	docs docCache

	// fast are the tool calls the HTTP fast path is answering.
	fast fastCalls
	// noFast turns the fast path off and fastHits counts its answers
	// (tests compare both paths).
	noFast   atomic.Bool
	fastHits atomic.Int64

	httpLn   net.Listener
	httpSrv  *http.Server
	sockDir  string
	ownsSock bool

	// locks admit one applying action at a time per workspace.
	locks workspaceLocks

	mu       sync.Mutex
	sessions map[string]*Session // by token
	byACP    map[string]*Session // by ACP session id
	sockets  map[*Session]net.Listener
}

// Session is one agent session: its workspace and what the agent changed.
type Session struct {
	c     *Tool
	token string
	// sock names the session's socket in the socket folder. It is on the
	// bridge's command line, which every local user can read, so it owes
	// nothing to token; the folder (0700) is what keeps others out.
	sock string
	// cfg holds the settings of this session's calls: the Tool's
	// Config, or what Config.ForSession gave.
	cfg *Config
	// Root is the session's workspace (its cwd, symlinks resolved).
	Root string
	// Extra are the session's further workspace roots, its
	// additionalDirectories (symlinks resolved): its files may be in any
	// root (roots.go).
	Extra []string
	// checks are the path checks of Root and then of each of Extra.
	checks []func(string) error
	// foreign remembers paths beside the workspace seen with no link on
	// them, for answers to come (render.go).
	foreign plainPaths

	mu sync.Mutex
	// acpID is the ACP session id, once known.
	acpID string
	// touched are files (normalized URIs) written by the agent or saved
	// by the editor since the last turn.
	touched map[string]bool
	// reported are the errors already shown per file, keyed by
	// line:message.
	reported map[string]map[string]bool
	server   *mcp.Server
	// unredact ends the chain trace's redaction of token (Stage, through
	// proxy.Hop.Redact) when the session closes.
	unredact func()
}

// New returns a Tool answering through backend. Call Start before
// handing out entries, and Close when done.
func New(cfg Config, backend Backend) (*Tool, error) {
	if backend == nil {
		return nil, errors.New("component: nil backend")
	}
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	return &Tool{
		cfg:      cfg,
		backend:  marking{backend},
		cache:    NewDiagCache(cfg.CacheFiles, cfg.CachePerFile),
		docs:     docCache{limit: cfg.MaxFileSize},
		log:      cfg.Logger,
		sessions: map[string]*Session{},
		byACP:    map[string]*Session{},
		sockets:  map[*Session]net.Listener{},
	}, nil
}

// Cache returns the diagnostics cache.
func (c *Tool) Cache() *DiagCache { return c.cache }

// Start opens the HTTP listener on 127.0.0.1 and the private socket folder.
// Entries handed out afterwards point at servers already accepting.
func (c *Tool) Start(ctx context.Context) error {
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("component: listen: %w", err)
	}
	c.httpLn = ln
	handler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s := c.sessionFromRequest(r)
		if s == nil {
			return nil
		}
		return s.server
	}, &mcp.StreamableHTTPOptions{Logger: c.log, JSONResponse: true})
	c.httpSrv = &http.Server{
		Handler:           c.authenticate(handler),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return c.ctx },
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := c.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error("mcp http server", "err", err)
		}
	}()
	dir := c.cfg.SocketDir
	if dir == "" {
		dir, err = os.MkdirTemp("", "acp-lsp-")
		if err != nil {
			return fmt.Errorf("component: socket folder: %w", err)
		}
		c.ownsSock = true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("component: socket folder: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("component: socket folder: %w", err)
	}
	c.sockDir = dir
	return nil
}

// Close stops the listeners, ends open MCP connections and removes the
// socket folder it created.
func (c *Tool) Close() error {
	if c.cancel == nil {
		return nil
	}
	c.cancel()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.httpSrv.Shutdown(sctx)
	if err != nil {
		c.httpSrv.Close()
	}
	c.mu.Lock()
	for _, l := range c.sockets {
		l.Close()
	}
	var servers []*mcp.Server
	for _, s := range c.sessions {
		servers = append(servers, s.server)
	}
	c.mu.Unlock()
	// HTTP clients that never sent DELETE leave sessions open.
	for _, srv := range servers {
		for ss := range srv.Sessions() {
			ss.Close()
		}
	}
	c.wg.Wait()
	c.fetches.Wait()
	if c.ownsSock {
		os.RemoveAll(c.sockDir)
	}
	return nil
}

// HTTPAddr returns the HTTP listener's address.
func (c *Tool) HTTPAddr() string { return c.httpLn.Addr().String() }

// SocketDir returns the private socket folder.
func (c *Tool) SocketDir() string { return c.sockDir }

// newToken returns a session's secret: its HTTP bearer token.
func newToken() string { return randomHex(24) }

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// authenticate refuses a request from a browser page that is not this
// server (ownOrigin), then requires "Authorization: Bearer TOKEN" of a live
// session, and an Mcp-Session-Id, when given, of an MCP session of that
// session's server: the SDK's handler finds MCP sessions by id alone,
// across the servers of all sessions, so a token must not reach another
// workspace's MCP session. A plain tools/call then takes the fast path
// (fastpath.go); everything else goes to the SDK. Both paths pass here.
func (c *Tool) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.ownOrigin(r) {
			http.Error(w, "forbidden: Origin is not this server", http.StatusForbidden)
			return
		}
		s := c.sessionFromRequest(r)
		if s == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="acp-lsp"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && !s.ownsMCPSession(sid) {
			// The SDK's answer for an id it does not know.
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if c.serveFast(w, r, s) {
			return
		}
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") != "" && !s.ownsMCPSession(r.Header.Get("Mcp-Session-Id")) {
			// The SDK closed the MCP session: so end its calls.
			c.fast.cancelSession(r.Header.Get("Mcp-Session-Id"))
		}
	})
}

// ownOrigin reports whether every Origin header of r names this server
// (ownOrigin). A request without Origin is not from a browser and passes.
// The MCP spec (Streamable HTTP) asks servers to check Origin against DNS
// rebinding: a page that had its name rebound to 127.0.0.1 sends its own
// origin.
func (c *Tool) ownOrigin(r *http.Request) bool {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	_, port, err := net.SplitHostPort(c.HTTPAddr())
	if err != nil {
		return false
	}
	for _, o := range origins {
		if !isOwnOrigin(o, port) {
			return false
		}
	}
	return true
}

// isOwnOrigin reports whether the origin o is "http://HOST:PORT" with a
// loopback HOST (as the SDK's DNS rebinding protection decides it for
// Host) and this server's port: nothing else, no user, path or escapes.
func isOwnOrigin(o, port string) bool {
	const scheme = "http://"
	if len(o) < len(scheme) || !strings.EqualFold(o[:len(scheme)], scheme) {
		return false
	}
	host, p, err := net.SplitHostPort(o[len(scheme):])
	return err == nil && p == port && loopback(strings.ToLower(host))
}

// bearerToken returns the token of r's "Authorization: Bearer TOKEN"; the
// scheme is matched without regard to case (RFC 9110 §11.1), and may be
// followed by several spaces (§11.4).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimLeft(tok, " ")
	return tok, tok != ""
}

func (c *Tool) sessionFromRequest(r *http.Request) *Session {
	tok, ok := bearerToken(r)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, s := range c.sessions {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
			return s
		}
	}
	return nil
}

// NewSession registers a session whose workspace is cwd (absolute) and the
// additional directories extra (ACP's additionalDirectories). An extra
// directory that is not absolute or cannot be resolved is left out with a
// warning: the session works in the others. The session's MCP server is
// reachable over both transports when this returns.
func (c *Tool) NewSession(cwd string, extra ...string) (*Session, error) {
	root, check, err := workspaceRoot(cwd)
	if err != nil {
		return nil, fmt.Errorf("component: session cwd: %w", err)
	}
	var roots []string
	checks := []func(string) error{check}
	for _, dir := range extra {
		real, rc, err := workspaceRoot(dir)
		if err != nil {
			c.log.Warn("additional directory left out of the session's workspace", "dir", dir, "err", err)
			continue
		}
		if real == root || slices.Contains(roots, real) {
			continue
		}
		roots, checks = append(roots, real), append(checks, rc)
	}
	cfg := &c.cfg
	if c.cfg.ForSession != nil {
		sc := c.cfg.ForSession(root, c.cfg)
		if err := sc.fill(); err != nil {
			return nil, err
		}
		cfg = &sc
	}
	s := &Session{c: c, token: newToken(), sock: randomHex(8) + ".sock", Root: root, Extra: roots, checks: checks, cfg: cfg,
		touched: map[string]bool{}, reported: map[string]map[string]bool{}}
	s.server = c.newServer(s)
	ln, err := net.Listen("unix", c.socketPath(s))
	if err != nil {
		return nil, fmt.Errorf("component: session socket: %w", err)
	}
	c.mu.Lock()
	c.sessions[s.token] = s
	c.sockets[s] = ln
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.serveSocket(s, ln)
	}()
	return s, nil
}

func (c *Tool) socketPath(s *Session) string {
	return filepath.Join(c.sockDir, s.sock)
}

func (c *Tool) serveSocket(s *Session, ln net.Listener) {
	defer os.Remove(c.socketPath(s))
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			stop := context.AfterFunc(c.ctx, func() { conn.Close() })
			defer stop()
			ss, err := s.server.Connect(c.ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
			if err != nil {
				conn.Close()
				return
			}
			ss.Wait()
			conn.Close()
		}()
	}
}

// CloseSession ends a session (on ACP session/close): its token stops
// working, its socket is removed and its MCP connections end.
func (c *Tool) CloseSession(s *Session) {
	c.mu.Lock()
	delete(c.sessions, s.token)
	if s.acpID != "" && c.byACP[s.acpID] == s {
		delete(c.byACP, s.acpID)
	}
	ln := c.sockets[s]
	delete(c.sockets, s)
	c.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	s.mu.Lock()
	unredact := s.unredact
	s.unredact = nil
	s.mu.Unlock()
	if unredact != nil {
		unredact()
	}
	for ss := range s.server.Sessions() {
		if id := ss.ID(); id != "" {
			c.fast.cancelSession(id)
		}
		ss.Close()
	}
}

// Bind records the ACP session id the agent gave the session (from the
// session/new response, or the params of load/resume/fork).
func (c *Tool) Bind(s *Session, acpSessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	s.acpID = acpSessionID
	s.mu.Unlock()
	c.byACP[acpSessionID] = s
}

// SessionByACP returns the session bound to an ACP session id.
func (c *Tool) SessionByACP(id string) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byACP[id]
}

func (s *Session) acpSessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acpID
}

// Entry returns the mcpServers entry (raw JSON) for the session over t.
// The server is accepting when the entry is returned.
func (c *Tool) Entry(s *Session, t Transport) json.RawMessage {
	type kv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	var v any
	if t == TransportHTTP {
		v = struct {
			Type    string `json:"type"`
			Name    string `json:"name"`
			URL     string `json:"url"`
			Headers []kv   `json:"headers"`
		}{"http", c.cfg.Name, "http://" + c.HTTPAddr() + "/mcp", []kv{{"Authorization", "Bearer " + s.token}}}
	} else {
		v = struct {
			Name    string   `json:"name"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Env     []kv     `json:"env"`
		}{c.cfg.Name, c.cfg.Executable, []string{"mcp-bridge", "--socket", c.socketPath(s)}, []kv{}}
	}
	b, _ := json.Marshal(v)
	return b
}

// PatchSessionSetup creates a session for the params of a session setup
// request (session/new|load|resume|fork) and returns the params with the
// session's MCP entry appended to mcpServers, every other byte as the
// client sent it. agentHTTP is the agent's mcpCapabilities.http. For
// load/resume/fork the ACP session id in params is bound at once; for
// session/new call Bind with the id from the response.
func (c *Tool) PatchSessionSetup(params json.RawMessage, agentHTTP bool) (json.RawMessage, *Session, error) {
	out, s, id, err := c.patchSessionSetup(params, agentHTTP)
	if err == nil && id != "" {
		c.Bind(s, id)
	}
	return out, s, err
}

// patchSessionSetup is PatchSessionSetup without binding: it also returns
// the session id found in params ("" for session/new).
func (c *Tool) patchSessionSetup(params json.RawMessage, agentHTTP bool) (json.RawMessage, *Session, string, error) {
	rawCwd, ok := proxy.GetPath(params, "cwd")
	if !ok {
		return nil, nil, "", errors.New("component: session setup without cwd")
	}
	var cwd string
	if err := json.Unmarshal(rawCwd, &cwd); err != nil {
		return nil, nil, "", fmt.Errorf("component: session setup cwd: %w", err)
	}
	var extra []string
	if raw, ok := proxy.GetPath(params, "additionalDirectories"); ok {
		if err := json.Unmarshal(raw, &extra); err != nil {
			// The agent judges its own params; the tool's workspace is
			// then the cwd alone.
			c.log.Warn("session setup additionalDirectories is not a list of paths; the tool's workspace is the cwd alone", "err", err)
			extra = nil
		}
	}
	s, err := c.NewSession(cwd, extra...)
	if err != nil {
		return nil, nil, "", err
	}
	t := c.cfg.Transport
	if t == TransportAuto {
		t = TransportStdio
		if agentHTTP {
			t = TransportHTTP
		}
	}
	out, err := AppendMCPServer(params, c.Entry(s, t))
	if err != nil {
		c.CloseSession(s)
		return nil, nil, "", err
	}
	var id string
	if rawID, ok := proxy.GetPath(params, "sessionId"); ok {
		json.Unmarshal(rawID, &id)
	}
	return out, s, id, nil
}

// AppendMCPServer appends entry to params.mcpServers, keeping every other
// byte of params.
func AppendMCPServer(params, entry json.RawMessage) (json.RawMessage, error) {
	// proxy.AppendPath scans only as deep as the path; trailing bytes
	// after the object would survive into the patched message.
	if !json.Valid(params) {
		return nil, errors.New("component: patch mcpServers: params are not valid JSON")
	}
	out, err := proxy.AppendPath(params, entry, "mcpServers")
	if err != nil {
		return nil, fmt.Errorf("component: patch mcpServers: %w", err)
	}
	return out, nil
}

// HandleNotification takes an `_lsp/*` notification coming down the chain
// (publishDiagnostics, didSave, in either spelling) and reports whether it
// was one the component consumes. The caller still forwards it to the agent
// when the agent asked for such notifications.
func (c *Tool) HandleNotification(ctx context.Context, method string, params json.RawMessage) bool {
	m, ok := lspext.Canonical(method)
	if !ok {
		return false
	}
	switch m {
	case lspext.PublishDiagnostics:
		var p lspext.PublishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
			c.log.Warn("malformed publishDiagnostics", "err", err)
			return true
		}
		if _, err := c.cache.Publish(p); err != nil {
			c.log.Warn("publishDiagnostics", "err", err)
		}
		return true
	case lspext.DidSave:
		var p lspext.URIParams
		if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
			c.log.Warn("malformed didSave", "err", err)
			return true
		}
		c.markTouched(p.URI)
		if !c.cfg.NoDiagnosticsOnSave && c.ctx != nil {
			c.fetches.Add(1)
			go func() {
				defer c.fetches.Done()
				c.refresh(c.ctx, []string{p.URI})
			}()
		}
		return true
	}
	return false
}

// refresh fetches diagnostics of uris into the cache.
func (c *Tool) refresh(ctx context.Context, uris []string) *lspext.DiagnosticReportResult {
	rep, err := c.backend.DiagnosticReport(ctx, uris, c.cfg.DiagnosticsWait)
	if err != nil {
		c.log.Warn("diagnostics refresh", "err", err)
		return nil
	}
	c.store(rep)
	return rep
}

// decodedFile is one file of a diagnostic report, decoded.
type decodedFile struct {
	diags []Diagnostic
	err   error
}

// store puts a report's diagnostics into the cache and returns them
// decoded, file by file (the cache keeps the slices: read them only).
func (c *Tool) store(rep *lspext.DiagnosticReportResult) []decodedFile {
	out := make([]decodedFile, len(rep.Files))
	for i, f := range rep.Files {
		diags, err := decodeDiagnostics(f.Diagnostics, true)
		out[i] = decodedFile{diags, err}
		if err != nil {
			c.log.Warn("diagnostic report", "uri", f.URI, "err", err)
			continue
		}
		c.cache.Put(f.URI, f.Server, nil, diags)
	}
	return out
}

// markTouched marks a file as changed for every session whose workspace
// holds it.
func (c *Tool) markTouched(uri string) {
	key := NormalizeURI(uri)
	path, err := edit.PathFromURI(key)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.sessions {
		if s.checkPath(path) == nil {
			s.mu.Lock()
			s.touched[key] = true
			s.mu.Unlock()
		}
	}
}

// MarkWritten records that the agent wrote path (e.g. fs/write_text_file
// confirmed by the editor), for PromptContext.
func (c *Tool) MarkWritten(path string) { c.markTouched(edit.URIFromPath(path)) }

// PromptContext returns one text block with the errors (and warnings when
// configured) that are new since the last turn in files the agent wrote or
// the editor saved, within the injection budget, or "" when nothing is new.
// Call it when a session/prompt goes downstream; it consumes the "touched"
// state of the session.
func (c *Tool) PromptContext(acpSessionID string) string {
	s := c.SessionByACP(acpSessionID)
	if s == nil || s.cfg.NoContextInjection {
		return ""
	}
	s.mu.Lock()
	touched := s.touched
	s.touched = map[string]bool{}
	s.mu.Unlock()
	var lines []string
	for _, uri := range slices.Sorted(maps.Keys(touched)) {
		diags, ok := c.cache.Get(uri)
		if !ok {
			continue
		}
		path, _ := edit.PathFromURI(uri)
		rel := relPath(s.Root, path)
		var fresh []Diagnostic
		s.mu.Lock()
		seen := s.reported[uri]
		now := map[string]bool{}
		nth := map[string]int{}
		for _, d := range diags {
			if d.Severity > 2 || (d.Severity == 2 && !s.cfg.InjectWarnings) {
				continue
			}
			// A problem is known by its message and which occurrence of
			// that message it is, not by its line: an edit above it moves
			// it without making it new.
			nth[d.Message]++
			key := strconv.Itoa(nth[d.Message]) + ":" + d.Message
			now[key] = true
			if seen[key] {
				continue
			}
			fresh = append(fresh, d)
		}
		s.reported[uri] = now
		s.mu.Unlock()
		if len(fresh) == 0 {
			continue
		}
		// Columns as the tool gives them, in characters: the cached
		// positions count UTF-16 units, as every _lsp/* position does.
		var doc *position.Document
		if fi, err := os.Stat(path); err == nil && fi.Size() <= docCacheFile {
			doc, _ = c.docs.readWith(path, fi)
		}
		for _, d := range fresh {
			line, col := int(d.Range.Start.Line)+1, int(d.Range.Start.Character)+1
			if doc != nil {
				if l, c, err := doc.ToUser(position.Position(d.Range.Start), position.UTF16); err == nil {
					line, col = l, c
				}
			}
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s", rel, line, col, severityName(d.Severity), firstLine(d.Message)))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("New problems reported by language servers since your last turn:\n")
	more := func(n int) string {
		return fmt.Sprintf("… and %d more (call the lsp tool with action=diagnostics)\n", n)
	}
	// Room for the trailer is kept whenever some lines may not fit, so the
	// block never exceeds the budget.
	room := s.cfg.InjectBudget - len(more(len(lines)))
	total := b.Len()
	for _, l := range lines {
		total += len(l) + 1
	}
	if total <= s.cfg.InjectBudget {
		room = s.cfg.InjectBudget
	}
	for i, l := range lines {
		if b.Len()+len(l)+1 > room {
			b.WriteString(more(len(lines) - i))
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// InjectPrompt appends PromptContext's block to the prompt array of raw
// session/prompt params, keeping every other byte; params come back
// unchanged when there is nothing to add.
func (c *Tool) InjectPrompt(params json.RawMessage) json.RawMessage {
	rawID, ok := proxy.GetPath(params, "sessionId")
	if !ok {
		return params
	}
	var id string
	if json.Unmarshal(rawID, &id) != nil {
		return params
	}
	text := c.PromptContext(id)
	if text == "" {
		return params
	}
	block, _ := json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", text})
	out, err := proxy.AppendPath(params, block, "prompt")
	if err != nil {
		return params
	}
	return out
}

// rejectDiscover answers server/discover with -32601 so clients fall back
// to initialize with the protocol versions acp-lsp is tested with.
func rejectDiscover(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "server/discover" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: server/discover"}
		}
		return next(ctx, method, req)
	}
}

var _ io.Closer = (*net.UnixListener)(nil)
