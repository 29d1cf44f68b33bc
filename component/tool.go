package component

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Input is the `lsp` tool's arguments. The jsonschema descriptions are what
// the model reads.
type Input struct {
	Action string `json:"action" jsonschema:"what to do. Read: diagnostics, definition, type_definition, implementation, declaration, references, hover, signature_help, symbols, call_hierarchy, type_hierarchy, code_actions, capabilities, status, servers. Change (asks the user first): rename, rename_file, code_actions with apply, format, restart, request."`
	File   string `json:"file,omitempty" jsonschema:"file path relative to the workspace (or absolute inside it or in one of the session's additional directories). For diagnostics also a glob (src/**/*.go) or * for the whole workspace."`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line number of the position, as shown by the lsp tool or a file read."`
	Symbol string `json:"symbol,omitempty" jsonschema:"the identifier at the position: with line, the name as written on that line (name#2 = its second occurrence on the line); without line, a symbol name looked up in the workspace (ambiguous names list the candidates). Prefer this to column."`
	Column int    `json:"column,omitempty" jsonschema:"1-based column in characters on line; only when symbol cannot name the place."`

	EndLine   int `json:"end_line,omitempty" jsonschema:"1-based last line of a range (format, code_actions); defaults to line."`
	EndColumn int `json:"end_column,omitempty" jsonschema:"1-based column after the range's end on end_line; defaults to the end of that line."`

	Query     string `json:"query,omitempty" jsonschema:"symbols: search the whole workspace for this name (fuzzy, as the server matches). With file and no query, symbols lists the file's symbols."`
	Kind      string `json:"kind,omitempty" jsonschema:"symbols: keep only this symbol kind (function, method, class, struct, interface, variable, constant, field, type_parameter …); code_actions: keep only actions whose kind starts with this (quickfix, refactor, source.organizeImports)."`
	Severity  string `json:"severity,omitempty" jsonschema:"diagnostics: lowest severity shown: error, warning (default), info or hint."`
	Direction string `json:"direction,omitempty" jsonschema:"call_hierarchy: incoming (callers, default) or outgoing (callees); type_hierarchy: supertypes (default) or subtypes."`

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

const toolDescription = `Language-server answers for this workspace: compiler diagnostics, definitions, references, types, symbols, call graphs, and safe refactors.

Use it instead of grep to find where something is defined or used (definition, references, implementation), what a name's type or doc is (hover), what a file declares (symbols), and whether code compiles (diagnostics, after every edit). It understands the language: no false matches in comments or other scopes.

Positions: give file + line (1-based) + symbol, the identifier as written on that line; name#2 means its second occurrence on the line. column (1-based, characters) is a fallback. A symbol alone, without line, is looked up across the workspace.

Results are path:line:col relative to the workspace with the source line. Diagnostics say per server whether they are fresh for the current file content.

rename, rename_file, format and code_actions with apply=true change files after asking the user; without apply, rename, rename_file and format return a preview diff and code_actions lists the actions.`

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
	"index": true, "offset": true, "limit": true, "apply": true, "include_declaration": true}

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

// resolve returns the absolute path of a workspace file argument, refusing
// anything outside the workspace after resolving ".." and symbolic links.
func (s *Session) resolve(file string) (string, error) {
	p, _, err := s.resolveExists(file)
	return p, err
}

// resolveExists is resolve that also reports whether the file was seen to
// exist (false: not there, or not known).
func (s *Session) resolveExists(file string) (string, bool, error) {
	if file == "" {
		return "", false, errors.New("file is required")
	}
	if err := checkPathLen("path", file); err != nil {
		return "", false, err
	}
	p := s.absPath(file)
	// One EvalSymlinks answers an existing file inside the workspace (the
	// Root is resolved already); the full check, a few times the lstats,
	// runs only for the rest: files not there (yet) and refusals, whose
	// errors it words.
	real, rerr := filepath.EvalSymlinks(p)
	if rerr == nil && s.within(real) {
		return real, true, nil
	}
	if err := s.checkPath(p); err != nil {
		return "", false, fmt.Errorf("file %q is outside the workspace %s: %w", file, s.workspace(), err)
	}
	if rerr == nil {
		// Changed between the two looks: a link now points out.
		return "", false, fmt.Errorf("file %q resolves to %s, outside the workspace %s", file, real, s.workspace())
	}
	return p, false, nil
}

