package adapter

// The agent side of ACP's LSP proposal (the RFD "Language Server Proxy",
// internal/lspext's RFD names; docs/protocol.md §9): the chain offers
// `lsp: {}` in the initialize that goes down, and answers the agent's
// lsp/servers and lsp/request from the local servers, and from the
// editor's own servers when the editor offers them (in the RFD, or
// through the `_meta.lsp` passthrough). Positions pass in the server's
// negotiated encoding, unconverted (LocalServers.AskNative).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// rfdEditorPrefix starts the id of a server the editor listed, so that it
// never collides with a local server's id (the editor may mint the same
// name@root).
const rfdEditorPrefix = "editor:"

// rfdAvailableMethods are the LSP requests the chain forwards (the RFD's
// availableMethods): every client → server request of LSP 3.17 but those
// the RFD forbids (lspext.RFDNeverForwarded).
var rfdAvailableMethods = []string{
	"callHierarchy/incomingCalls", "callHierarchy/outgoingCalls",
	"codeAction/resolve", "codeLens/resolve", "completionItem/resolve", "documentLink/resolve", "inlayHint/resolve",
	"textDocument/codeAction", "textDocument/codeLens", "textDocument/colorPresentation", "textDocument/completion",
	"textDocument/declaration", "textDocument/definition", "textDocument/diagnostic", "textDocument/documentColor",
	"textDocument/documentHighlight", "textDocument/documentLink", "textDocument/documentSymbol",
	"textDocument/formatting", "textDocument/hover", "textDocument/implementation", "textDocument/inlayHint",
	"textDocument/inlineValue", "textDocument/moniker", "textDocument/prepareCallHierarchy",
	"textDocument/prepareRename", "textDocument/prepareTypeHierarchy", "textDocument/rangeFormatting",
	"textDocument/references", "textDocument/rename", "textDocument/semanticTokens/full",
	"textDocument/semanticTokens/full/delta", "textDocument/semanticTokens/range", "textDocument/signatureHelp",
	"textDocument/typeDefinition", "typeHierarchy/subtypes", "typeHierarchy/supertypes",
	"workspace/diagnostic", "workspace/executeCommand", "workspace/symbol", "workspaceSymbol/resolve",
}

// agentForwards reports whether the chain forwards method.
func agentForwards(method string) bool {
	return !lspext.RFDNeverForwarded(method) && slices.Contains(rfdAvailableMethods, method)
}

// isRFDAgentRequest reports whether m, a request from the agent, is one of
// the RFD's: lsp/servers or lsp/request with a sessionId. The bare
// spelling of `_lsp/servers` and `_lsp/request` is the same name, and
// never carries a sessionId.
func isRFDAgentRequest(m *proxy.Message) bool {
	if m.Method != lspext.RFDServers && m.Method != lspext.RFDRequest {
		return false
	}
	_, ok := proxy.GetPath(m.Params(), "sessionId")
	return ok
}

// offerRFD sets `lsp: {}` in the capabilities of m, the initialize going
// down (clientCapabilities in ACP v1, capabilities from v2 on); what the
// editor offered is read by initializeDown (rfdOffer). Every other byte
// keeps its meaning.
func (a *Adapter) offerRFD(hop *proxy.Hop, m *proxy.Message) *proxy.Message {
	key := "clientCapabilities"
	if rfdVersion(m.Params()) >= 2 {
		key = "capabilities"
	}
	p, err := proxy.SetPath(m.Params(), json.RawMessage("{}"), key, "lsp")
	if err == nil {
		var out *proxy.Message
		if out, err = m.WithParams(p); err == nil {
			return out
		}
	}
	hop.Logger().Warn(key+".lsp not offered to the agent", "err", err)
	return m
}

// rfdVersion is the protocolVersion of initialize params (0 when absent or
// not a number).
func rfdVersion(params json.RawMessage) int {
	raw, _ := proxy.GetPath(params, "protocolVersion")
	var v int
	if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	return v
}

