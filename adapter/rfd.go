package adapter

// The editor's side of ACP's own LSP proposal (the RFD "Language Server
// Proxy", internal/lspext/rfd.go): an editor offering `lsp` in its
// capabilities lists its language servers per session (lsp/servers) and
// forwards raw LSP requests to one of them (lsp/request). The adapter
// turns the tool's `_lsp/request` and `_lsp/diagnosticReport` into those
// calls, per file: the editor's server for the file when one covers it
// and takes the method, local servers otherwise (docs/adapter.md,
// "The RFD upstream").

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/sessionsetup"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// rfdSession is one ACP session the editor's lsp/servers is asked about,
// with its folders (cwd and additionalDirectories), which the file of a
// request is matched against: the tool's requests carry no session id.
type rfdSession struct {
	id    string
	roots []string
}

// rfdState is what the adapter knows of an editor that speaks the RFD;
// guarded by Adapter.mu.
type rfdState struct {
	// on: the editor offered `lsp` in initialize.
	on bool
	// pending maps a session setup request's id to its session (the id
	// known for load and resume) until the answer names it.
	pending map[string]rfdSession
	// sessions in the order they were set up.
	sessions []rfdSession
	// lists caches each session's lsp/servers answer.
	lists map[string]*lspext.RFDServersResult
	// refused are "session\x00method" pairs the editor answered
	// method_not_forwarded for, beyond what its list says.
	refused map[string]bool
}

// rfdOn reports whether requests may go to the editor in the RFD's shape.
func (a *Adapter) rfdOn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rfd.on && !a.cfg.NoEditor
}

// rfdOffer records whether initialize params offer the RFD; a new
// initialize forgets what an earlier one set up.
func (a *Adapter) rfdOffer(hop *proxy.Hop, params json.RawMessage) {
	on := lspext.RFDOffered(params) && !a.cfg.NoEditor
	a.mu.Lock()
	a.rfd = rfdState{on: on, pending: map[string]rfdSession{}, lists: map[string]*lspext.RFDServersResult{}, refused: map[string]bool{}}
	a.mu.Unlock()
	if on {
		hop.Logger().Info("editor offers ACP's LSP proposal (lsp/servers, lsp/request)")
	}
}

// rfdSetupRequested remembers a session setup request's folders (and the
// session load and resume name) for its answer.
func (a *Adapter) rfdSetupRequested(m *proxy.Message, dirs []string) {
	s := rfdSession{roots: dirs}
	if sessionsetup.NamesSession(m.Method) {
		if raw, ok := proxy.GetPath(m.Params(), "sessionId"); ok {
			json.Unmarshal(raw, &s.id)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rfd.pending == nil {
		a.rfd.pending = map[string]rfdSession{}
	}
	if len(a.rfd.pending) < 1000 {
		a.rfd.pending[string(m.ID)] = s
	}
}

// rfdSetupAnswered records the session a setup answer names (new and
// fork answer its id; load and resume keep the one they named). It
// returns the session, ok false when there is nothing to record.
func (a *Adapter) rfdSetupAnswered(m *proxy.Message) (rfdSession, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.rfd.pending[string(m.ID)]
	delete(a.rfd.pending, string(m.ID))
	if !ok || len(m.Error()) > 0 {
		return rfdSession{}, false
	}
	id := s.id
	if raw, ok := proxy.GetPath(m.Result(), "sessionId"); ok {
		var rid string
		if json.Unmarshal(raw, &rid) == nil && rid != "" {
			id = rid
		}
	}
	if id == "" {
		return rfdSession{}, false
	}
	s.id = id
	a.rfd.sessions = slices.DeleteFunc(a.rfd.sessions, func(x rfdSession) bool { return x.id == id })
	if len(a.rfd.sessions) >= 1000 {
		a.rfd.sessions = a.rfd.sessions[1:]
	}
	a.rfd.sessions = append(a.rfd.sessions, s)
	delete(a.rfd.lists, id)
	return s, true
}

// rfdSessionFor is the session whose folders hold path most closely (the
// newest of equals); path "" takes the newest session.
func (a *Adapter) rfdSessionFor(path string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	best, depth := "", -1
	for _, s := range a.rfd.sessions {
		if path == "" {
			best, depth = s.id, 0
			continue
		}
		for _, r := range s.roots {
			if edit.Within(r, path) && len(r) >= depth {
				best, depth = s.id, len(r)
			}
		}
	}
	return best, depth >= 0
}

// rfdSessionIDs are every session's ids, newest last.
func (a *Adapter) rfdSessionIDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.rfd.sessions))
	for _, s := range a.rfd.sessions {
		ids = append(ids, s.id)
	}
	return ids
}

