package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Entry returns the v1 mcpServers entry (raw JSON) for the session over t.
// The server is accepting when the entry is returned.
func (c *Tool) Entry(s *Session, t Transport) json.RawMessage { return c.entry(s, t, 1) }

// entry returns the session's mcpServers entry over t in the shape of ACP
// version v: a v1 stdio entry has no "type" (agents exist that reject one),
// a v2 one says "type":"stdio" as the draft writes it; http entries say
// "type":"http" in both.
func (c *Tool) entry(s *Session, t Transport, v int) json.RawMessage {
	type kv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	var v2Type string
	if v >= 2 {
		v2Type = string(TransportStdio)
	}
	var e any
	if t == TransportHTTP {
		e = struct {
			Type    string `json:"type"`
			Name    string `json:"name"`
			URL     string `json:"url"`
			Headers []kv   `json:"headers"`
		}{"http", c.cfg.Name, "http://" + c.HTTPAddr() + "/mcp", []kv{{"Authorization", "Bearer " + s.token}}}
	} else {
		e = struct {
			Type    string   `json:"type,omitempty"`
			Name    string   `json:"name"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Env     []kv     `json:"env"`
		}{v2Type, c.cfg.Name, c.cfg.Executable, []string{"mcp-bridge", "--socket", c.socketPath(s)}, []kv{}}
	}
	b, _ := json.Marshal(e)
	return b
}

// PatchSessionSetup creates a session for the params of a session setup
// request (session/new|load|resume|fork) and returns the params with the
// session's MCP entry appended to mcpServers, every other byte as the
// client sent it. agent is what the agent's initialize result said
// (ParseAgentMCP); when it takes no transport acp-lsp offers, params come
// back unchanged and the session still exists (its new errors still reach
// prompts). For load/resume/fork the ACP session id in params is bound at
// once; for session/new call Bind with the id from the response.
func (c *Tool) PatchSessionSetup(params json.RawMessage, agent AgentMCP) (json.RawMessage, *Session, error) {
	out, s, id, _, err := c.patchSessionSetup(params, agent)
	if err == nil && id != "" {
		c.Bind(s, id)
	}
	return out, s, err
}

// patchSessionSetup is PatchSessionSetup without binding: it also returns
// the session id found in params ("" for session/new) and the transport of
// the entry ("" when none was added).
func (c *Tool) patchSessionSetup(params json.RawMessage, agent AgentMCP) (json.RawMessage, *Session, string, Transport, error) {
	rawCwd, ok := proxy.GetPath(params, "cwd")
	if !ok {
		return nil, nil, "", "", errors.New("component: session setup without cwd")
	}
	var cwd string
	if err := json.Unmarshal(rawCwd, &cwd); err != nil {
		return nil, nil, "", "", fmt.Errorf("component: session setup cwd: %w", err)
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
		return nil, nil, "", "", err
	}
	out := params
	t := agent.transport(c.cfg.Transport)
	if t == TransportStdio && s.sockErr != nil {
		c.CloseSession(s)
		return nil, nil, "", "", s.sockErr
	}
	if t != "" {
		if out, err = AppendMCPServer(params, c.entry(s, t, agent.Version)); err != nil {
			c.CloseSession(s)
			return nil, nil, "", "", err
		}
	}
	var id string
	if rawID, ok := proxy.GetPath(params, "sessionId"); ok {
		json.Unmarshal(rawID, &id)
	}
	return out, s, id, t, nil
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
	diags []wire.Diagnostic
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
		var fresh []wire.Diagnostic
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