// sessionRoots returns the folders of session id (rfdSetupAnswered
// records them).
func (a *Adapter) sessionRoots(id string) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.rfd.sessions {
		if s.id == id {
			return s.roots, nil
		}
	}
	return nil, badParams("no session %q was set up through this chain", id)
}

// takeRFD answers the agent's lsp/servers or lsp/request off the pipeline,
// as take does for `_lsp/*`; a $/cancel_request for it cancels ctx, and
// the answer is then -32800.
func (a *Adapter) takeRFD(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	method, params := m.Method, m.Params()
	a.answerOff(ctx, hop, m, func() (json.RawMessage, error) {
		var (
			res json.RawMessage
			err error
		)
		if method == lspext.RFDServers {
			res, err = a.agentServers(ctx, hop, params)
		} else {
			res, err = a.agentRequest(ctx, hop, params)
		}
		if err != nil {
			return nil, rfdError(ctx, method, err)
		}
		return res, nil
	})
}

// agentServers answers lsp/servers: the local servers whose root overlaps
// the session's roots (the ones the roots need are started first, so
// they are listed running with their capabilities), then the editor's.
func (a *Adapter) agentServers(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.RFDServersParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, badParams("params: %w", err)
	}
	roots, err := a.sessionRoots(p.SessionID)
	if err != nil {
		return nil, err
	}
	a.startNeeded(ctx, roots)
	servers := a.rfdLocal(roots)
	servers = append(servers, a.rfdEditorServers(ctx, hop, p.SessionID, roots)...)
	// Capabilities go out as the servers sent them: no HTML escaping
	// ("<" stays "<").
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(lspext.RFDServersResult{Servers: servers, AvailableMethods: rfdAvailableMethods}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// startNeeded starts, side by side, the installed servers each root
// needs (lsp's survey), and waits for their initialize: a server already
// running costs nothing. A failure leaves the server listed in the state
// it ended in.
func (a *Adapter) startNeeded(ctx context.Context, roots []string) {
	if a.cfg.NoLocal {
		return
	}
	var wg sync.WaitGroup
	for _, root := range roots {
		sv := a.survey(root, false)
		for _, n := range sv.Servers {
			if !n.Needed || !n.Installed {
				continue
			}
			path := firstPath(sv, n.Config.Name)
			wg.Go(func() {
				if err := a.mgr.Prewarm(ctx, path); err != nil {
					a.log.Debug("lsp/servers: server not started", "server", n.Config.Name, "root", root, "err", err)
				}
			})
		}
	}
	wg.Wait()
}

// rfdLocal lists the local servers whose root overlaps one of roots.
func (a *Adapter) rfdLocal(roots []string) []lspext.RFDServerInfo {
	out := []lspext.RFDServerInfo{}
	if a.cfg.NoLocal {
		return out
	}
	byName := map[string]lsp.ServerConfig{}
	for _, c := range a.configs() {
		byName[c.Name] = c
	}
	for _, st := range a.mgr.Servers() {
		state := agentServerState(st.State)
		if state == "" || !overlaps(st.Root, roots) {
			continue
		}
		c := byName[st.Name]
		out = append(out, lspext.RFDServerInfo{
			ServerID: rfdLocalID(st.Name, st.Root), Name: st.Name, WorkspacePath: st.Root,
			LanguageID: c.Language, FileExtensions: c.Extensions, State: state,
			Capabilities: rfdCapabilities(st.Capabilities, string(st.Encoding)),
		})
	}
	return out
}

// rfdLocalID is the RFD server id of local server name in root: stable
// across the server's restarts there.
func rfdLocalID(name, root string) string { return name + "@" + root }

// overlaps reports whether root holds one of roots or lies inside one.
func overlaps(root string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, root) || edit.Within(root, r) })
}

