package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Op is one kind of question a row asks.
type Op string

// The operations of the LSP rows.
const (
	OpHover       Op = "hover"
	OpDefinition  Op = "definition"
	OpReferences  Op = "references"
	OpSymbols     Op = "workspace symbols"
	OpDiagnostics Op = "diagnostics"
)

// Target names the places in the workspace the rows ask about; every
// subject gets the same ones, translated into its own arguments.
type Target struct {
	// Hover: a declaration's name on its line.
	HoverFile   string
	HoverLine   int // 1-based
	HoverSymbol string
	HoverChar   int // 0-based, UTF-16
	// HoverWant must appear in a right hover answer.
	HoverWant string

	// Definition: a use of a name declared in another file.
	UseFile   string
	UseLine   int // 1-based
	UseSymbol string
	UseChar   int
	// DeclFile and DeclLine are where it is declared (the right answer).
	DeclFile string
	DeclLine int
	DeclChar int

	// Refs are the files:lines of every reference to the declaration
	// (including it), found by the bare client at start.
	Refs []string

	// Query is the workspace-symbol query; DeclFile:DeclLine must be in
	// the answer.
	Query string

	// EditFile is the file the diagnostics row edits.
	EditFile string
	// DiagWant are the first lines of the error messages the server
	// itself publishes for EditFile after the edit: a right diagnostics
	// answer holds each (none: the edit's token alone is checked).
	DiagWant []string
}

// Subject is one column: something that answers the rows' questions.
// Do returns the answer text as the agent would read it. The LSP rows call
// Do from one goroutine at a time; Close ends every process the subject
// started.
type Subject interface {
	Name() string
	Do(ctx context.Context, op Op, t *Target) (string, error)
	Close() error
}

// mcpSubject drives an MCP server's tools through an MCP client (the same
// kind of client for every MCP column: Env.MCPClient).
type mcpSubject struct {
	name string
	conn mcpConn
	cmd  *exec.Cmd // nil for in-process servers
	// args maps an op to the tool and its arguments.
	args func(op Op, t *Target) (string, map[string]any)
	// closeFn ends whatever serves the MCP server.
	closeFn func() error
}

// mcpConn is one client connection to an MCP server: the bench's lean
// client or the go-sdk's. Calls come from one goroutine at a time.
type mcpConn interface {
	// callTool returns the tool's text content and whether the tool
	// reported an error.
	callTool(ctx context.Context, name string, args map[string]any) (string, bool, error)
	close() error
}

// MCP clients the bench can drive the MCP columns with (Env.MCPClient).
const (
	// ClientSDK is the MCP go-sdk client, the default.
	ClientSDK = "go-sdk"
	// ClientLean is the bench's own small client (mcpclient.go): with it
	// the client's share of a tool call can be measured (it is about
	// 0.1 ms of a hover; docs/benchmarks.md).
	ClientLean = "lean"
)

// sdkConn is the go-sdk client.
type sdkConn struct{ cs *mcp.ClientSession }

func (c sdkConn) callTool(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

func (c sdkConn) close() error { return c.cs.Close() }

func (s *mcpSubject) Name() string { return s.name }

func (s *mcpSubject) Do(ctx context.Context, op Op, t *Target) (string, error) {
	tool, args := s.args(op, t)
	if tool == "" {
		return "", fmt.Errorf("%s: no tool for %s", s.name, op)
	}
	text, isError, err := s.conn.callTool(ctx, tool, args)
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", s.name, tool, err)
	}
	if isError {
		return text, fmt.Errorf("%s: %s answered an error: %s", s.name, tool, firstLineOf(text))
	}
	return text, nil
}