// rfdList is the session's lsp/servers answer: cached, asked again with
// fresh (after unknown_server, or to see whether a server is running
// yet).
func (a *Adapter) rfdList(ctx context.Context, hop *proxy.Hop, session string, fresh bool) (*lspext.RFDServersResult, error) {
	a.mu.Lock()
	l := a.rfd.lists[session]
	a.mu.Unlock()
	if l != nil && !fresh {
		return l, nil
	}
	b, err := json.Marshal(lspext.RFDServersParams{SessionID: session})
	if err != nil {
		return nil, err
	}
	raw, err := a.callOnce(ctx, hop, lspext.RFDServers, b)
	if isCode(err, proxy.CodeMethodNotFound) {
		// Offered but not answered: no servers, without asking each time.
		raw, err = json.RawMessage(`{"servers":[]}`), nil
	}
	if err != nil {
		return nil, err
	}
	var r lspext.RFDServersResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor answered %s with a malformed result: %v", lspext.RFDServers, err)}
	}
	a.mu.Lock()
	if a.rfd.lists != nil {
		a.rfd.lists[session] = &r
	}
	a.mu.Unlock()
	return &r, nil
}

// rfdForwards reports whether the editor forwards method for session: in
// its list (an answer without one lets the editor's errors tell) and not
// refused since.
func (a *Adapter) rfdForwards(session string, list *lspext.RFDServersResult, method string) bool {
	a.mu.Lock()
	refused := a.rfd.refused[session+"\x00"+method]
	a.mu.Unlock()
	return !refused && (list.AvailableMethods == nil || list.Forwards(method))
}

func (a *Adapter) rfdRefuse(session, method string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rfd.refused != nil && len(a.rfd.refused) < 10000 {
		a.rfd.refused[session+"\x00"+method] = true
	}
}

// rfdMiss says why no editor server takes a request.
type rfdMiss int

const (
	// rfdFound: a running server covers the file and has the capability.
	rfdFound rfdMiss = iota
	// rfdUncovered: no server's root and language cover the file.
	rfdUncovered
	// rfdIncapable: servers cover the file but none has the capability
	// the method needs.
	rfdIncapable
	// rfdNotRunning: the best server for the file does not take requests
	// now (starting, not_running, …).
	rfdNotRunning
)

// pickRFDServer chooses the server for a request on path (langs are its
// language ids, none when unknown) as the RFD advises: servers whose
// workspacePath holds the file; whose fileExtensions hold its extension
// (or, listing none, whose languageId is its language; a server saying
// neither is a weaker match); with the capability method needs; running
// first; then the most specific root. want, when set, names the server
// (its id, or "editor:"+name).
func pickRFDServer(servers []lspext.RFDServerInfo, path string, langs []string, method, want string) (lspext.RFDServerInfo, rfdMiss) {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	var (
		best    lspext.RFDServerInfo
		bestKey [3]int
		have    bool
		miss    = rfdUncovered
	)
	for _, s := range servers {
		if want != "" && want != s.ServerID && want != editorPrefix+s.Name {
			continue
		}
		if s.WorkspacePath == "" || !edit.Within(s.WorkspacePath, path) {
			continue
		}
		match := languageMatch(s, ext, langs)
		if match == 0 {
			continue
		}
		if !hasCapability(s.Capabilities, method) {
			if miss == rfdUncovered {
				miss = rfdIncapable
			}
			continue
		}
		running := 0
		if s.Running() {
			running = 1
		}
		key := [3]int{running, match, len(filepath.Clean(s.WorkspacePath))}
		if !have || cmpKey(key, bestKey) > 0 {
			best, bestKey, have = s, key, true
		}
	}
	switch {
	case !have:
		return lspext.RFDServerInfo{}, miss
	case !best.Running():
		return best, rfdNotRunning
	}
	return best, rfdFound
}

