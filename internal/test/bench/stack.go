package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Stack is acp-lsp's chain run in process, editor ⇄ adapter ⇄ component ⇄
// agent, on the stacktest harness with ends that answer by themselves:
// the editor offers no language servers, so the adapter runs gopls
// itself, and the agent advertises MCP over HTTP and hands the injected
// server's entry to the bench. Tool calls therefore take the whole path a
// real agent's do: MCP over HTTP into the component, `_lsp/*` up the
// chain, the adapter, lsp.Manager, gopls. Its methods are safe for
// concurrent use.
type Stack struct {
	Adapter *adapter.Adapter
	Stage   *component.Stage

	chain *stacktest.Chain
}

// StartStack starts the chain and initializes it as an editor would.
func StartStack(ctx context.Context, lspOpts lsp.Options, cc component.Config) (*Stack, error) {
	return startStack(ctx, adapter.Config{LSP: lspOpts}, cc)
}

// startStack is StartStack with the adapter's whole configuration (its
// Host: local.shared).
func startStack(ctx context.Context, ac adapter.Config, cc component.Config) (*Stack, error) {
	a, err := adapter.New(ac)
	if err != nil {
		return nil, fmt.Errorf("stack: %w", err)
	}
	if cc.Executable == "" {
		cc.Executable = "/nonexistent/acp-lsp" // HTTP entries only: no stdio bridge is started
	}
	cc.Transport = component.TransportHTTP
	st, err := component.NewStage(cc)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("stack: %w", err)
	}
	s := &Stack{Adapter: a, Stage: st, chain: stacktest.Start(ctx, stacktest.Config{Stages: []proxy.Stage{a, st}, Answer: true})}
	_, err = s.chain.Call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}},
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("stack: initialize: %w", err)
	}
	return s, nil
}

// Notify sends a notification from the editor into the chain.
func (s *Stack) Notify(method string, params any) error {
	return s.chain.Editor.Notify(method, params)
}

// NewSession opens an ACP session on cwd and connects an MCP client to the
// lsp tool the component injected for it. Closing the client closes its
// HTTP connections.
func (s *Stack) NewSession(ctx context.Context, cwd string) (*mcp.ClientSession, error) {
	_, cs, err := s.OpenSession(ctx, cwd)
	return cs, err
}

// CloseSession sends session/close for an ACP session id: the component
// ends its token and MCP connections.
func (s *Stack) CloseSession(ctx context.Context, id string) error {
	_, err := s.chain.Call(ctx, "session/close", map[string]any{"sessionId": id})
	return err
}

// OpenSession is NewSession that also returns the ACP session id.
func (s *Stack) OpenSession(ctx context.Context, cwd string) (string, *mcp.ClientSession, error) {
	id, url, token, err := s.OpenSessionEntry(ctx, cwd)
	if err != nil {
		return "", nil, err
	}
	cs, err := connectHTTP(ctx, url, token)
	return id, cs, err
}

// OpenSessionEntry opens an ACP session on cwd and returns its id and the
// injected MCP server's URL and bearer token, for a client of the caller's
// choice.
func (s *Stack) OpenSessionEntry(ctx context.Context, cwd string) (id, url, token string, err error) {
	id, e, err := s.chain.OpenSession(ctx, cwd)
	if err != nil {
		return "", "", "", fmt.Errorf("stack: %w", err)
	}
	return id, e.URL, e.Token(), nil
}

// Close ends the chain (and gopls with it) and waits, at most 30 s for
// the chain.
func (s *Stack) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.chain.Close(ctx)
	s.Adapter.Close()
	return err
}

// StartACPLSP starts column (b): the stack over root, one session, the
// MCP client (Env.MCPClient) connected over HTTP.
func StartACPLSP(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
	return startACPLSP(ctx, env, root, adapter.Config{LSP: lsp.Options{Env: wsEnv}})
}

// startACPLSP is StartACPLSP with the adapter's whole configuration.
func startACPLSP(ctx context.Context, env *Env, root string, ac adapter.Config) (Subject, error) {
	st, err := startStack(ctx, ac, component.Config{})
	if err != nil {
		return nil, err
	}
	_, url, token, err := st.OpenSessionEntry(ctx, root)
	var conn mcpConn
	if err == nil {
		if env.MCPClient == ClientLean {
			conn, err = connectLeanHTTP(ctx, url, token)
		} else {
			var cs *mcp.ClientSession
			cs, err = connectHTTP(ctx, url, token)
			conn = sdkConn{cs}
		}
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return &mcpSubject{name: "acp-lsp", conn: conn, args: acpLSPArgs, closeFn: st.Close}, nil
}
