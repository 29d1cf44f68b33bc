package component

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/agentwrite"
	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/sessionsetup"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Stage is the component as a stage of an acp-lsp chain (proxy.Stage
// and proxy.Runner): it patches session setup requests, binds the agent's
// session ids, injects new diagnostics into prompts, consumes `_lsp/*`
// notifications coming down, says when the agent never opens a session's
// MCP server (connectwatch.go), and reaches upstream and asks permissions
// through its hop. Everything else passes untouched.
type Stage struct {
	c *Tool

	mu      sync.Mutex
	hop     *proxy.Hop
	ready   chan struct{}
	started chan struct{}
	// agent is what the agent's initialize result said of MCP.
	agent AgentMCP
	// pending are session setup requests passed on, by raw id, awaiting
	// the agent's answer (session/new's carries the session id).
	pending map[string]pendingSetup
	// writes are the agent's writes through the editor awaiting its
	// answer: a file counts as written once the editor answers without
	// an error. Its own lock.
	writes agentwrite.Tracker
	// prompts are the session/prompt requests passed on, by raw id,
	// awaiting the agent's answer (the end of the turn).
	prompts map[string]*Session
	// replaced are, by ACP session id, the sessions whose id a later
	// load or resume of it took over: the agent may still be connected
	// to them, so they end with the id's session/close.
	replaced map[string][]*Session
}

// pendingSetup is a session setup request on its way to the agent.
type pendingSetup struct {
	s        *Session
	paramsID string
}

var (
	_ proxy.Stage  = (*Stage)(nil)
	_ proxy.Runner = (*Stage)(nil)
	_ proxy.Passer = (*Stage)(nil)
)

// NewStage returns a Stage whose Tool answers through the chain
// (Wire over Hop.CallClient/NotifyClient) and asks permission with
// session/request_permission. cfg.AskPermission, when set, is kept.
func NewStage(cfg Config) (*Stage, error) {
	st := &Stage{ready: make(chan struct{}), started: make(chan struct{}), agent: agentV1, pending: map[string]pendingSetup{}, prompts: map[string]*Session{}, replaced: map[string][]*Session{}}
	wire := &Wire{
		Call: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			hop, err := st.waitHop(ctx)
			if err != nil {
				return nil, err
			}
			return hop.CallClient(ctx, method, params)
		},
		Notify: func(ctx context.Context, method string, params json.RawMessage) error {
			hop, err := st.waitHop(ctx)
			if err != nil {
				return err
			}
			hop.NotifyClient(method, params)
			return nil
		},
	}
	if cfg.AskPermission == nil {
		cfg.AskPermission = st.askPermission
	}
	c, err := New(cfg, wire)
	if err != nil {
		return nil, err
	}
	st.c = c
	return st, nil
}

// Tool returns the stage's Tool.
func (st *Stage) Tool() *Tool { return st.c }

// Name implements proxy.Stage.
func (st *Stage) Name() string { return "component" }

// Nonblocking implements proxy.Nonblocking: the stage's handlers patch
// session setups, bind ids, cache notifications and hand fetches to
// goroutines. The one wait, for Start before the first session setup, ends
// as soon as the listeners are open.
func (st *Stage) Nonblocking() {}

// Barrier implements proxy.Barrier: every handler passes on what it was
// given before it returns (its goroutines only originate messages), so an
// end of input travels on at once, and the agent sees the editor's end
// rather than being stopped after the drain bound.
func (st *Stage) Barrier(_ bool, pass func()) { pass() }

// Passes implements proxy.Passer: the stage changes no notification going
// to the client and, going to the agent, looks only at the LSP extension
// notifications it caches, so an agent's session/update stream (and
// everything else) skips its handlers.
func (st *Stage) Passes(toAgent bool, method string) bool {
	return !toAgent || !lspext.InNamespace(method)
}

// Run implements proxy.Runner: it starts the listeners before any message
// flows and closes them when the chain stops.
func (st *Stage) Run(ctx context.Context, hop *proxy.Hop) error {
	if err := st.c.Start(ctx); err != nil {
		return err
	}
	close(st.started)
	st.setHop(hop)
	<-ctx.Done()
	return st.c.Close()
}

func (st *Stage) setHop(hop *proxy.Hop) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.hop == nil {
		st.hop = hop
		close(st.ready)
	}
}