func cmpKey(a, b [3]int) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// languageMatch rates how well s covers a file: 2 when its extensions or
// its language name the file's (one of langs), 1 when it says neither, or
// names a language when the file's is unknown, 0 when it names others.
func languageMatch(s lspext.RFDServerInfo, ext string, langs []string) int {
	if s.LanguageID != "" && slices.Contains(langs, s.LanguageID) {
		return 2
	}
	switch {
	case len(s.FileExtensions) > 0:
		if ext != "" && slices.ContainsFunc(s.FileExtensions, func(e string) bool { return strings.EqualFold(strings.TrimPrefix(e, "."), ext) }) {
			return 2
		}
		return 0
	case s.LanguageID != "" && len(langs) > 0:
		return 0
	}
	return 1
}

// capabilityOf maps an LSP method to the ServerCapabilities key a server
// must set for it. Methods not listed are tried on any server.
var capabilityOf = map[string]string{
	"textDocument/hover":                     "hoverProvider",
	"textDocument/definition":                "definitionProvider",
	"textDocument/declaration":               "declarationProvider",
	"textDocument/typeDefinition":            "typeDefinitionProvider",
	"textDocument/implementation":            "implementationProvider",
	"textDocument/references":                "referencesProvider",
	"textDocument/documentSymbol":            "documentSymbolProvider",
	"workspace/symbol":                       "workspaceSymbolProvider",
	"textDocument/rename":                    "renameProvider",
	"textDocument/prepareRename":             "renameProvider",
	"textDocument/codeAction":                "codeActionProvider",
	"textDocument/formatting":                "documentFormattingProvider",
	"textDocument/rangeFormatting":           "documentRangeFormattingProvider",
	"textDocument/signatureHelp":             "signatureHelpProvider",
	"textDocument/completion":                "completionProvider",
	"textDocument/documentHighlight":         "documentHighlightProvider",
	"textDocument/prepareCallHierarchy":      "callHierarchyProvider",
	"callHierarchy/incomingCalls":            "callHierarchyProvider",
	"callHierarchy/outgoingCalls":            "callHierarchyProvider",
	"textDocument/prepareTypeHierarchy":      "typeHierarchyProvider",
	"typeHierarchy/supertypes":               "typeHierarchyProvider",
	"typeHierarchy/subtypes":                 "typeHierarchyProvider",
	"textDocument/diagnostic":                "diagnosticProvider",
	"workspace/diagnostic":                   "diagnosticProvider",
	"workspace/executeCommand":               "executeCommandProvider",
	"textDocument/inlayHint":                 "inlayHintProvider",
	"textDocument/semanticTokens/full":       "semanticTokensProvider",
	"textDocument/semanticTokens/range":      "semanticTokensProvider",
	"textDocument/documentLink":              "documentLinkProvider",
	"textDocument/codeLens":                  "codeLensProvider",
	"textDocument/moniker":                   "monikerProvider",
	"textDocument/inlineValue":               "inlineValueProvider",
	"textDocument/documentColor":             "colorProvider",
	"textDocument/colorPresentation":         "colorProvider",
	"textDocument/semanticTokens/full/delta": "semanticTokensProvider",
}