// agentServerState is the RFD state of a local server, "" for one not listed
// (not installed, or the Manager closed). A server stopped when idle, or
// crashed, does not run now; a request to it starts it again, as every
// local server starts on demand.
func agentServerState(s lsp.State) string {
	switch s {
	case lsp.StateRunning:
		return lspext.RFDStateRunning
	case lsp.StateStarting:
		return lspext.RFDStateStarting
	case lsp.StateStopped, lsp.StateCrashed, lsp.StateBroken:
		return lspext.RFDStateNotRunning
	}
	return ""
}

// rfdCapabilities are a server's initialize result capabilities as it
// sent them, "{}" before it answered one. The one change: a server that
// negotiated its encoding outside them (clangd's offsetEncoding) gets
// positionEncoding set to that, so the agent counts as the server does.
func rfdCapabilities(caps json.RawMessage, enc string) json.RawMessage {
	if len(caps) == 0 {
		return json.RawMessage("{}")
	}
	if enc == "" || lspext.RFDPositionEncoding(caps) == enc {
		return caps
	}
	b, _ := json.Marshal(enc)
	if out, err := proxy.SetPath(caps, b, "positionEncoding"); err == nil {
		return out
	}
	return caps
}

// rfdEditorServers lists the editor's servers for the session, their ids
// prefixed: those of its RFD offer, else those of its `_meta.lsp`
// passthrough; none when it offers neither or fails.
func (a *Adapter) rfdEditorServers(ctx context.Context, hop *proxy.Hop, sessionID string, roots []string) []lspext.RFDServerInfo {
	switch {
	case a.rfdOn():
	case a.metaPassthrough():
		return a.rfdMetaServers(ctx, hop, roots)
	default:
		return nil
	}
	r, err := a.rfdList(ctx, hop, sessionID, true)
	if err != nil {
		a.log.Warn("the editor's lsp/servers failed; its servers are not listed", "err", err)
		return nil
	}
	// A copy: the list is the upstream side's cache too.
	out := slices.Clone(r.Servers)
	for i := range out {
		out[i].ServerID = rfdEditorPrefix + out[i].ServerID
	}
	return out
}

// agentRequest answers lsp/request: refused per the RFD, else passed to the
// editor for its servers, else asked of the local server named, positions
// unconverted.
func (a *Adapter) agentRequest(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.RFDRequestParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, badParams("params: %w", err)
	}
	if p.Method == "" {
		return nil, badParams("params: method is missing")
	}
	roots, err := a.sessionRoots(p.SessionID)
	if err != nil {
		return nil, err
	}
	if !agentForwards(p.Method) {
		return nil, &rfdRefusal{lspext.RFDErrorData{Reason: lspext.RFDMethodNotForwarded, AvailableMethods: rfdAvailableMethods},
			fmt.Sprintf("%s is not forwarded (see availableMethods)", p.Method)}
	}
	if id, ok := strings.CutPrefix(p.ServerID, rfdEditorPrefix); ok {
		switch {
		case a.rfdOn():
			return a.rfdEditorRequest(ctx, hop, params, id)
		case a.metaPassthrough():
			return a.rfdMetaRequest(ctx, hop, p, id)
		}
	}
	servers := a.rfdLocal(roots)
	i := slices.IndexFunc(servers, func(s lspext.RFDServerInfo) bool { return s.ServerID == p.ServerID })
	if i < 0 {
		servers = append(servers, a.rfdEditorServers(ctx, hop, p.SessionID, roots)...)
		return nil, &rfdRefusal{lspext.RFDErrorData{Reason: lspext.RFDUnknownServer, ServerID: p.ServerID, Servers: servers},
			fmt.Sprintf("no server %q is listed for session %q (list them again with lsp/servers)", p.ServerID, p.SessionID)}
	}
	srv := servers[i]
	path, err := a.rfdTarget(p.Params, srv, roots)
	if err != nil {
		return nil, err
	}
	a.noteSample(path)
	// A server that does not run now is started by the request (local
	// servers start on demand), unless it cannot be: it crashed too often
	// (the circuit is open) or its program is gone.
	ans, err := a.mgr.AskNative(ctx, path, p.Method, p.Params)
	var missing *lsp.MissingServerError
	if errors.Is(err, lsp.ErrCircuitOpen) || errors.As(err, &missing) {
		return nil, &rfdRefusal{lspext.RFDErrorData{Reason: lspext.RFDServerNotRunning, ServerID: srv.ServerID, State: lspext.RFDStateNotRunning},
			fmt.Sprintf("server %s does not run and cannot be started now (%v); retry later", srv.ServerID, err)}
	}
	if err != nil {
		return nil, err
	}
	res := ans.Result
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	// The server's result byte for byte.
	return append(append([]byte(`{"lspResult":`), res...), '}'), nil
}

