package stacktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// sessions is what the answering agent keeps: the HTTP MCP entry each
// session/new carried, by the session id it gave.
type sessions struct {
	mu      sync.Mutex
	entries map[string]Entry
	next    int
}

// answerEditor plays the editor of Config.Answer: requests get -32601,
// notifications are dropped; only answers to Call go on.
func answerEditor(p *acptest.Peer, m acptest.Msg) bool {
	if m.IsRequest() {
		p.ReplyError(m.ID, proxy.CodeMethodNotFound, "stacktest editor: "+m.Method+" not offered")
	}
	return !m.IsResponse()
}

// answerAgent plays the agent of Config.Answer.
func (s *sessions) answerAgent(p *acptest.Peer, m acptest.Msg) bool {
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
		entries, _ := Entries(m.Params)
		s.mu.Lock()
		s.next++
		id := "session-" + strconv.Itoa(s.next)
		for _, e := range entries {
			if e.Type == "http" {
				s.entries[id] = e
			}
		}
		s.mu.Unlock()
		result = map[string]any{"sessionId": id}
	default:
		p.ReplyError(m.ID, proxy.CodeMethodNotFound, "stacktest agent: "+m.Method)
		return true
	}
	p.Reply(m.ID, result)
	return true
}

// Call sends a request from the editor and waits for its answer; a
// JSON-RPC error comes back as an error with the method and the error's
// message.
func (c *Chain) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, err := c.Editor.Call(ctx, method, params)
	var rpcErr *proxy.Error
	if errors.As(err, &rpcErr) {
		return nil, fmt.Errorf("%s: %s", method, rpcErr.Message)
	}
	return res, err
}

// OpenSession opens an ACP session on cwd with Call and returns its id and
// the HTTP MCP entry the chain injected into it. It needs Config.Answer.
func (c *Chain) OpenSession(ctx context.Context, cwd string) (id string, e Entry, err error) {
	if c.sessions == nil {
		return "", Entry{}, errors.New("open session: the chain's ends do not answer (Config.Answer)")
	}
	res, err := c.Call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		return "", Entry{}, fmt.Errorf("open session: %w", err)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", Entry{}, fmt.Errorf("open session: %w", err)
	}
	c.sessions.mu.Lock()
	e, ok := c.sessions.entries[r.SessionID]
	c.sessions.mu.Unlock()
	if !ok {
		return "", Entry{}, errors.New("open session: session/new reached the agent without an http MCP entry")
	}
	return r.SessionID, e, nil
}