// hasCapability reports whether capabilities (a server's, verbatim) let it
// answer method: the provider key present and neither null nor false.
func hasCapability(capabilities json.RawMessage, method string) bool {
	key, ok := capabilityOf[method]
	if !ok {
		return true
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(capabilities, &caps) != nil {
		return false
	}
	return lspext.Offered(caps[key])
}

// editorPrefix names the editor's servers toward the tool
// ("editor:gopls"), apart from local ones of the same program.
const editorPrefix = "editor:"

// encodingOf is the position encoding of an editor server: its
// positionEncoding, UTF-16 when absent or unknown (the editor converts
// nothing, so the adapter does).
func encodingOf(s lspext.RFDServerInfo) position.Encoding {
	enc, err := position.ParseEncoding(lspext.RFDPositionEncoding(s.Capabilities))
	if err != nil {
		return position.UTF16
	}
	return enc
}

// languageOf are the language ids of path by the local configuration
// (lsp's registry): the one sent for the file and the language of the
// server serving it, which differ for a go.mod ("go.mod", "go"), so that
// an editor's gopls listing only .go files covers go.mod too; none when no
// configured server serves it.
func (a *Adapter) languageOf(path string) []string {
	for _, c := range a.configs() {
		if c.Serves(path) {
			if id := c.LanguageID(path); id != c.Language {
				return []string{id, c.Language}
			}
			return []string{c.Language}
		}
	}
	return nil
}

// rfdReason reads the RFD's reason from an editor's error.
func rfdReason(err error) (lspext.RFDErrorData, bool) {
	var pe *proxy.Error
	if !errors.As(err, &pe) || pe.Code != lspext.RFDCodeInvalidParams {
		return lspext.RFDErrorData{}, false
	}
	d, ok := lspext.ParseRFDErrorData(pe.Data)
	return d, ok && d.Reason != ""
}

// notRunning is the answer while the editor's server does not take
// requests: the server's state, never an empty result. The asker gets it
// as -32603 with its message (rpcError).
type notRunning struct {
	server, state string
}

func (e *notRunning) Error() string {
	what := "is still " + e.state
	if e.state != lspext.RFDStateStarting {
		what = "is not running (" + e.state + ")"
	}
	return fmt.Sprintf("the editor's language server %s%s %s, not ready yet: its answer is unknown, not empty; ask again shortly",
		editorPrefix, e.server, what)
}

// notRunningError is a notRunning for s in state (s's listed state when
// the editor's error gave none).
func notRunningError(s lspext.RFDServerInfo, state string) error {
	return &notRunning{server: s.Name, state: cmp.Or(state, s.State, "not running")}
}

// rfdSend is one lsp/request to server s: params converted from UTF-16
// (the adapter's vocabulary) to the server's encoding and its result
// back, positions of documents read from disk (uri is the document of
// positions outside any URI-bearing object).
func (a *Adapter) rfdSend(ctx context.Context, hop *proxy.Hop, session string, s lspext.RFDServerInfo, method, uri string, params json.RawMessage) (json.RawMessage, error) {
	enc := encodingOf(s)
	var err error
	if isNull(params) {
		params = json.RawMessage("null")
	} else if params, err = lsp.ConvertPositions(params, uri, position.UTF16, enc, a.cfg.LSP.MaxFileSize); err != nil {
		return nil, badParams("%s: %w", method, err)
	}
	b, err := json.Marshal(lspext.RFDRequestParams{SessionID: session, ServerID: s.ServerID, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	raw, err := a.callOnce(ctx, hop, lspext.RFDRequest, b)
	if err != nil {
		return nil, err
	}
	var r lspext.RFDRequestResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor answered %s with a malformed result: %v", lspext.RFDRequest, err)}
	}
	if isNull(r.LspResult) {
		return json.RawMessage("null"), nil
	}
	res, err := lsp.ConvertPositions(r.LspResult, uri, enc, position.UTF16, a.cfg.LSP.MaxFileSize)
	if err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s %s: %v", lspext.RFDRequest, method, err)}
	}
	return res, nil
}

// rfdAsk sends method on the file at path to the editor's server for it.
// handled is false when the request is not the editor's to answer: no
// session holds the file, the editor cannot list its servers, none covers
// the file or has the capability, or the method is not forwarded; the
// caller then asks local servers. A server not running yet is answered
// with its state, never by a local server.
func (a *Adapter) rfdAsk(ctx context.Context, hop *proxy.Hop, path, uri, method, want string, params json.RawMessage) (res json.RawMessage, server lspext.RFDServerInfo, handled bool, err error) {
	session, ok := a.rfdSessionFor(path)
	if !ok {
		return nil, server, false, nil
	}
	lang := a.languageOf(path)
	for attempt := range 2 {
		list, err := a.rfdList(ctx, hop, session, attempt > 0)
		if err != nil {
			if ctx.Err() != nil {
				return nil, server, true, err
			}
			a.log.Warn("the editor did not list its language servers; local servers answer", "session", session, "err", err)
			return nil, server, false, nil
		}
		if !a.rfdForwards(session, list, method) {
			return nil, server, false, nil
		}
		s, miss := pickRFDServer(list.Servers, path, lang, method, want)
		switch miss {
		case rfdUncovered, rfdIncapable:
			return nil, server, false, nil
		case rfdNotRunning:
			if attempt == 0 {
				continue // it may run by now
			}
			return nil, s, true, notRunningError(s, "")
		}
		res, err := a.rfdSend(ctx, hop, session, s, method, uri, params)
		if d, ok := rfdReason(err); ok {
			switch d.Reason {
			case lspext.RFDUnknownServer:
				if attempt == 0 {
					continue
				}
			case lspext.RFDServerNotRunning:
				a.dropList(session)
				return nil, s, true, notRunningError(s, d.State)
			case lspext.RFDMethodNotForwarded:
				a.rfdRefuse(session, method)
				return nil, server, false, nil
			}
		}
		return res, s, true, err
	}
	return nil, server, true, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s: the editor does not know its own server for %s", lspext.RFDRequest, uri)}
}

// dropList forgets a session's cached list, so the next request sees the
// servers' new states.
func (a *Adapter) dropList(session string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.rfd.lists, session)
}