func (st *Stage) waitHop(ctx context.Context) (*proxy.Hop, error) {
	select {
	case <-st.ready:
		return st.hop, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// FromClient implements proxy.Stage.
func (st *Stage) FromClient(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch {
	case m.Kind == proxy.KindRequest && sessionsetup.Is(m.Method):
		select {
		case <-st.started:
		case <-ctx.Done():
			hop.ToAgent(m)
			return
		}
		st.mu.Lock()
		agent := st.agent
		st.mu.Unlock()
		patched, s, paramsID, transport, err := st.c.patchSessionSetup(m.Params(), agent)
		if err != nil {
			hop.Logger().Warn("lsp tool not injected", "method", m.Method, "err", err)
			hop.ToAgent(m)
			return
		}
		// The token is the session's credential: kept out of a trace
		// file, which outlives the session and gets shared.
		unredact := hop.Redact(s.token)
		s.mu.Lock()
		s.unredact = unredact
		s.injected = transport
		s.mu.Unlock()
		s.watch.setActions(func() (string, func()) { return st.unopened(s, agent, transport) },
			func(line string) { st.sendLine(s, line) }, transport == "")
		if transport == "" {
			st.c.log.Warn("lsp tool not injected: the agent advertises no MCP transport acp-lsp offers (ACP v2 capabilities.mcp.stdio or .http); new errors still reach its prompts. Try mcp.transport = \"stdio\" or \"http\" to offer one anyway",
				"agent", agent.agentName(), "protocolVersion", agent.Version, "method", m.Method)
		}
		if !sessionsetup.NamesSession(m.Method) {
			// A fork's sessionId is its source's: the fork's own id is in
			// the answer alone.
			paramsID = ""
		}
		out, err := m.WithParams(patched)
		if err != nil {
			st.c.CloseSession(s)
			hop.Logger().Warn("lsp tool not injected", "method", m.Method, "err", err)
			hop.ToAgent(m)
			return
		}
		st.mu.Lock()
		st.pending[string(m.ID)] = pendingSetup{s, paramsID}
		st.mu.Unlock()
		hop.ToAgent(out)
	case m.Kind == proxy.KindRequest && m.Method == "session/prompt":
		params := m.Params()
		if raw, ok := proxy.GetPath(params, "sessionId"); ok {
			var id string
			if json.Unmarshal(raw, &id) == nil {
				if s := st.c.SessionByACP(id); s != nil {
					st.mu.Lock()
					st.prompts[string(m.ID)] = s
					st.mu.Unlock()
					s.watch.promptSent()
				}
			}
		}
		if patched := st.c.InjectPrompt(params); len(patched) != len(params) {
			if out, err := m.WithParams(patched); err == nil {
				m = out
			}
		}
		hop.ToAgent(m)
	case m.Kind == proxy.KindRequest && m.Method == "session/close":
		if raw, ok := proxy.GetPath(m.Params(), "sessionId"); ok {
			var id string
			if json.Unmarshal(raw, &id) == nil {
				if s := st.c.SessionByACP(id); s != nil {
					st.c.CloseSession(s)
				}
				st.mu.Lock()
				old := st.replaced[id]
				delete(st.replaced, id)
				st.mu.Unlock()
				for _, s := range old {
					st.c.CloseSession(s)
				}
			}
		}
		hop.ToAgent(m)
	case m.Kind == proxy.KindResponse && m.Method == agentwrite.Method:
		if p, ok := st.writes.Answered(m); ok {
			st.c.MarkWritten(p)
		}
		hop.ToAgent(m)
	case m.Kind == proxy.KindNotification && isCachedNotification(m.Method):
		// Cached here; the adapter above decides what the agent sees of
		// the editor's LSP notifications and marks those it may see.
		st.c.HandleNotification(ctx, m.Method, m.Params())
		if v, ok := proxy.GetPath(m.Params(), "_meta", lspext.ForwardToAgentMeta); ok && string(v) == "true" {
			hop.ToAgent(m)
		}
	default:
		hop.ToAgent(m)
	}
}

func isCachedNotification(method string) bool {
	return lspext.Is(method, lspext.PublishDiagnostics) || lspext.Is(method, lspext.DidSave)
}

// FromAgent implements proxy.Stage.
func (st *Stage) FromAgent(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	switch {
	case m.Kind == proxy.KindResponse && m.Method == "initialize":
		agent := ParseAgentMCP(m.Result())
		st.mu.Lock()
		st.agent = agent
		st.mu.Unlock()
	case m.Kind == proxy.KindResponse && sessionsetup.Is(m.Method):
		st.mu.Lock()
		p, ok := st.pending[string(m.ID)]
		delete(st.pending, string(m.ID))
		st.mu.Unlock()
		if !ok {
			break
		}
		if len(m.Error()) > 0 {
			// The agent refused the session: its MCP server would
			// otherwise stay open (socket, token) for good, and a
			// refused load must not take over a live session's id.
			st.c.CloseSession(p.s)
			break
		}
		// new and fork answer the (new) session's id; load and resume
		// keep the one they named.
		id := p.paramsID
		if raw, ok := proxy.GetPath(m.Result(), "sessionId"); ok {
			var rid string
			if json.Unmarshal(raw, &rid) == nil && rid != "" {
				id = rid
			}
		}
		if id != "" {
			// A load or resume of a live session binds its id to this
			// entry; session/close, naming the id, must still end the
			// old one.
			if old := st.c.SessionByACP(id); old != nil && old != p.s {
				st.mu.Lock()
				st.replaced[id] = append(st.replaced[id], old)
				st.mu.Unlock()
				// The agent may keep its connection to the live
				// session's server, which still serves it: the tool is
				// there, nothing to warn about.
				if old.watch.isOpened() {
					p.s.watch.open()
				}
			}
			st.c.Bind(p.s, id)
		}
		p.s.watch.setupAnswered()
	case m.Kind == proxy.KindResponse && m.Method == "session/prompt":
		st.mu.Lock()
		s := st.prompts[string(m.ID)]
		delete(st.prompts, string(m.ID))
		st.mu.Unlock()
		if s != nil {
			if line := s.watch.turnEnded(); line != "" {
				// The turn's last update, before its answer.
				hop.NotifyClient("session/update", sessionLine(s.acpSessionID(), line))
			}
		}
	case m.Kind == proxy.KindRequest && m.Method == agentwrite.Method:
		// Marked when the editor confirms it (see FromClient).
		st.writes.Requested(m)
	}
	hop.ToClient(m)
}

// unopened returns the line for session s whose agent has not opened its
// MCP server, and the function that logs it (transport "": none was
// offered, logged already, so it logs nothing).
func (st *Stage) unopened(s *Session, agent AgentMCP, transport Transport) (string, func()) {
	name := agent.agentName()
	if transport == "" {
		return "acp-lsp: " + name + " advertises no MCP transport acp-lsp can offer, so this session has no lsp tool; new errors are still added to prompts. See acp-lsp's log.", func() {}
	}
	other := TransportHTTP
	if transport == TransportHTTP {
		other = TransportStdio
	}
	log := func() {
		st.c.log.Warn("the agent has not opened the lsp tool's MCP server: it may ignore session/new's mcpServers (several ACP agents do); the model cannot call the lsp tool, new errors are still added to prompts",
			"agent", name, "transport", transport, "session", s.acpSessionID(), "after", st.c.cfg.ConnectWarning,
			"try", fmt.Sprintf("check that the agent passes mcpServers to its MCP client; if it takes %s MCP servers set mcp.transport = %q; if it is only slow raise mcp.connect_warning", other, other))
	}
	return fmt.Sprintf("acp-lsp: %s has not opened the lsp tool (an MCP server over %s added to this session), so the model cannot call it; new errors are still added to prompts. See acp-lsp's log.", name, transport), log
}

// sendLine writes line to the editor as the session's agent_message_chunk,
// when the chain runs.
func (st *Stage) sendLine(s *Session, line string) {
	st.mu.Lock()
	hop := st.hop
	st.mu.Unlock()
	if hop != nil {
		hop.NotifyClient("session/update", sessionLine(s.acpSessionID(), line))
	}
}

// sessionLine is the session/update params showing line in session id: an
// agent_message_chunk, the one update every client shows, set apart from
// the agent's own text by a blank line and named as acp-lsp's by its
// prefix.
func sessionLine(id, line string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"sessionId": id,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]string{"type": "text", "text": "\n\n" + line + "\n"},
		},
	})
	return b
}

// askPermission sends session/request_permission to the editor with the
// diff as the tool call's content.
func (st *Stage) askPermission(ctx context.Context, sessionID, title, diff string) (bool, error) {
	if sessionID == "" {
		return false, fmt.Errorf("no ACP session is bound to this MCP server yet")
	}
	hop, err := st.waitHop(ctx)
	if err != nil {
		return false, err
	}
	params := map[string]any{
		"sessionId": sessionID,
		"toolCall": map[string]any{
			"toolCallId": "acp-lsp-" + newToken()[:12],
			"title":      title,
			"kind":       "edit",
			"status":     "pending",
			"content":    []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": diff}}},
		},
		"options": []map[string]string{
			{"optionId": "allow", "name": "Apply", "kind": "allow_once"},
			{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
		},
	}
	b, _ := json.Marshal(params)
	raw, err := hop.CallClient(ctx, "session/request_permission", b)
	if err != nil {
		return false, err
	}
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return false, fmt.Errorf("request_permission: malformed answer: %w", err)
	}
	return res.Outcome.Outcome == "selected" && res.Outcome.OptionID == "allow", nil
}
