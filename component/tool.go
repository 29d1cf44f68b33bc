package component

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

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
	// outlines are files' document symbols, kept while their content is
	// the same (enclosing.go).
	outlines *outlineCache

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
		outlines: newOutlineCache(),
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
		s.watch.stop()
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

// Input is the `lsp` tool's arguments. The jsonschema descriptions are what
// the model reads.
type Input struct {
	Action string `json:"action" jsonschema:"what to do. Read: diagnostics, check, definition, type_definition, implementation, declaration, references, impact, hover, signature_help, symbols, call_hierarchy, type_hierarchy, code_actions, capabilities, status, servers. Change (asks the user first): rename, rename_file, code_actions with apply, format, restart, request."`
	File   string `json:"file,omitempty" jsonschema:"file path relative to the workspace (or absolute inside it or in one of the session's additional directories). For diagnostics also a glob (src/**/*.go) or * for the whole workspace."`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line number of the position, as shown by the lsp tool or a file read."`
	Symbol string `json:"symbol,omitempty" jsonschema:"the identifier at the position: with line, the name as written on that line (name#2 = its second occurrence on the line); without line, a symbol name looked up in the workspace (ambiguous names list the candidates). Prefer this to column."`
	Column int    `json:"column,omitempty" jsonschema:"1-based column in characters on line; only when symbol cannot name the place."`

	EndLine   int `json:"end_line,omitempty" jsonschema:"1-based last line of a range (format, code_actions); defaults to line."`
	EndColumn int `json:"end_column,omitempty" jsonschema:"1-based column after the range's end on end_line; defaults to the end of that line."`

	Query     string `json:"query,omitempty" jsonschema:"symbols: search the whole workspace for this name (fuzzy, as the server matches). With file and no query, symbols lists the file's symbols."`
	Kind      string `json:"kind,omitempty" jsonschema:"symbols: keep only this symbol kind (function, method, class, struct, interface, variable, constant, field, type_parameter …); code_actions: keep only actions whose kind starts with this (quickfix, refactor, source.organizeImports)."`
	Severity  string `json:"severity,omitempty" jsonschema:"diagnostics (compile and type errors, warnings): lowest shown: error, warning (default), info or hint."`
	Direction string `json:"direction,omitempty" jsonschema:"call_hierarchy: incoming (callers, default) or outgoing (callees); type_hierarchy: supertypes (default) or subtypes."`
	Depth     int    `json:"depth,omitempty" jsonschema:"impact: how many levels of callers to walk up (default 2, at most 5)."`

	OldText string `json:"old_text,omitempty" jsonschema:"check: the text the edit replaces, exactly as in the file and occurring once."`
	NewText string `json:"new_text,omitempty" jsonschema:"check: the replacement of old_text, or without old_text the file's whole new content. Nothing is written: the answer lists the diagnostics (type errors, warnings) the edit adds and removes."`

	NewName            string `json:"new_name,omitempty" jsonschema:"rename: the new identifier; rename_file: the new path relative to the workspace."`
	Apply              bool   `json:"apply,omitempty" jsonschema:"rename, rename_file, format, code_actions: write the change (after the user allows it). Without it you get a preview diff and nothing changes."`
	ActionIndex        int    `json:"index,omitempty" jsonschema:"code_actions with apply: the 1-based number of the action from the list."`
	IncludeDeclaration *bool  `json:"include_declaration,omitempty" jsonschema:"references: include the declaration itself (default true)."`

	Server string `json:"server,omitempty" jsonschema:"restart, request: the server name from servers/status (else the server of file)."`
	Method string `json:"method,omitempty" jsonschema:"request: raw LSP method, e.g. textDocument/foldingRange."`
	Params any    `json:"params,omitempty" jsonschema:"request: raw LSP params as a JSON object (or a string holding one); 0-based lines, UTF-16 characters."`

	Offset int `json:"offset,omitempty" jsonschema:"paging: skip this many results (the note at the end of a cut answer gives the next offset)."`
	Limit  int `json:"limit,omitempty" jsonschema:"paging: at most this many results (default 50, acp-lsp's tool.page_size)."`
}

const toolDescription = `Language server (LSP) answers for this workspace: compile and type errors, warnings (diagnostics); go to definition, type definition, implementation; find references; impact (what a change breaks); check (errors an edit would add or fix, unwritten); hover (type, docs); signature help; file and workspace symbols; call hierarchy (callers, callees), type hierarchy; code actions; rename, format.

Use it instead of grep to find where a name is defined or used: no false matches in comments or other scopes. Check diagnostics after edits.

Positions: file + line (1-based) + symbol, the identifier as written on that line; name#2 is its second occurrence there. column (1-based, characters) is a fallback. A symbol without line is looked up in the workspace.

Results: workspace-relative path:line:col, enclosing symbol, source line. Diagnostics say per server if they are fresh.

rename, rename_file, format and code_actions with apply=true change files after asking the user; without apply they return a preview diff (code_actions: the list of actions).`

// inputSchema is the tool's input schema, built once from Input: the SDK's
// typed AddTool would build and resolve it for every session and validate
// every call against it, which cost a third of a call's allocations.
var inputSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.For[Input](nil)
})