// target is a resolved position in a file.
type target struct {
	path string
	uri  string
	doc  *position.Document
	pos  position.Position
}

func (s *Session) readDoc(path string) (*position.Document, error) {
	doc, err := s.c.docs.read(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", relPath(s.Root, path), err)
	}
	return doc, nil
}

// position resolves file+line+symbol, file+line+column or a symbol alone.
func (s *Session) position(ctx context.Context, in Input) (*target, error) {
	if in.File == "" {
		if in.Symbol == "" {
			return nil, errors.New("give file and line with symbol (or column), or a symbol name alone")
		}
		return s.findSymbol(ctx, in.Symbol)
	}
	path, err := s.resolve(in.File)
	if err != nil {
		return nil, err
	}
	doc, err := s.readDoc(path)
	if err != nil {
		return nil, err
	}
	t := &target{path: path, uri: edit.URIFromPath(path), doc: doc}
	switch {
	case in.Line > 0 && in.Symbol != "":
		t.pos, err = doc.FromSymbol(in.Line, in.Symbol, position.UTF16)
	case in.Line > 0 && in.Column > 0:
		t.pos, err = doc.FromUser(in.Line, in.Column, position.UTF16)
	case in.Line > 0:
		return nil, fmt.Errorf("line %d needs symbol (the name on that line) or column; the line holds: %q", in.Line, doc.Line(in.Line-1))
	case in.Symbol != "":
		return s.findSymbol(ctx, in.Symbol)
	default:
		return nil, errors.New("give line with symbol (or column)")
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// findSymbol resolves a bare symbol name through workspace symbols.
func (s *Session) findSymbol(ctx context.Context, name string) (*target, error) {
	syms, err := s.workspaceSymbols(ctx, name)
	if err != nil {
		return nil, err
	}
	var exact []symbolInfo
	for _, sym := range syms {
		if sym.Name == name || strings.HasSuffix(sym.Name, "."+name) {
			exact = append(exact, sym)
		}
	}
	if len(exact) == 0 {
		err := fmt.Errorf("no symbol named %q in the workspace; give file and line", name)
		if n := s.c.emptyNote(ctx); n != "" {
			err = fmt.Errorf("%w\nnote: %s", err, n)
		}
		return nil, err
	}
	if len(exact) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "symbol %q is ambiguous; give file and line of one of:", name)
		for i, sym := range exact {
			if i == 20 {
				fmt.Fprintf(&b, "\n  … %d more", len(exact)-20)
				break
			}
			r := s.newRenderer()
			fmt.Fprintf(&b, "\n  %s %s %s", r.loc(sym.Location.URI, sym.Location.Range.Start), kindName(sym.Kind), sym.Name)
		}
		return nil, errors.New(b.String())
	}
	loc := exact[0].Location
	path, err := edit.PathFromURI(loc.URI)
	if err != nil {
		return nil, err
	}
	if path, err = s.resolve(path); err != nil {
		return nil, err
	}
	doc, err := s.readDoc(path)
	if err != nil {
		return nil, err
	}
	return &target{path: path, uri: loc.URI, doc: doc, pos: position.Position(loc.Range.Start)}, nil
}

func (s *Session) request(ctx context.Context, uri, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return s.c.backend.Request(ctx, uri, method, b)
}

func textDocPos(t *target) map[string]any {
	return map[string]any{"textDocument": map[string]string{"uri": t.uri}, "position": t.pos}
}

var locationMethods = map[string]string{
	"definition":      "textDocument/definition",
	"type_definition": "textDocument/typeDefinition",
	"implementation":  "textDocument/implementation",
	"declaration":     "textDocument/declaration",
}

func (s *Session) locations(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, t.uri, locationMethods[in.Action], textDocPos(t))
	if err != nil {
		return nil, err
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Action, err)
	}
	return s.renderLocations(ctx, in, strings.ReplaceAll(in.Action, "_", " "), locs, true, t), nil
}

func (s *Session) references(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	incl := in.IncludeDeclaration == nil || *in.IncludeDeclaration
	p := textDocPos(t)
	p["context"] = map[string]bool{"includeDeclaration": incl}
	raw, err := s.request(ctx, t.uri, "textDocument/references", p)
	if err != nil {
		return nil, err
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return nil, fmt.Errorf("references: %w", err)
	}
	return s.renderLocations(ctx, in, "references", locs, true, t), nil
}