func (s *mcpSubject) Close() error {
	var errs []error
	if s.conn != nil {
		errs = append(errs, s.conn.close())
	}
	if s.cmd != nil && s.cmd.Process != nil {
		// The MCP server's own children (gopls) share its group.
		_ = reap.KillGroup(s.cmd.Process)
	}
	if s.closeFn != nil {
		errs = append(errs, s.closeFn())
	}
	return errors.Join(errs...)
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// connectCommand starts an MCP server over stdio in its own process group
// and connects the client named by which (ClientSDK, also when empty, or
// ClientLean).
func connectCommand(ctx context.Context, which, name string, argv, env []string, dir string) (mcpConn, *exec.Cmd, error) {
	if which == ClientLean {
		return startLeanStdio(ctx, name, argv, env, dir)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	reap.OwnGroup(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: "acp-lsp-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = reap.KillGroup(cmd.Process)
		}
		return nil, nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	return sdkConn{cs}, cmd, nil
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP connects to a streamable HTTP MCP server with a bearer token,
// over its own HTTP transport, whose idle connections end when the
// session is closed (so a closed session leaves no goroutine behind).
func connectHTTP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "acp-lsp-bench", Version: "1"}, nil)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{Transport: bearer{token: token, next: tr}}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	go func() {
		cs.Wait()
		tr.CloseIdleConnections()
	}()
	return cs, nil
}

// acpLSPArgs are the lsp tool's arguments per op.
func acpLSPArgs(op Op, t *Target) (string, map[string]any) {
	switch op {
	case OpHover:
		return "lsp", map[string]any{"action": "hover", "file": t.HoverFile, "line": t.HoverLine, "symbol": t.HoverSymbol}
	case OpDefinition:
		return "lsp", map[string]any{"action": "definition", "file": t.UseFile, "line": t.UseLine, "symbol": t.UseSymbol}
	case OpReferences:
		return "lsp", map[string]any{"action": "references", "file": t.DeclFile, "line": t.DeclLine, "symbol": t.UseSymbol}
	case OpSymbols:
		return "lsp", map[string]any{"action": "symbols", "query": t.Query}
	case OpDiagnostics:
		return "lsp", map[string]any{"action": "diagnostics", "file": t.EditFile}
	}
	return "", nil
}

// cclspArgs: cclsp finds definitions and references by a symbol's name in
// the file that declares it (it has no positional definition), hover by a
// 1-based line and character.
func cclspArgs(op Op, t *Target) (string, map[string]any) {
	switch op {
	case OpHover:
		return "get_hover", map[string]any{"file_path": t.HoverFile, "line": t.HoverLine, "character": t.HoverChar + 1}
	case OpDefinition:
		return "find_definition", map[string]any{"file_path": t.DeclFile, "symbol_name": t.UseSymbol}
	case OpReferences:
		return "find_references", map[string]any{"file_path": t.DeclFile, "symbol_name": t.UseSymbol, "include_declaration": true}
	case OpSymbols:
		return "find_workspace_symbols", map[string]any{"query": t.Query}
	case OpDiagnostics:
		return "get_diagnostics", map[string]any{"file_path": t.EditFile}
	}
	return "", nil
}

// lsmcpArgs: lsmcp takes a root, a relative path, a 1-based line and the
// symbol's name on it.
func lsmcpArgs(root string) func(op Op, t *Target) (string, map[string]any) {
	return func(op Op, t *Target) (string, map[string]any) {
		switch op {
		case OpHover:
			return "lsp_get_hover", map[string]any{"root": root, "relativePath": t.HoverFile, "line": t.HoverLine, "textTarget": t.HoverSymbol}
		case OpDefinition:
			return "lsp_get_definitions", map[string]any{"root": root, "relativePath": t.UseFile, "line": t.UseLine, "symbolName": t.UseSymbol}
		case OpReferences:
			return "lsp_find_references", map[string]any{"root": root, "relativePath": t.DeclFile, "line": t.DeclLine, "symbolName": t.UseSymbol}
		case OpSymbols:
			return "lsp_get_workspace_symbols", map[string]any{"root": root, "query": t.Query}
		case OpDiagnostics:
			return "lsp_get_diagnostics", map[string]any{"root": root, "relativePath": t.EditFile}
		}
		return "", nil
	}
}
