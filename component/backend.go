package component

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Backend is what the tool needs from below the adapter. Positions in
// requests and answers are LSP-native: 0-based lines, characters in UTF-16
// code units; payloads are raw LSP JSON.
//
// Implementations must be safe for concurrent use: tool calls of several
// sessions run at once. No ordering is promised between calls; FilesChanged
// returns only once upstream has been told, so a request made after it
// returns sees the new content.
type Backend interface {
	// Request sends a raw LSP request (e.g. "textDocument/definition") to
	// the server handling uri and returns its raw result, with the
	// readiness of the servers that gave it when the backend knows it (a
	// list given while a server was loading may be incomplete). An LSP
	// notification method (e.g. "workspace/didRenameFiles") is sent as a
	// notification and answers null.
	Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error)
	// DiagnosticReport returns the diagnostics of uris (all of the
	// workspace when empty) with a freshness verdict per server, waiting
	// at most wait for fresh answers; a zero wait takes the backend's
	// default, a negative wait (NoWait) does not wait and answers with
	// what the servers have already said.
	DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error)
	// Servers lists the language servers, those handling uri when it is
	// not empty, with their capabilities.
	Servers(ctx context.Context, uri string) ([]lspext.ServerInfo, error)
	// Status reports every server's state, root, pid, memory and last
	// error.
	Status(ctx context.Context) ([]lspext.ServerInfo, error)
	// Restart restarts the named server (or those handling uri).
	Restart(ctx context.Context, server, uri string) error
	// FilesChanged tells upstream that files changed on disk.
	FilesChanged(ctx context.Context, changes []lspext.FileChange) error
}

// CallFunc sends a request upstream (toward the editor) and returns its raw
// result. The proxy integration provides it.
type CallFunc func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// NotifyFunc sends a notification upstream.
type NotifyFunc func(ctx context.Context, method string, params json.RawMessage) error

// Wire is the Backend that speaks the `_lsp/*` vocabulary over Call and
// Notify. It keeps no state and is safe for concurrent use as long as Call
// and Notify are.
type Wire struct {
	Call   CallFunc
	Notify NotifyFunc
}

var _ Backend = (*Wire)(nil)

// Request implements Backend through _lsp/request, asked with readiness
// (docs/protocol.md, §3.1).
func (w *Wire) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	raw, err := w.call(ctx, lspext.Request, lspext.RequestParams{URI: uri, Method: method, Params: params, Readiness: true})
	if err != nil {
		return lspext.RequestResult{}, err
	}
	return requestResult(raw)
}

// Peeker is the optional Backend method for a request that reads a file
// in passing (the outline behind enclosing symbols): as Request, but a
// file the servers did not have open is not left open (nor, where the
// server answers about it unopened, opened at all), so they do not
// analyse every file a long answer lists.
type Peeker interface {
	Peek(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error)
}

var _ Peeker = (*Wire)(nil)

// Peek implements Peeker through _lsp/request with the peek flag.
func (w *Wire) Peek(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	raw, err := w.call(ctx, lspext.Request, lspext.RequestParams{URI: uri, Method: method, Params: params, Readiness: true, Peek: true})
	if err != nil {
		return lspext.RequestResult{}, err
	}
	return requestResult(raw)
}

// requestResult reads the answer of `_lsp/request` asked with readiness:
// the raw result is only located, not decoded (the action decodes it).
// An answer that is not the envelope (upstream did not know the flag) is
// the raw result itself, of unknown readiness.
func requestResult(raw json.RawMessage) (lspext.RequestResult, error) {
	f, err := proxy.Fields(raw, "result", "readiness")
	if err != nil || f[0] == nil {
		return lspext.RequestResult{Result: raw}, nil
	}
	res := lspext.RequestResult{Result: f[0]}
	if f[1] != nil {
		if err := json.Unmarshal(f[1], &res.Readiness); err != nil {
			return res, fmt.Errorf("%s: malformed readiness: %w", lspext.Request, err)
		}
	}
	return res, nil
}