// rfdRequest answers `_lsp/request` through the editor's RFD servers when
// they take it (handled), else leaves it to the next source.
func (a *Adapter) rfdRequest(ctx context.Context, hop *proxy.Hop, p lspext.RequestParams) (json.RawMessage, bool, error) {
	if !a.rfdOn() || lspext.RFDNeverForwarded(p.Method) || lspNotifications[p.Method] {
		return nil, false, nil
	}
	if p.URI == "" {
		return a.rfdWorkspace(ctx, hop, p)
	}
	path, err := pathOf(p.URI)
	if err != nil {
		return nil, false, nil
	}
	res, _, handled, err := a.rfdAsk(ctx, hop, path, p.URI, p.Method, p.Server, p.Params)
	return res, handled, err
}

// rfdWorkspace answers a request that names no file (workspace/symbol)
// from every running editor server of every session that has the
// capability, workspace symbols merged; local servers when none has.
func (a *Adapter) rfdWorkspace(ctx context.Context, hop *proxy.Hop, p lspext.RequestParams) (json.RawMessage, bool, error) {
	type target struct {
		session string
		server  lspext.RFDServerInfo
	}
	var (
		targets  []target
		starting []lspext.RFDServerInfo
		seen     = map[string]bool{}
	)
	for _, session := range a.rfdSessionIDs() {
		list, err := a.rfdList(ctx, hop, session, false)
		if err != nil || !a.rfdForwards(session, list, p.Method) {
			continue
		}
		for _, s := range list.Servers {
			if seen[s.ServerID] || !hasCapability(s.Capabilities, p.Method) ||
				(p.Server != "" && p.Server != s.ServerID && p.Server != editorPrefix+s.Name) {
				continue
			}
			seen[s.ServerID] = true
			if s.Running() {
				targets = append(targets, target{session, s})
			} else {
				starting = append(starting, s)
			}
		}
	}
	switch {
	case len(targets) == 0 && len(starting) > 0:
		return nil, true, notRunningError(starting[0], "")
	case len(targets) == 0:
		return nil, false, nil
	case p.Method != "workspace/symbol":
		t := targets[0]
		res, err := a.rfdSend(ctx, hop, t.session, t.server, p.Method, "", p.Params)
		return res, true, err
	}
	answers := make([]json.RawMessage, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			answers[i], errs[i] = a.rfdSend(ctx, hop, t.session, t.server, p.Method, "", p.Params)
		})
	}
	wg.Wait()
	var merged []json.RawMessage
	failed := 0
	for i, raw := range answers {
		if errs[i] != nil {
			failed++
			continue
		}
		var items []json.RawMessage
		if !isNull(raw) && json.Unmarshal(raw, &items) != nil {
			failed++
			continue
		}
		merged = append(merged, items...)
	}
	if failed == len(targets) {
		return nil, true, errs[0]
	}
	if merged == nil {
		return json.RawMessage("[]"), true, nil
	}
	out, err := json.Marshal(merged)
	return out, true, err
}