// rfdEditorRequest passes an lsp/request for an editor's server on to the
// editor under the id the editor gave it; its answer and errors come back
// as they are.
func (a *Adapter) rfdEditorRequest(ctx context.Context, hop *proxy.Hop, params json.RawMessage, id string) (json.RawMessage, error) {
	b, _ := json.Marshal(id)
	out, err := proxy.SetPath(params, b, "serverId")
	if err != nil {
		return nil, badParams("params: %w", err)
	}
	return a.callOnce(ctx, hop, lspext.RFDRequest, out)
}

// metaPassthrough reports whether the editor lists its servers and takes
// raw LSP requests for them in the `_meta.lsp` dialect (`_lsp/servers`,
// `_lsp/request`).
func (a *Adapter) metaPassthrough() bool {
	_, servers := a.editorOffers(lspext.Servers)
	_, request := a.editorOffers(lspext.Request)
	return servers && request
}

// rfdMetaServers lists the servers the editor reports in `_lsp/servers`
// whose root overlaps the session's (or is not said), as RFD servers.
// That dialect counts characters in utf-16 whatever the server
// negotiated (the editor converts), so their capabilities say utf-16.
func (a *Adapter) rfdMetaServers(ctx context.Context, hop *proxy.Hop, roots []string) []lspext.RFDServerInfo {
	res, err := a.callEditor(ctx, hop, lspext.Servers, json.RawMessage("{}"))
	var r lspext.ServersResult
	if err == nil {
		err = json.Unmarshal(res, &r)
	}
	if err != nil {
		a.log.Warn("the editor's _lsp/servers failed; its servers are not listed", "err", err)
		return nil
	}
	var out []lspext.RFDServerInfo
	for _, s := range r.Servers {
		root := s.Root
		switch {
		case s.Name == "" || (root != "" && !overlaps(root, roots)):
			continue
		case root == "" && len(roots) > 0:
			root = roots[0]
		}
		caps := s.Capabilities
		if len(caps) == 0 {
			caps = json.RawMessage("{}")
		}
		if out, err := proxy.SetPath(caps, json.RawMessage(`"utf-16"`), "positionEncoding"); err == nil {
			caps = out
		}
		info := lspext.RFDServerInfo{ServerID: rfdEditorPrefix + s.Name, Name: s.Name, WorkspacePath: root, State: metaState(s.State), Capabilities: caps}
		if len(s.Languages) > 0 {
			info.LanguageID = s.Languages[0]
		}
		out = append(out, info)
	}
	return out
}

// metaState is the RFD state of a server in the `_meta.lsp` dialect's
// words (lspext.ServerInfo.State).
func metaState(s string) string {
	switch s {
	case "", "ready", "indexing":
		return lspext.RFDStateRunning
	case "starting", "not_started":
		return lspext.RFDStateStarting
	}
	return lspext.RFDStateNotRunning
}

// rfdMetaRequest passes an lsp/request for an editor's server on through
// the `_meta.lsp` passthrough, `_lsp/request` naming the server and the
// document the params name.
func (a *Adapter) rfdMetaRequest(ctx context.Context, hop *proxy.Hop, p lspext.RFDRequestParams, name string) (json.RawMessage, error) {
	b, err := json.Marshal(lspext.RequestParams{URI: rfdDocument(p.Params), Server: name, Method: p.Method, Params: p.Params})
	if err != nil {
		return nil, badParams("params: %w", err)
	}
	res, err := a.callEditor(ctx, hop, lspext.Request, b)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	return append(append([]byte(`{"lspResult":`), res...), '}'), nil
}

