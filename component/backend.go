// Package component is the downstream half of acp-lsp: it gives every agent
// session one MCP tool, `lsp`, answered through the `_lsp/*` ACP extension by
// whoever sits above it in the chain (acp-lsp's adapter, or an editor that
// speaks the extension), and keeps the newest diagnostics it hears of.
//
// The component never talks to language servers itself. Everything it asks
// goes through a Backend, whose wire implementation (Wire) sends the
// vocabulary of package internal/lspext over a "call upstream" function the
// proxy integration provides.
package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
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
	// the server handling uri and returns its raw result. An LSP
	// notification method (e.g. "workspace/didRenameFiles") is sent as a
	// notification and answers null.
	Request(ctx context.Context, uri, method string, params json.RawMessage) (json.RawMessage, error)
	// DiagnosticReport returns the diagnostics of uris (all of the
	// workspace when empty) with a freshness verdict per server, waiting
	// at most wait for fresh answers.
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

// Request implements Backend through _lsp/request.
func (w *Wire) Request(ctx context.Context, uri, method string, params json.RawMessage) (json.RawMessage, error) {
	return w.call(ctx, lspext.Request, lspext.RequestParams{URI: uri, Method: method, Params: params})
}

// DiagnosticReport implements Backend through _lsp/diagnosticReport.
func (w *Wire) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	raw, err := w.call(ctx, lspext.DiagnosticReport, lspext.DiagnosticReportParams{URIs: uris, Wait: int(wait / time.Millisecond)})
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
	if err := w.Notify(ctx, lspext.FilesChanged, b); err != nil {
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
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	raw, err := w.Call(ctx, method, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
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
