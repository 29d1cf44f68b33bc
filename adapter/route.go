package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// serve answers one `_lsp/*` request (method in canonical spelling) from
// the editor or local servers, per method: the editor when it offers the
// method (or its reference form), local servers otherwise, and local
// servers again when the editor turns out not to answer it (-32601).
func (a *Adapter) serve(ctx context.Context, hop *proxy.Hop, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case lspext.Request:
		return a.request(ctx, hop, params)
	case lspext.DiagnosticReport:
		return a.diagnosticReport(ctx, hop, params)
	case lspext.Servers, lspext.Status:
		return a.servers(ctx, hop, method, params)
	case lspext.Restart:
		return a.restart(ctx, hop, params)
	case lspext.Check:
		return a.check(ctx, hop, params)
	}
	if slices.Contains(referenceMethods, method) {
		return a.reference(ctx, hop, method, params)
	}
	if _, ok := a.editorOffers(method); ok {
		return a.callEditor(ctx, hop, method, params)
	}
	return nil, unsupported("%s is not a method of the _lsp extension acp-lsp answers (see docs/protocol.md)", method)
}

// editorOffers reports whether the editor answers method (canonical) and
// the spelling it listed.
func (a *Adapter) editorOffers(method string) (string, bool) {
	if a.cfg.NoEditor {
		return "", false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lacks[method] {
		return "", false
	}
	return a.editor.has(method)
}

// callEditor sends method (canonical) to the editor with params, within
// EditorTimeout. Until a spelling is known to work, an answer of -32601 or
// null makes it retry once with the other spelling; the one that answers
// is remembered for the editor. A method refused in both spellings is
// remembered as one the editor lacks, and answered -32601 (callers fall
// back to local servers).
func (a *Adapter) callEditor(ctx context.Context, hop *proxy.Hop, method string, params json.RawMessage) (json.RawMessage, error) {
	listed, _ := a.editorOffers(method)
	a.mu.Lock()
	confirmed := a.spelling
	a.mu.Unlock()
	first := confirmed
	switch {
	case first != "":
	case a.cfg.Spelling != "":
		first = a.cfg.Spelling
	case listed != "":
		first = listed
	default:
		first = "_lsp"
	}
	res, err := a.callOnce(ctx, hop, spell(first, method), params)
	if confirmed != "" {
		if isCode(err, proxy.CodeMethodNotFound) && method != lspext.Request {
			a.lack(method)
		}
		return res, err
	}
	if err == nil && !isNull(res) {
		a.confirm(first)
		return res, nil
	}
	if err != nil && !isCode(err, proxy.CodeMethodNotFound) {
		return nil, err
	}
	second := "lsp"
	if first == "lsp" {
		second = "_lsp"
	}
	res2, err2 := a.callOnce(ctx, hop, spell(second, method), params)
	switch {
	case err2 == nil && !isNull(res2):
		a.confirm(second)
		return res2, nil
	case err2 == nil:
		// Null after -32601 or null confirms nothing: null is also how
		// old Rust SDKs answer a method they do not know, so the
		// spelling may be unknown to the editor; confirming it would
		// send every later call where only null comes back.
		return json.RawMessage("null"), nil
	case isCode(err2, proxy.CodeMethodNotFound):
		if err == nil {
			a.confirm(first)
			return res, nil
		}
		if method != lspext.Request {
			// For the passthrough, -32601 may concern the LSP method
			// inside: only this call falls back.
			a.lack(method)
		}
		return nil, unsupported("the editor does not answer %s (-32601 to both spellings)", method)
	}
	if err == nil {
		return res, nil
	}
	return nil, err2
}

func (a *Adapter) confirm(spelling string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.spelling == "" {
		a.spelling = spelling
	}
}

func (a *Adapter) lack(method string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lacks[method] = true
}

// editorTimeoutText starts the message of an editor timeout.
const editorTimeoutText = "the editor did not answer"

// callOnce is one editor call bounded by EditorTimeout. Its errors are
// JSON-RPC errors for the asker: the editor's own (code kept, message
// prefixed), or -32603 when the editor did not answer in time (a late
// answer is dropped by the chain).
func (a *Adapter) callOnce(ctx context.Context, hop *proxy.Hop, name string, params json.RawMessage) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, a.cfg.EditorTimeout)
	defer cancel()
	res, err := hop.CallClient(cctx, name, params)
	if err == nil {
		return res, nil
	}
	var pe *proxy.Error
	switch {
	case errors.As(err, &pe):
		return nil, &proxy.Error{Code: pe.Code, Message: "editor answered " + name + ": " + pe.Message, Data: pe.Data}
	case ctx.Err() != nil:
		return nil, err
	case errors.Is(err, context.DeadlineExceeded):
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s %s within %s", editorTimeoutText, name, a.cfg.EditorTimeout)}
	}
	return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("editor call %s: %v", name, err)}
}