func (c *Tool) newServer(s *Session) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: c.cfg.Name, Version: "1"}, &mcp.ServerOptions{
		Logger:       c.log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	srv.AddReceivingMiddleware(rejectDiscover, c.cancelFast)
	schema, err := inputSchema()
	if err != nil {
		panic(fmt.Sprintf("component: input schema: %v", err)) // Input is fixed at compile time
	}
	srv.AddTool(&mcp.Tool{Name: "lsp", Description: toolDescription, InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.toolResult(ctx, req.Params.Arguments), nil
	})
	return srv
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

// toolResult answers one call of the lsp tool with raw arguments args. It
// is the tool's handler on every path: the SDK's (stdio, and HTTP for
// anything but a plain call) and the HTTP fast path (fastpath.go).
func (s *Session) toolResult(ctx context.Context, args json.RawMessage) *mcp.CallToolResult {
	in, err := decodeInput(args)
	if err != nil {
		return toolError(err)
	}
	res, err := s.call(ctx, in)
	if err != nil {
		return toolError(s.c.explain(ctx, err))
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.text}}}
	if !s.cfg.StructuredContent {
		// The text alone: agents that find structuredContent give the
		// model that instead of the text, or both (docs/tool.md, Output).
		return out
	}
	switch d := res.data.(type) {
	case nil:
	case encoded:
		if d != nil {
			out.StructuredContent = json.RawMessage(d)
		}
	default:
		if b, err := json.Marshal(d); err == nil {
			out.StructuredContent = json.RawMessage(b)
		}
	}
	return out
}

// encoded is structuredContent that json.Marshal wrote already (compact,
// HTML escaped), to measure it against the data budget: it is passed on
// as it is, where marshalling it again would scan it once more.
type encoded []byte

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// scalarArgs are the arguments that are numbers or booleans, which some
// clients send as strings ("line":"5").
var scalarArgs = map[string]bool{"line": true, "column": true, "end_line": true, "end_column": true,
	"index": true, "offset": true, "limit": true, "apply": true, "include_declaration": true, "depth": true}

// decodeInput reads the tool's arguments. Unknown arguments are refused
// with the list of known ones; numbers and booleans given as strings are
// accepted.
func decodeInput(raw json.RawMessage) (Input, error) {
	var in Input
	if len(raw) == 0 || string(raw) == "null" {
		return in, nil
	}
	err := strictDecode(raw, &in)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for k, v := range m {
				var str string
				if scalarArgs[k] && len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil {
					str = strings.TrimSpace(str)
					if _, nerr := strconv.Atoi(str); nerr == nil || str == "true" || str == "false" {
						m[k] = json.RawMessage(str)
					}
				}
			}
			b, _ := json.Marshal(m)
			in = Input{}
			if err = strictDecode(b, &in); errors.As(err, &te) {
				return in, fmt.Errorf("argument %s must be a %s, not a %s", te.Field, te.Type, te.Value)
			}
		}
	}
	if err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return in, fmt.Errorf("unknown argument %s; the lsp tool takes: %s", name, strings.Join(inputFields(), ", "))
		}
		return in, fmt.Errorf("arguments: %w", err)
	}
	return in, nil
}

func strictDecode(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("arguments: trailing data after the object")
	}
	return nil
}

var inputFields = sync.OnceValue(func() []string {
	var out []string
	t := reflect.TypeFor[Input]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
})

// answer is one tool answer: text for the model, data for
// structuredContent. data describes what text shows, cut as text is cut
// to the budget, and its JSON takes at most dataBudget bytes (listings
// shortened to the total alone aside: those take what their title, notes
// and detail take, as their text does).
type answer struct {
	text string
	data any
}

// applies reports whether in writes files when it succeeds.
func applies(in Input) bool {
	switch in.Action {
	case "rename", "rename_file", "format", "code_actions":
		return in.Apply
	}
	return false
}

func (s *Session) call(ctx context.Context, in Input) (*answer, error) {
	if in.Limit <= 0 {
		in.Limit = s.cfg.PageSize
	}
	var lk *editLock
	if applies(in) {
		lk = &editLock{s: s}
		if err := lk.acquire(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Action, err)
		}
		defer lk.unlock()
	}
	switch in.Action {
	case "diagnostics":
		return s.diagnostics(ctx, in)
	case "definition", "type_definition", "implementation", "declaration":
		return s.locations(ctx, in)
	case "references":
		return s.references(ctx, in)
	case "impact":
		return s.impact(ctx, in)
	case "check":
		return s.check(ctx, in)
	case "hover":
		return s.hover(ctx, in)
	case "signature_help":
		return s.signatureHelp(ctx, in)
	case "symbols":
		return s.symbols(ctx, in)
	case "call_hierarchy":
		return s.callHierarchy(ctx, in)
	case "type_hierarchy":
		return s.typeHierarchy(ctx, in)
	case "code_actions":
		return s.codeActions(ctx, lk, in)
	case "capabilities", "servers", "status":
		return s.servers(ctx, in)
	case "rename":
		return s.rename(ctx, lk, in)
	case "rename_file":
		return s.renameFile(ctx, lk, in)
	case "format":
		return s.format(ctx, lk, in)
	case "restart":
		return s.restart(ctx, in)
	case "request":
		return s.rawRequest(ctx, in)
	case "":
		return nil, errors.New("action is required")
	}
	return nil, fmt.Errorf("unknown action %q", in.Action)
}

func (s *Session) request(ctx context.Context, uri, method string, params any) (json.RawMessage, error) {
	res, err := s.ask(ctx, uri, method, params)
	return res.Result, err
}

// peek is ask for a file read in passing (Peeker), as ask when the
// backend cannot peek.
func (s *Session) peek(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	if p, ok := s.c.backend.(Peeker); ok {
		return p.Peek(ctx, uri, method, params)
	}
	return s.c.backend.Request(ctx, uri, method, params)
}

// ask is request with the readiness of the servers that answered, for
// the lists that may be incomplete while they load (readiness.go).
func (s *Session) ask(ctx context.Context, uri, method string, params any) (lspext.RequestResult, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return lspext.RequestResult{}, err
	}
	return s.c.backend.Request(ctx, uri, method, b)
}
