package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Stack is acp-lsp's chain run in process, editor ⇄ adapter ⇄ component ⇄
// agent, between a scripted editor (which offers no language servers, so
// the adapter runs gopls itself) and a scripted agent (which advertises
// MCP over HTTP and hands the injected server's entry to the bench). Tool
// calls therefore take the whole path a real agent's do: MCP over HTTP into
// the component, `_lsp/*` up the chain, the adapter, lsp.Manager, gopls.
// Its methods are safe for concurrent use.
type Stack struct {
	Adapter *adapter.Adapter
	Stage   *component.Stage

	editor, agent *acptest.Peer
	cancel        context.CancelFunc
	done          chan error

	mu      sync.Mutex
	entries map[string]mcpEntry // by ACP session id
	nextSes int
}

type mcpEntry struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	URL     string `json:"url"`
	Headers []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
}

// StartStack starts the chain and initializes it as an editor would.
func StartStack(ctx context.Context, lspOpts lsp.Options, cc component.Config) (*Stack, error) {
	a, err := adapter.New(adapter.Config{LSP: lspOpts})
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
	s := &Stack{Adapter: a, Stage: st, done: make(chan error, 1), entries: map[string]mcpEntry{}}
	var cep, aep *proxy.Stream
	s.editor, cep = acptest.New("editor", s.editorHandle)
	s.agent, aep = acptest.New("agent", s.agentHandle)
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go func() {
		s.done <- proxy.NewChain(proxy.Config{Client: cep, Agent: aep, Stages: []proxy.Stage{a, st}}).Run(cctx)
	}()
	_, err = s.call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}},
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("stack: initialize: %w", err)
	}
	return s, nil
}

// editorHandle plays the editor: requests (none expected: the bench never
// changes files through the tool) get -32601, notifications are dropped;
// only answers to the bench's own calls go on.
func (s *Stack) editorHandle(p *acptest.Peer, m acptest.Msg) bool {
	if m.IsRequest() {
		p.ReplyError(m.ID, proxy.CodeMethodNotFound, "bench editor: "+m.Method+" not offered")
	}
	return !m.IsResponse()
}

// agentHandle plays the agent: it answers initialize (MCP over HTTP
// supported) and session/new (keeping the injected entry), and refuses
// every other request.
func (s *Stack) agentHandle(p *acptest.Peer, m acptest.Msg) bool {
	if !m.IsRequest() {
		return true
	}
	var result any
	switch m.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"mcpCapabilities": map[string]any{"http": true}}}
	case "session/close", "session/cancel":
		result = map[string]any{}
	case "session/new":
		var params struct {
			MCPServers []mcpEntry `json:"mcpServers"`
		}
		json.Unmarshal(m.Params, &params)
		s.mu.Lock()
		s.nextSes++
		id := "bench-session-" + strconv.Itoa(s.nextSes)
		for _, e := range params.MCPServers {
			if e.Type == "http" {
				s.entries[id] = e
			}
		}
		s.mu.Unlock()
		result = map[string]any{"sessionId": id}
	default:
		p.ReplyError(m.ID, proxy.CodeMethodNotFound, "bench agent: "+m.Method)
		return true
	}
	p.Reply(m.ID, result)
	return true
}

// call sends a request from the editor and waits for its answer.
func (s *Stack) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, err := s.editor.Call(ctx, method, params)
	var rpcErr *proxy.Error
	if errors.As(err, &rpcErr) {
		return nil, fmt.Errorf("%s: %s", method, rpcErr.Message)
	}
	return res, err
}

// Notify sends a notification from the editor into the chain.
func (s *Stack) Notify(method string, params any) error {
	return s.editor.Notify(method, params)
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
	_, err := s.call(ctx, "session/close", map[string]any{"sessionId": id})
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
	res, err := s.call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		return "", "", "", fmt.Errorf("stack: session/new: %w", err)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &r)
	s.mu.Lock()
	e, ok := s.entries[r.SessionID]
	s.mu.Unlock()
	if !ok {
		return "", "", "", fmt.Errorf("stack: session/new reached the agent without an http MCP entry")
	}
	for _, h := range e.Headers {
		if strings.EqualFold(h.Name, "Authorization") {
			token = strings.TrimPrefix(h.Value, "Bearer ")
		}
	}
	return r.SessionID, e.URL, token, nil
}

// Close ends the chain (and gopls with it) and waits.
func (s *Stack) Close() error {
	s.editor.Close()
	s.agent.Close()
	s.cancel()
	var err error
	select {
	case err = <-s.done:
	case <-time.After(30 * time.Second):
		err = errors.New("stack: chain did not stop within 30s")
	}
	s.Adapter.Close()
	// Both ends are closed at once on purpose: whichever the chain sees
	// first (client EOF, agent EOF, cancel) is an orderly end here.
	if errors.Is(err, context.Canceled) || errors.Is(err, proxy.ErrAgentGone) {
		err = nil
	}
	return err
}

// StartACPLSP starts column (b): the stack over root, one session, the
// MCP client (Env.MCPClient) connected over HTTP.
func StartACPLSP(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error) {
	st, err := StartStack(ctx, lsp.Options{Env: wsEnv}, component.Config{})
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