func (s *Session) hover(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, t.uri, "textDocument/hover", textDocPos(t))
	if err != nil {
		return nil, err
	}
	text := hoverText(raw)
	if text == "" {
		text := "no hover information at " + s.newRenderer(t).loc(t.uri, lspPosition(t.pos))
		if n := s.c.emptyNote(ctx); n != "" {
			text += "\nnote: " + n
		}
		return &answer{text: text, data: map[string]any{"hover": nil}}, nil
	}
	return s.textAnswer(text, map[string]any{"hover": text}, "hover", nil), nil
}

func (s *Session) signatureHelp(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, t.uri, "textDocument/signatureHelp", textDocPos(t))
	if err != nil {
		return nil, err
	}
	var sh struct {
		Signatures []struct {
			Label         string          `json:"label"`
			Documentation json.RawMessage `json:"documentation"`
		} `json:"signatures"`
		ActiveSignature int `json:"activeSignature"`
		ActiveParameter int `json:"activeParameter"`
	}
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &sh) != nil || len(sh.Signatures) == 0 {
		return &answer{text: "no signature help here (the position must be inside a call's parentheses)"}, nil
	}
	var b strings.Builder
	for i, sig := range sh.Signatures {
		mark := " "
		if i == sh.ActiveSignature {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, sig.Label)
		if d := markupText(sig.Documentation); d != "" {
			b.WriteString(indent(d))
		}
	}
	fmt.Fprintf(&b, "active parameter: %d\n", sh.ActiveParameter+1)
	return s.textAnswer(b.String(), json.RawMessage(raw), "text", nil), nil
}

func (s *Session) servers(ctx context.Context, in Input) (*answer, error) {
	var (
		infos []lspext.ServerInfo
		err   error
	)
	if in.Action == "status" {
		infos, err = s.c.backend.Status(ctx)
	} else {
		uri := ""
		if in.File != "" {
			p, err := s.resolve(in.File)
			if err != nil {
				return nil, err
			}
			uri = edit.URIFromPath(p)
		}
		infos, err = s.c.backend.Servers(ctx, uri)
	}
	if err != nil {
		return nil, err
	}
	return s.textAnswer(renderServers(in.Action, infos), map[string]any{"servers": infos}, "text", nil), nil
}

func (s *Session) restart(ctx context.Context, in Input) (*answer, error) {
	if !s.cfg.allowed("restart") {
		return nil, errors.New("restart is turned off in acp-lsp's configuration (allow_mutating)")
	}
	uri := ""
	if in.File != "" {
		p, err := s.resolve(in.File)
		if err != nil {
			return nil, err
		}
		uri = edit.URIFromPath(p)
	}
	if in.Server == "" && uri == "" {
		return nil, errors.New("restart needs server (see action=status) or file")
	}
	if err := s.c.backend.Restart(ctx, in.Server, uri); err != nil {
		return nil, err
	}
	return &answer{text: "restarted " + cmp.Or(in.Server, in.File)}, nil
}

func (s *Session) rawRequest(ctx context.Context, in Input) (*answer, error) {
	if !s.cfg.allowed("request") {
		return nil, errors.New("raw requests are turned off in acp-lsp's configuration (tool.allow_raw_request); use the specific actions")
	}
	if in.Method == "" {
		return nil, errors.New("request needs method")
	}
	uri, path := "", ""
	if in.File != "" {
		p, err := s.resolve(in.File)
		if err != nil {
			return nil, err
		}
		uri, path = edit.URIFromPath(p), p
	}
	params, err := rawParams(in.Params)
	if err != nil {
		return nil, err
	}
	if err := s.checkParamURIs(params); err != nil {
		return nil, fmt.Errorf("request %s: %w; nothing was sent", in.Method, err)
	}
	if !readOnlyMethods[in.Method] {
		// Anything but a known query may change files: a command runs on
		// the server, which can answer it with workspace/applyEdit; a
		// server's own method does what it does. The editor is asked, as
		// for every change.
		shown := fmt.Sprintf("send %s to the language server", in.Method)
		if path != "" {
			shown += " for " + relPath(s.Root, path)
		}
		if len(params) > 0 {
			shown += " with params:\n" + headOf(string(params), 2000)
		}
		ok, err := s.askUser(ctx, nil, "raw request "+in.Method, shown+"\n")
		if err != nil {
			return nil, fmt.Errorf("request %s: %w; nothing was sent", in.Method, err)
		}
		if !ok {
			return nil, fmt.Errorf("request %s: permission denied by the user; nothing was sent", in.Method)
		}
	}
	raw, err := s.c.backend.Request(ctx, uri, in.Method, params)
	if err != nil {
		return nil, err
	}
	return s.textAnswer(string(raw), map[string]any{"result": json.RawMessage(cmp.Or(string(raw), "null"))}, "text", nil), nil
}