// rfdTarget is the file a request to srv is routed by: the document its
// params name (textDocument.uri, or item.uri of a hierarchy item), which
// must be one of srv's files in the session; or, for a request naming no
// document (workspace/symbol, a resolve), a file of srv.
func (a *Adapter) rfdTarget(params json.RawMessage, srv lspext.RFDServerInfo, roots []string) (string, error) {
	uri := rfdDocument(params)
	if uri == "" {
		return a.serverFile(srv, roots)
	}
	path, err := pathOf(uri)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return edit.Within(r, path) }) {
		return "", badParams("%s is outside the session's folders", path)
	}
	c := a.firstInstalled(a.configs(), path)
	if c == nil || c.Name != srv.Name || !edit.Within(srv.WorkspacePath, path) {
		return "", badParams("%s is not a file of server %s", path, srv.ServerID)
	}
	return path, nil
}

// rfdDocument is the document URI LSP params name: textDocument.uri, else
// item.uri (call and type hierarchy), else "".
func rfdDocument(params json.RawMessage) string {
	for _, path := range [][]string{{"textDocument", "uri"}, {"item", "uri"}} {
		raw, ok := proxy.GetPath(params, path...)
		var uri string
		if ok && json.Unmarshal(raw, &uri) == nil && uri != "" {
			return uri
		}
	}
	return ""
}

// serverFile is a file of srv under its root and the session's: one a
// request was made about, else one the survey found.
func (a *Adapter) serverFile(srv lspext.RFDServerInfo, roots []string) (string, error) {
	mine := func(path string) bool {
		if path == "" || !edit.Within(srv.WorkspacePath, path) || !reachable(path, roots) {
			return false
		}
		c := a.firstInstalled(a.configs(), path)
		return c != nil && c.Name == srv.Name
	}
	a.mu.Lock()
	samples := make([]string, 0, len(a.samples))
	for _, p := range a.samples {
		samples = append(samples, p)
	}
	a.mu.Unlock()
	slices.Sort(samples)
	if i := slices.IndexFunc(samples, mine); i >= 0 {
		return samples[i], nil
	}
	for _, root := range roots {
		sv := a.survey(root, false)
		for _, f := range sv.Paths {
			if f.Server == srv.Name && mine(f.Path) {
				return f.Path, nil
			}
		}
	}
	return "", badParams("no file of server %s was found to send the request through", srv.ServerID)
}

// rfdRefusal is an RFD error of reason data.Reason: -32602 with the
// RFD's data.
type rfdRefusal struct {
	data lspext.RFDErrorData
	msg  string
}

func (e *rfdRefusal) Error() string { return e.msg }

// rfdError turns what answering an RFD request failed with into the
// JSON-RPC error the agent gets: the RFD's refusals with their data, a
// language server's own error with its code and its code, message and
// data in data, the rest as for `_lsp/*` (rpcError: -32800 once
// cancelled).
func rfdError(ctx context.Context, method string, err error) *proxy.Error {
	var ref *rfdRefusal
	if errors.As(err, &ref) {
		data, _ := json.Marshal(ref.data)
		return &proxy.Error{Code: lspext.RFDCodeInvalidParams, Message: method + ": " + ref.msg, Data: data}
	}
	var re *lsp.ResponseError
	if ctx.Err() == nil && errors.As(err, &re) {
		code := int64(re.Code)
		d := lspext.RFDErrorData{Code: &code, Message: re.Message}
		if len(re.Data) > 0 && json.Valid(re.Data) {
			d.Data = re.Data
		}
		data, _ := json.Marshal(d)
		return &proxy.Error{Code: int(re.Code), Message: method + ": " + err.Error(), Data: data}
	}
	return rpcError(ctx, method, err)
}