// editorServer reports whether server names an editor-side server.
func editorServer(server string) bool {
	return server == "editor" || strings.HasPrefix(server, "editor:")
}

// request answers `_lsp/request`: through the editor's raw passthrough when
// it offers one, else through the editor's reference method for the LSP
// method when it offers that, else from local servers. With readiness
// asked for, the answer is an lspext.RequestResult: the raw result byte
// for byte, and the readiness local servers had when they answered (an
// editor does not say it).
func (a *Adapter) request(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.RequestParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, badParams("params: %w", err)
	}
	if p.Method == "" {
		return nil, badParams("params: method is missing")
	}
	if !p.Readiness {
		res, _, err := a.answerRequest(ctx, hop, params, p)
		return res, err
	}
	// The editor's passthrough is asked as the protocol defines it,
	// without the flags.
	p.Readiness = false
	q := p
	q.Peek = false
	plain, err := json.Marshal(q)
	if err != nil {
		return nil, badParams("params: %w", err)
	}
	res, ready, err := a.answerRequest(ctx, hop, plain, p)
	if err != nil {
		return nil, err
	}
	return requestResult(res, ready)
}

// requestResult wraps a raw result with readiness, the result's bytes
// kept as they came.
func requestResult(res json.RawMessage, ready []lspext.Readiness) (json.RawMessage, error) {
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	out := append([]byte(`{"result":`), res...)
	if len(ready) > 0 {
		b, err := json.Marshal(ready)
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"readiness":`...), b...)
	}
	return append(out, '}'), nil
}

// answerRequest is request's answer and the readiness of the local
// servers that gave it (none from the editor).
func (a *Adapter) answerRequest(ctx context.Context, hop *proxy.Hop, params json.RawMessage, p lspext.RequestParams) (json.RawMessage, []lspext.Readiness, error) {
	// A server named like a configured local one is local; any other
	// name is one the editor listed.
	local := p.Server != "" && !editorServer(p.Server) && a.localName(p.Server)
	editorOnly := p.Server != "" && !local
	if !local {
		// ACP's own proposal first: an editor offering it and `_meta.lsp`
		// is served in its shape.
		if res, handled, err := a.rfdRequest(ctx, hop, p); handled {
			return res, nil, err
		}
		if _, ok := a.editorOffers(lspext.Request); ok {
			res, err := a.callEditor(ctx, hop, lspext.Request, params)
			if !isCode(err, proxy.CodeMethodNotFound) || editorOnly {
				return res, nil, err
			}
			a.log.Debug("editor passthrough refused; trying the next source", "method", p.Method, "err", err)
		}
		if ref, ok := nativeToReference[p.Method]; ok {
			if _, ok := a.editorOffers(ref); ok {
				res, err := a.viaReference(ctx, hop, ref, p.Params)
				if !isCode(err, proxy.CodeMethodNotFound) {
					return res, nil, err
				}
			}
		}
		if editorOnly {
			return nil, nil, unsupported("no local language server is named %q and the editor does not answer %s for it", p.Server, p.Method)
		}
	}
	return a.localRequest(ctx, p)
}

// localName reports whether name is a configured local server.
func (a *Adapter) localName(name string) bool {
	return slices.ContainsFunc(a.configs(), func(c lsp.ServerConfig) bool { return c.Name == name })
}

// viaReference asks the editor reference method ref for the LSP request
// with native params, and returns the answer in native form.
func (a *Adapter) viaReference(ctx context.Context, hop *proxy.Hop, ref string, native json.RawMessage) (json.RawMessage, error) {
	rp, err := referenceParams(ref, native)
	if err != nil {
		return nil, err
	}
	res, err := a.callEditor(ctx, hop, ref, rp)
	if err != nil {
		return nil, err
	}
	out, err := nativeResult(ref, res)
	if err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor answered %s with a malformed result: %v", ref, err)}
	}
	return out, nil
}

// reference answers a reference method an agent sent itself (1-based):
// the editor's answer as is when it offers the method, else local servers'
// answer converted.
func (a *Adapter) reference(ctx context.Context, hop *proxy.Hop, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != lspext.Diagnostics && a.rfdOn() {
		// The editor's RFD servers, converted; local servers for what
		// they do not take.
		return a.referenceVia(ctx, method, params, func(ctx context.Context, call localCall) (json.RawMessage, error) {
			p := lspext.RequestParams{URI: call.uri, Method: call.method, Params: call.params}
			b, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			res, _, err := a.answerRequest(ctx, hop, b, p)
			return res, err
		})
	}
	if _, ok := a.editorOffers(method); ok {
		res, err := a.callEditor(ctx, hop, method, params)
		if !isCode(err, proxy.CodeMethodNotFound) {
			return res, err
		}
	}
	if method != lspext.Diagnostics {
		if _, ok := a.editorOffers(lspext.Request); ok {
			// The editor's servers through its passthrough, converted.
			res, err := a.referenceVia(ctx, method, params, func(ctx context.Context, call localCall) (json.RawMessage, error) {
				b, err := json.Marshal(lspext.RequestParams{URI: call.uri, Method: call.method, Params: call.params})
				if err != nil {
					return nil, err
				}
				return a.callEditor(ctx, hop, lspext.Request, b)
			})
			if !isCode(err, proxy.CodeMethodNotFound) {
				return res, err
			}
		}
	}
	if a.cfg.NoLocal {
		return nil, a.localOff(method)
	}
	if method == lspext.Diagnostics {
		var p lspext.URIParams
		if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
			return nil, badParams("%s: params need uri", method)
		}
		rep, err := a.rfdOrLocalDiagnostics(ctx, hop, lspext.DiagnosticReportParams{URIs: []string{p.URI}})
		if err != nil {
			return nil, err
		}
		var diags []lspext.Diagnostic
		for _, f := range rep.Files {
			d, err := referenceDiagnostics(f.Diagnostics)
			if err != nil {
				return nil, err
			}
			diags = append(diags, d...)
		}
		// The reference shape cannot say "not checked": an empty list
		// there would read as "no problems", so fail instead, by the rule
		// every answer follows (lspext.Clean). Diagnostics found stand.
		if len(diags) == 0 && !lspext.Clean(rep.Servers) {
			for _, v := range rep.Servers {
				if v.Unsettled() {
					return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s: %s: %s %s", method, v.Server, v.Verdict, v.Detail)}
				}
			}
			return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s: no language server answered for %s", method, p.URI)}
		}
		if diags == nil {
			diags = []lspext.Diagnostic{}
		}
		return marshal(diags)
	}
	return a.referenceVia(ctx, method, params, func(ctx context.Context, call localCall) (json.RawMessage, error) {
		res, _, err := a.localRequest(ctx, lspext.RequestParams{URI: call.uri, Method: call.method, Params: call.params})
		return res, err
	})
}

// referenceVia answers reference method ref by sending the LSP request it
// stands for through send and converting the native answer back.
func (a *Adapter) referenceVia(ctx context.Context, ref string, params json.RawMessage, send func(context.Context, localCall) (json.RawMessage, error)) (json.RawMessage, error) {
	call, err := nativeCall(ref, params)
	if err != nil {
		return nil, err
	}
	raw, err := send(ctx, call)
	if err != nil {
		return nil, err
	}
	out, err := referenceResult(ref, raw)
	if err != nil {
		return nil, &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("%s: the server's answer to %s is malformed: %v", ref, call.method, err)}
	}
	return out, nil
}

// diagnosticReport answers `_lsp/diagnosticReport`: the editor's own when
// it offers it, else the editor's `_lsp/diagnostics` per file, else local
// servers.
func (a *Adapter) diagnosticReport(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.DiagnosticReportParams
	if !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, badParams("params: %w", err)
		}
	}
	if a.rfdOn() {
		rep, err := a.rfdOrLocalDiagnostics(ctx, hop, p)
		if err != nil {
			return nil, err
		}
		return marshal(rep)
	}
	if _, ok := a.editorOffers(lspext.DiagnosticReport); ok {
		res, err := a.callEditor(ctx, hop, lspext.DiagnosticReport, params)
		if !isCode(err, proxy.CodeMethodNotFound) {
			return res, err
		}
	}
	if _, ok := a.editorOffers(lspext.Diagnostics); ok {
		rep, err := a.editorDiagnostics(ctx, hop, p)
		if err == nil {
			return marshal(rep)
		}
		if !isCode(err, proxy.CodeMethodNotFound) {
			return nil, err
		}
	}
	rep, err := a.localDiagnosticReport(ctx, p)
	if err != nil {
		return nil, err
	}
	return marshal(rep)
}

// editorServerName names the editor in reports.
const editorServerName = "editor"

// editorDiagnostics asks the editor for each file's diagnostics (in
// parallel). The editor's answer is what it currently holds for the file;
// a file it failed on gets a failed or timeout verdict, never an empty
// "no problems".
func (a *Adapter) editorDiagnostics(ctx context.Context, hop *proxy.Hop, p lspext.DiagnosticReportParams) (*lspext.DiagnosticReportResult, error) {
	uris := p.URIs
	held := "as the editor currently holds them"
	workspace := len(uris) == 0
	if workspace {
		// The editor is asked per file and knows only the files it
		// reported on: a clean answer for these says nothing of the rest.
		uris = a.knownURIs()
		held = fmt.Sprintf("workspace: only the %s the editor has reported on; files it has not opened were not checked", plural(len(uris), "file"))
	}
	type answer struct {
		diags json.RawMessage
		err   error
	}
	answers := make([]answer, len(uris))
	var wg sync.WaitGroup
	for i, uri := range uris {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(lspext.URIParams{URI: uri})
			res, err := a.callEditor(ctx, hop, lspext.Diagnostics, b)
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			diags, err := nativeDiagnostics(res)
			if err != nil {
				answers[i] = answer{err: &proxy.Error{Code: proxy.CodeInternalError, Message: fmt.Sprintf("the editor answered %s with a malformed result: %v", lspext.Diagnostics, err)}}
				return
			}
			b, err = marshal(diags)
			answers[i] = answer{diags: b, err: err}
		}()
	}
	wg.Wait()
	out := &lspext.DiagnosticReportResult{Files: []lspext.FileDiagnostics{}, Servers: []lspext.ServerVerdict{}}
	for i, ans := range answers {
		if ans.err != nil {
			if isCode(ans.err, proxy.CodeMethodNotFound) {
				return nil, ans.err
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			verdict := lspext.VerdictFailed
			if strings.Contains(ans.err.Error(), editorTimeoutText) {
				verdict = lspext.VerdictTimeout
			}
			out.Servers = mergeVerdict(out.Servers, lspext.ServerVerdict{Server: editorServerName, Verdict: verdict, URIs: []string{uris[i]}, Detail: rpcError(ctx, lspext.Diagnostics, ans.err).Message})
			continue
		}
		out.Files = append(out.Files, lspext.FileDiagnostics{URI: uris[i], Diagnostics: ans.diags, Server: editorServerName})
		out.Servers = mergeVerdict(out.Servers, lspext.ServerVerdict{Server: editorServerName, Verdict: lspext.VerdictFresh, URIs: []string{uris[i]},
			Detail: held})
	}
	if workspace {
		// How many is not known: the editor is not asked what the
		// workspace holds.
		out.Servers = append(out.Servers, lspext.ServerVerdict{Server: editorServerName, Verdict: lspext.VerdictUnchecked,
			Detail: "files the editor has not reported on were not checked; name files or a glob to check them"})
	}
	return out, nil
}

// servers answers `_lsp/servers` and `_lsp/status`: the editor's servers
// (from its passthrough, or one "editor" entry when it answers reference
// methods) and the local ones.
func (a *Adapter) servers(ctx context.Context, hop *proxy.Hop, method string, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.ServersParams
	if !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, badParams("params: %w", err)
		}
	}
	infos := []lspext.ServerInfo{}
	rfd := a.rfdOn()
	if rfd {
		// The RFD's list is the editor's: a `_meta.lsp` list beside it
		// is not asked.
		infos = append(infos, a.rfdServerInfos(ctx, hop, p.URI)...)
	}
	ask := method
	if _, ok := a.editorOffers(ask); !ok && method == lspext.Status {
		ask = lspext.Servers // the passthrough's list is the editor's status too
		params = json.RawMessage("{}")
	}
	if _, ok := a.editorOffers(ask); ok && !rfd {
		res, err := a.callEditor(ctx, hop, ask, params)
		var r lspext.ServersResult
		switch {
		case err != nil:
			infos = append(infos, lspext.ServerInfo{Name: editorServerName, Source: "editor", State: "failed", LastError: rpcError(ctx, method, err).Message})
		case json.Unmarshal(res, &r) != nil:
			infos = append(infos, lspext.ServerInfo{Name: editorServerName, Source: "editor", State: "failed", LastError: "the editor answered " + method + " with a malformed result"})
		default:
			for _, s := range r.Servers {
				if s.Source == "" {
					s.Source = "editor"
				}
				infos = append(infos, s)
			}
		}
	} else if caps := a.editorCapabilities(); caps != nil && !rfd {
		infos = append(infos, lspext.ServerInfo{Name: editorServerName, Source: "editor", State: "ready", Capabilities: caps})
	}
	uri := p.URI
	if method == lspext.Status {
		uri = ""
	}
	local, err := a.localServers(uri)
	if err != nil {
		return nil, err
	}
	return marshal(lspext.ServersResult{Servers: append(infos, local...)})
}

// editorCapabilities describes what the editor answers through reference
// methods as LSP ServerCapabilities, or nil when it answers none.
func (a *Adapter) editorCapabilities() json.RawMessage {
	caps := map[string]bool{}
	for native, ref := range nativeToReference {
		if _, ok := a.editorOffers(ref); ok {
			caps[strings.TrimPrefix(strings.TrimPrefix(native, "textDocument/"), "workspace/")+"Provider"] = true
		}
	}
	if _, ok := a.editorOffers(lspext.Diagnostics); ok {
		caps["diagnosticProvider"] = true
	}
	if len(caps) == 0 {
		return nil
	}
	b, _ := json.Marshal(caps)
	return b
}

// restart answers `_lsp/restart`: the editor's when the server is the
// editor's (and it offers restart), else the local server named or
// handling uri.
func (a *Adapter) restart(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.RestartParams
	if !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, badParams("params: %w", err)
		}
	}
	if p.Server == "" && p.URI == "" {
		return nil, badParams("params: give server or uri")
	}
	named := p.Server != ""
	if editorServer(p.Server) || (named && !a.localName(p.Server)) || (!named && a.editorAnswersFiles()) {
		if _, ok := a.editorOffers(lspext.Restart); ok {
			res, err := a.callEditor(ctx, hop, lspext.Restart, params)
			// Refused in both spellings: local servers restart it, as
			// for every method the editor turns out not to answer.
			if !isCode(err, proxy.CodeMethodNotFound) {
				return res, err
			}
		}
		if editorServer(p.Server) {
			return nil, unsupported("the editor's language servers cannot be restarted from here; restart them in the editor")
		}
	}
	if a.cfg.NoLocal {
		return nil, a.localOff(lspext.Restart)
	}
	path := ""
	if p.URI != "" {
		var err error
		if path, err = pathOf(p.URI); err != nil {
			return nil, err
		}
	}
	if err := a.localRestart(ctx, p.Server, path); err != nil {
		return nil, err
	}
	return json.RawMessage("null"), nil
}

// editorAnswersFiles reports whether the editor answers file requests
// through its raw passthrough (so a restart by file concerns it).
func (a *Adapter) editorAnswersFiles() bool {
	_, ok := a.editorOffers(lspext.Request)
	return ok
}