// rfdDiagnostics pulls the diagnostics of uris from the editor's servers
// (textDocument/diagnostic: the RFD has no push). rest are the files no
// editor server takes, for local servers.
func (a *Adapter) rfdDiagnostics(ctx context.Context, hop *proxy.Hop, uris []string) (*lspext.DiagnosticReportResult, []string) {
	out := &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{}, Servers: []lspext.ServerVerdict{}}
	type answer struct {
		handled bool
		server  string
		diags   json.RawMessage
		err     error
	}
	answers := make([]answer, len(uris))
	var wg sync.WaitGroup
	for i, uri := range uris {
		path, err := pathOf(uri)
		if err != nil {
			continue // local servers say what is wrong with it
		}
		wg.Go(func() {
			params, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": uri}})
			res, s, handled, err := a.rfdAsk(ctx, hop, path, uri, "textDocument/diagnostic", "", params)
			if !handled {
				return
			}
			ans := answer{handled: true, err: err}
			if s.Name != "" {
				ans.server = editorPrefix + s.Name
			}
			if err == nil {
				ans.diags, ans.err = pulledItems(res)
			}
			answers[i] = ans
		})
	}
	wg.Wait()
	var rest []string
	for i, ans := range answers {
		uri := uris[i]
		switch {
		case !ans.handled:
			rest = append(rest, uri)
		case ans.err != nil:
			verdict, detail := lspext.VerdictFailed, rpcError(ctx, lspext.DiagnosticReport, ans.err).Message
			var nr *notRunning
			switch {
			case errors.As(ans.err, &nr) && nr.state == lspext.RFDStateStarting:
				verdict, detail = lspext.VerdictStarting, nr.Error()
			case strings.Contains(detail, editorTimeoutText):
				verdict = lspext.VerdictTimeout
			}
			out.Servers = mergeVerdict(out.Servers, lspext.ServerVerdict{Server: cmp.Or(ans.server, editorServerName), Verdict: verdict, URIs: []string{uri}, Detail: detail})
		default:
			out.Files = append(out.Files, lspext.FileDiagnostics{URI: uri, Diagnostics: ans.diags, Server: ans.server})
			out.Servers = mergeVerdict(out.Servers, lspext.ServerVerdict{Server: ans.server, Verdict: lspext.VerdictFresh, URIs: []string{uri},
				Detail: "pulled from the editor's server (textDocument/diagnostic)"})
		}
	}
	return out, rest
}

// pulledItems reads a DocumentDiagnosticReport: a "full" report's items.
// "unchanged" cannot be used, as no previous result was given. gopls
// (v0.23) sends its full reports with kind "": items are taken whenever
// the kind is not "unchanged".
func pulledItems(res json.RawMessage) (json.RawMessage, error) {
	var r struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	// Items decoded as a list: anything else is no diagnostics list.
	if err := json.Unmarshal(res, &r); err != nil || isNull(res) {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor's server answered textDocument/diagnostic with a malformed report: %s", clip(res))}
	}
	if r.Kind == "unchanged" {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor's server answered textDocument/diagnostic with a %q report, not a full one", r.Kind)}
	}
	if r.Items == nil {
		return json.RawMessage("[]"), nil
	}
	return json.Marshal(r.Items)
}

// clip shortens raw for a message.
func clip(raw json.RawMessage) string {
	if len(raw) > 120 {
		return string(raw[:120]) + "…"
	}
	return string(raw)
}