// readOnlyMethods are the LSP requests a raw request may send without
// asking: queries that answer and change nothing (edits they return, as
// rename's or formatting's, are only shown). Everything else, above all
// workspace/executeCommand and servers' own methods, may change files.
var readOnlyMethods = map[string]bool{
	"textDocument/hover": true, "textDocument/definition": true, "textDocument/declaration": true,
	"textDocument/typeDefinition": true, "textDocument/implementation": true, "textDocument/references": true,
	"textDocument/documentSymbol": true, "textDocument/documentHighlight": true, "textDocument/documentLink": true,
	"textDocument/codeLens": true, "textDocument/codeAction": true, "textDocument/completion": true,
	"textDocument/signatureHelp": true, "textDocument/foldingRange": true, "textDocument/selectionRange": true,
	"textDocument/semanticTokens/full": true, "textDocument/semanticTokens/full/delta": true,
	"textDocument/semanticTokens/range": true, "textDocument/inlayHint": true, "textDocument/inlineValue": true,
	"textDocument/moniker": true, "textDocument/documentColor": true, "textDocument/colorPresentation": true,
	"textDocument/linkedEditingRange": true, "textDocument/prepareRename": true, "textDocument/rename": true,
	"textDocument/formatting": true, "textDocument/rangeFormatting": true, "textDocument/onTypeFormatting": true,
	"textDocument/prepareCallHierarchy": true, "callHierarchy/incomingCalls": true, "callHierarchy/outgoingCalls": true,
	"textDocument/prepareTypeHierarchy": true, "typeHierarchy/supertypes": true, "typeHierarchy/subtypes": true,
	"textDocument/diagnostic": true, "workspace/diagnostic": true, "workspace/symbol": true,
	"workspace/willCreateFiles": true, "workspace/willRenameFiles": true, "workspace/willDeleteFiles": true,
	"codeAction/resolve": true, "codeLens/resolve": true, "completionItem/resolve": true,
	"documentLink/resolve": true, "inlayHint/resolve": true, "workspaceSymbol/resolve": true,
}

// headOf returns s cut to at most n bytes on a character boundary, with
// "…" when cut.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeBoundary(s, n)] + "…"
}

// runeBoundary returns the largest i ≤ n (n < len(s)) at which s can be cut
// without splitting a character.
func runeBoundary(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// rawParams accepts params as JSON or as a string holding JSON (clients
// that pass every argument as a string).
func rawParams(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if str, ok := v.(string); ok {
		if !json.Valid([]byte(str)) {
			return nil, fmt.Errorf("params is not JSON: %q", str)
		}
		return json.RawMessage(str), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return b, nil
}

// relPath is path relative to root, with forward slashes, or path itself
// when it is not below root.
func relPath(root, path string) string {
	// The usual case, a clean path below the root, without Rel's cleaning
	// of both: a workspace-symbol answer takes this once per result, and
	// Rel was a fourteenth of its work. Anything that cleaning could change
	// (".", "..", doubled or trailing separators) takes Rel.
	if rest, ok := strings.CutPrefix(path, root); ok && filepath.Separator == '/' {
		if root != "/" {
			rest, ok = strings.CutPrefix(rest, "/")
		}
		if ok && rest != "" && rest[0] != '.' && rest[0] != '/' && !strings.HasSuffix(rest, "/") &&
			!strings.Contains(rest, "/.") && !strings.Contains(rest, "//") && filepath.Clean(root) == root {
			return rest
		}
	}
	if rel, err := filepath.Rel(root, path); err == nil && !climbs(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// climbs reports whether rel, a filepath.Rel answer, leads out of its base:
// ".." or "../…", not a name that merely starts with two dots ("..data").
func climbs(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