// DiagnosticReport implements Backend through _lsp/diagnosticReport.
func (w *Wire) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	raw, err := w.call(ctx, lspext.DiagnosticReport, lspext.DiagnosticReportParams{URIs: uris, Wait: lspext.WaitMillis(wait)})
	if err != nil {
		return nil, err
	}
	var res lspext.DiagnosticReportResult
	if err := decodeResult(lspext.DiagnosticReport, raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Servers implements Backend through _lsp/servers.
func (w *Wire) Servers(ctx context.Context, uri string) ([]lspext.ServerInfo, error) {
	return w.servers(ctx, lspext.Servers, uri)
}

// Status implements Backend through _lsp/status.
func (w *Wire) Status(ctx context.Context) ([]lspext.ServerInfo, error) {
	return w.servers(ctx, lspext.Status, "")
}

// Restart implements Backend through _lsp/restart.
func (w *Wire) Restart(ctx context.Context, server, uri string) error {
	_, err := w.call(ctx, lspext.Restart, lspext.RestartParams{Server: server, URI: uri})
	return err
}

// FilesChanged implements Backend through the _lsp/filesChanged
// notification.
func (w *Wire) FilesChanged(ctx context.Context, changes []lspext.FileChange) error {
	if w.Notify == nil {
		return errors.New("files changed: no upstream notify function")
	}
	if changes == nil {
		changes = []lspext.FileChange{}
	}
	b, err := json.Marshal(lspext.FilesChangedParams{Changes: changes})
	if err != nil {
		return fmt.Errorf("files changed: %w", err)
	}
	// The files are written already: upstream must hear of it even when
	// the tool call that wrote them was cancelled meanwhile, or its
	// servers keep the old content (Notify waits for the hop on ctx and
	// would give up at random).
	if err := w.Notify(context.WithoutCancel(ctx), lspext.FilesChanged, b); err != nil {
		return fmt.Errorf("files changed: %w", err)
	}
	return nil
}

func (w *Wire) servers(ctx context.Context, method, uri string) ([]lspext.ServerInfo, error) {
	raw, err := w.call(ctx, method, lspext.ServersParams{URI: uri})
	if err != nil {
		return nil, err
	}
	var res lspext.ServersResult
	if err := decodeResult(method, raw, &res); err != nil {
		return nil, err
	}
	return res.Servers, nil
}

func (w *Wire) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if w.Call == nil {
		return nil, fmt.Errorf("%s: no upstream call function", method)
	}
	if err := ctx.Err(); err != nil {
		// The asker gave up already (e.g. a cancelled tool call explaining
		// its failure): the chain would still deliver the request, and
		// upstream start on it, before it noticed the cancel.
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	raw, err := w.Call(ctx, method, b)
	if err != nil {
		var pe *proxy.Error
		if errors.As(err, &pe) {
			msg := cleanMessage(pe.Message)
			if strings.TrimSpace(msg) == "" {
				// An error without words (an editor's bare {"code":…}, or
				// "_lsp/x: " alone) would reach the model as an empty
				// error: say at least what failed and its code.
				msg = fmt.Sprintf("%s: upstream error %d without a message", method, pe.Code)
			}
			return nil, &answerError{pe: pe, msg: msg}
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
}

// answerError is an error answer from upstream. Its text is upstream's
// message alone: that already names what failed, while the JSON-RPC code
// and the extension method's name mean nothing to the model reading it.
type answerError struct {
	pe  *proxy.Error
	msg string
}

func (e *answerError) Error() string { return e.msg }
func (e *answerError) Unwrap() error { return e.pe }

// cleanMessage drops leading "_lsp/x: " prefixes.
func cleanMessage(msg string) string {
	for {
		rest, ok := strings.CutPrefix(msg, "_lsp/")
		i := strings.Index(rest, ": ")
		if !ok || i < 0 {
			return msg
		}
		msg = rest[i+2:]
	}
}

func decodeResult(method string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("%s: upstream answered null (does it speak the extension?)", method)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: malformed answer: %w", method, err)
	}
	return nil
}

// upstreamError marks a failure of the Backend (as opposed to a tool input
// the component refused), so the tool can add what the servers are doing.
type upstreamError struct{ err error }

func (e *upstreamError) Error() string { return e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

func upstream(err error) error {
	if err == nil {
		return nil
	}
	return &upstreamError{err}
}

// marking wraps a Backend so that its errors are upstreamErrors.
type marking struct{ b Backend }

func (m marking) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	r, err := m.b.Request(ctx, uri, method, params)
	return r, upstream(err)
}

// Peek implements Peeker, as Request when the wrapped Backend cannot
// peek.
func (m marking) Peek(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	p, ok := m.b.(Peeker)
	if !ok {
		return m.Request(ctx, uri, method, params)
	}
	r, err := p.Peek(ctx, uri, method, params)
	return r, upstream(err)
}

func (m marking) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	r, err := m.b.DiagnosticReport(ctx, uris, wait)
	return r, upstream(err)
}

func (m marking) Servers(ctx context.Context, uri string) ([]lspext.ServerInfo, error) {
	r, err := m.b.Servers(ctx, uri)
	return r, upstream(err)
}

func (m marking) Status(ctx context.Context) ([]lspext.ServerInfo, error) {
	r, err := m.b.Status(ctx)
	return r, upstream(err)
}

func (m marking) Restart(ctx context.Context, server, uri string) error {
	return upstream(m.b.Restart(ctx, server, uri))
}

func (m marking) FilesChanged(ctx context.Context, changes []lspext.FileChange) error {
	return upstream(m.b.FilesChanged(ctx, changes))
}

// indexingData is the error data the adapter attaches when a server is
// still loading the project (docs/protocol.md, Conventions).
type indexingData struct {
	Indexing bool              `json:"indexing"`
	Server   string            `json:"server"`
	Work     []string          `json:"work"`
	Progress []lspext.Progress `json:"progress"`
}

// indexingOf returns the indexing data carried by err, if any.
func indexingOf(err error) (indexingData, bool) {
	var pe *proxy.Error
	var d indexingData
	if errors.As(err, &pe) && len(pe.Data) > 0 && json.Unmarshal(pe.Data, &d) == nil && d.Indexing {
		return d, true
	}
	return d, false
}

// statusWait bounds the status lookup that explains a failed call.
const statusWait = 2 * time.Second

// explain turns a failed tool call into the error the model reads. A
// server still loading the project is said to be indexing (its answer
// would not be a result); any other failure of the servers is followed by
// the state of servers that are starting or indexing, so a timeout during
// a start never reads like a plain error or an empty result.
func (c *Tool) explain(ctx context.Context, err error) error {
	var ue *upstreamError
	if !errors.As(err, &ue) {
		return err
	}
	if d, ok := indexingOf(err); ok {
		work := ""
		switch {
		case len(d.Progress) > 0:
			work = " (" + progressText(d.Progress) + ")"
		case len(d.Work) > 0:
			work = " (" + strings.Join(d.Work, ", ") + ")"
		}
		return fmt.Errorf("indexing: language server %s is still loading the project%s and has no answer yet. This is NOT an empty result: try again in a few seconds (action=status shows its state)", cmp.Or(d.Server, "?"), work)
	}
	busy := c.busyServers(ctx)
	if len(busy) == 0 {
		return err
	}
	return fmt.Errorf("%w\nnote: %s: the failure above is not an empty result; try again in a few seconds", err, strings.Join(busy, ", "))
}

// busyServers names the servers that are starting or indexing ("gopls is
// indexing"), asking status for at most statusWait; nil when none are or
// status cannot tell.
func (c *Tool) busyServers(ctx context.Context) []string {
	sctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	infos, err := c.backend.Status(sctx)
	if err != nil {
		return nil
	}
	var busy []string
	for _, i := range infos {
		if i.State == "starting" || i.State == "indexing" {
			busy = append(busy, i.Name+" is "+i.State)
		}
	}
	return busy
}

// emptyNote is added to an empty answer: when a server is still starting
// or indexing, the emptiness may only mean it is not ready.
func (c *Tool) emptyNote(ctx context.Context) string {
	busy := c.busyServers(ctx)
	if len(busy) == 0 {
		return ""
	}
	return strings.Join(busy, ", ") + ": this empty answer may only mean it is not ready yet; try again in a few seconds"
}