// rfdServerInfos describes the editor's RFD servers for `_lsp/servers`
// and `_lsp/status` (uri, when set, restricts them to its file), each
// named "editor:"+name, with its state in the tool's words.
func (a *Adapter) rfdServerInfos(ctx context.Context, hop *proxy.Hop, uri string) []lspext.ServerInfo {
	path := ""
	if uri != "" {
		var err error
		if path, err = pathOf(uri); err != nil {
			return nil
		}
	}
	var out []lspext.ServerInfo
	seen := map[string]bool{}
	for _, session := range a.rfdSessionIDs() {
		list, err := a.rfdList(ctx, hop, session, true)
		if err != nil {
			out = append(out, lspext.ServerInfo{Name: editorServerName, Source: "editor", State: "failed", LastError: rpcError(ctx, lspext.RFDServers, err).Message})
			continue
		}
		lang := a.languageOf(path)
		for _, s := range list.Servers {
			if seen[s.ServerID] {
				continue
			}
			if path != "" && (!edit.Within(s.WorkspacePath, path) || languageMatch(s, strings.TrimPrefix(filepath.Ext(path), "."), lang) == 0) {
				continue
			}
			seen[s.ServerID] = true
			info := lspext.ServerInfo{Name: editorPrefix + s.Name, Source: "editor", Root: s.WorkspacePath, State: toolState(s.State), Capabilities: s.Capabilities}
			if s.LanguageID != "" {
				info.Languages = []string{s.LanguageID}
			}
			out = append(out, info)
		}
	}
	return out
}

// toolState is an RFD server state in the tool's words (lspext.ServerInfo).
func toolState(state string) string {
	switch state {
	case lspext.RFDStateRunning:
		return "ready"
	case lspext.RFDStateNotRunning:
		return "stopped"
	}
	return state
}

// rfdCovers reports whether an editor server of the session covers the
// language of local server c at path (whatever its state): c is then not
// started ahead of need. The language is matched, not the file: the file
// a prewarm starts gopls on may be go.mod, which the editor's gopls may
// not list among its extensions.
func (a *Adapter) rfdCovers(ctx context.Context, hop *proxy.Hop, session string, c lsp.ServerConfig, path string) bool {
	list, err := a.rfdList(ctx, hop, session, false)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(list.Servers, func(s lspext.RFDServerInfo) bool {
		if s.WorkspacePath == "" || !edit.Within(s.WorkspacePath, path) {
			return false
		}
		return (s.LanguageID != "" && s.LanguageID == c.Language) ||
			slices.ContainsFunc(c.Extensions, func(ext string) bool { return languageMatch(s, ext, nil) == 2 })
	})
}

// rfdSetup is run for a session setup answer: with the RFD on, the
// session is recorded, and the prewarm of its folders (put off until
// now) starts only the local servers no editor server covers.
func (a *Adapter) rfdSetup(hop *proxy.Hop, m *proxy.Message) bool {
	s, ok := a.rfdSetupAnswered(m)
	if !ok || !a.rfdOn() {
		return false
	}
	if a.cfg.Prewarm && !a.cfg.NoLocal {
		for _, dir := range s.roots {
			a.background(func(ctx context.Context) {
				a.prewarmWhere(ctx, dir, func(c lsp.ServerConfig, path string) bool { return !a.rfdCovers(ctx, hop, s.id, c, path) })
			})
		}
	}
	return true
}

// rfdOrLocalDiagnostics answers `_lsp/diagnosticReport` with the editor's
// RFD servers: the files they cover pulled from them, the others from
// local servers (a workspace-wide report covers the files local servers'
// report would, split the same way).
func (a *Adapter) rfdOrLocalDiagnostics(ctx context.Context, hop *proxy.Hop, p lspext.DiagnosticReportParams) (*lspext.DiagnosticReportResult, error) {
	uris := p.URIs
	var ws workspaceScope
	if len(uris) == 0 {
		uris, ws = a.workspaceURIs()
	}
	out, rest := a.rfdDiagnostics(ctx, hop, uris)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(rest) == 0 && len(p.URIs) > 0 {
		return out, nil
	}
	if a.cfg.NoLocal {
		if len(rest) > 0 {
			out.Servers = append(out.Servers, lspext.ServerVerdict{Server: noteServer, Verdict: lspext.VerdictUnsupported, URIs: rest,
				Detail: "no editor server takes these files and local language servers are turned off"})
		}
		return out, nil
	}
	local, err := a.localReport(ctx, rest, p.WaitDuration(), ws)
	if err != nil {
		return nil, err
	}
	out.Files = append(out.Files, local.Files...)
	for _, v := range local.Servers {
		out.Servers = mergeVerdict(out.Servers, v)
	}
	return out, nil
}
