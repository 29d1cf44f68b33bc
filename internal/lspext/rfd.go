package lspext

// ACP's own LSP proposal, the RFD "Language Server Proxy"
// (agentclientprotocol/agent-client-protocol PR #2154, snapshot of
// 2026-11-27): an editor offering `lsp` in its capabilities lists its
// servers per session (lsp/servers) and forwards raw LSP requests to one
// of them (lsp/request). The shapes are distinct from the `_lsp/*`
// extension above (which also accepts a bare `lsp/` spelling): every name
// here carries RFD so the two are not confused. The draft is under review,
// so parsing is tolerant: unknown fields are ignored, unknown states mean
// "does not take requests".

import (
	"bytes"
	"encoding/json"
	"strings"
)

// RFD method names. The two requests go from the agent side to the
// editor; RFDCancelRequest is ACP's cancellation notification for an
// in-flight lsp/request.
const (
	RFDServers       = "lsp/servers"
	RFDRequest       = "lsp/request"
	RFDCancelRequest = "$/cancel_request"
)

// JSON-RPC error codes the RFD uses.
const (
	// RFDCodeInvalidParams carries every RFD-specific error, told apart
	// by RFDErrorData.Reason.
	RFDCodeInvalidParams = -32602
	// RFDCodeRequestCancelled answers an lsp/request cancelled with
	// RFDCancelRequest.
	RFDCodeRequestCancelled = -32800
)

// Reasons of an RFDCodeInvalidParams error (RFDErrorData.Reason).
const (
	// RFDUnknownServer: the server id is not listed for the session; the
	// asker lists the servers again.
	RFDUnknownServer = "unknown_server"
	// RFDServerNotRunning: the server is listed but does not take
	// requests now; RFDErrorData.State says why. Retry with the same id.
	RFDServerNotRunning = "server_not_running"
	// RFDMethodNotForwarded: the editor does not forward this method
	// (it is not in RFDServersResult.AvailableMethods).
	RFDMethodNotForwarded = "method_not_forwarded"
)

// Server states (RFDServerInfo.State). Any other value is possible; only
// RFDStateRunning takes requests.
const (
	RFDStateStarting   = "starting"
	RFDStateRunning    = "running"
	RFDStateNotRunning = "not_running"
)

// RFDServersParams are the params of RFDServers.
type RFDServersParams struct {
	SessionID string `json:"sessionId"`
}

// RFDServerInfo is one editor language server in an RFDServers answer.
type RFDServerInfo struct {
	// ServerID is opaque, minted by the editor, stable across restarts
	// of that server in that root.
	ServerID string `json:"serverId"`
	Name     string `json:"name"`
	// WorkspacePath is the absolute root the server was started for.
	WorkspacePath string `json:"workspacePath"`
	LanguageID    string `json:"languageId,omitempty"`
	// FileExtensions are without the dot; empty means unknown.
	FileExtensions []string `json:"fileExtensions,omitempty"`
	State          string   `json:"state"`
	// Capabilities are the server's initialize result capabilities,
	// verbatim (positionEncoding included).
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
}

// Running reports whether the server takes requests.
func (s RFDServerInfo) Running() bool { return s.State == RFDStateRunning }

// RFDServersResult is the result of RFDServers.
type RFDServersResult struct {
	Servers []RFDServerInfo `json:"servers"`
	// AvailableMethods are the LSP methods the editor forwards to any
	// server.
	AvailableMethods []string `json:"availableMethods"`
}

// Forwards reports whether the editor forwards method.
func (r RFDServersResult) Forwards(method string) bool {
	for _, m := range r.AvailableMethods {
		if m == method {
			return true
		}
	}
	return false
}

// RFDRequestParams are the params of RFDRequest: raw LSP params (0-based
// positions, characters in the server's positionEncoding, absolute file
// URIs), null allowed.
type RFDRequestParams struct {
	SessionID string          `json:"sessionId"`
	ServerID  string          `json:"serverId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
}

// RFDRequestResult is the result of RFDRequest: the server's result
// unchanged, null for no result.
type RFDRequestResult struct {
	LspResult json.RawMessage `json:"lspResult"`
}

// RFDCancelRequestParams are the params of RFDCancelRequest: the id of the
// request to cancel, as it was sent.
type RFDCancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// RFDErrorData is the `data` of an RFD error: Reason with what goes with
// it (the server's State, the current server or method list) for
// RFDCodeInvalidParams; for a language server's own error passed on, its
// Code, Message and Data.
type RFDErrorData struct {
	Reason           string          `json:"reason,omitempty"`
	ServerID         string          `json:"serverId,omitempty"`
	State            string          `json:"state,omitempty"`
	Servers          []RFDServerInfo `json:"servers,omitempty"`
	AvailableMethods []string        `json:"availableMethods,omitempty"`

	Code    *int64          `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ParseRFDErrorData reads the data of an RFD error; ok is false when data
// is absent or not an object (an editor's error without the RFD's data).
func ParseRFDErrorData(data json.RawMessage) (RFDErrorData, bool) {
	var d RFDErrorData
	if !isObject(data) || json.Unmarshal(data, &d) != nil {
		return RFDErrorData{}, false
	}
	return d, true
}

// rfdNeverForwarded are the LSP methods the RFD says an editor must refuse:
// lifecycle, document sync, server → client requests, file operation
// requests and the editor-interaction features. Notifications ($/…) are
// refused by RFDNeverForwarded itself.
var rfdNeverForwarded = map[string]bool{
	"initialize":                          true,
	"initialized":                         true,
	"shutdown":                            true,
	"exit":                                true,
	"textDocument/didOpen":                true,
	"textDocument/didChange":              true,
	"textDocument/didClose":               true,
	"textDocument/didSave":                true,
	"textDocument/willSave":               true,
	"textDocument/willSaveWaitUntil":      true,
	"workspace/didChangeConfiguration":    true,
	"workspace/didChangeWorkspaceFolders": true,
	"workspace/didChangeWatchedFiles":     true,
	"workspace/didCreateFiles":            true,
	"workspace/didRenameFiles":            true,
	"workspace/didDeleteFiles":            true,
	"workspace/applyEdit":                 true,
	"client/registerCapability":           true,
	"client/unregisterCapability":         true,
	"workspace/willCreateFiles":           true,
	"workspace/willRenameFiles":           true,
	"workspace/willDeleteFiles":           true,
	"textDocument/foldingRange":           true,
	"textDocument/selectionRange":         true,
	"textDocument/linkedEditingRange":     true,
	"textDocument/onTypeFormatting":       true,
}

// RFDNeverForwarded reports whether the RFD forbids forwarding method: an
// agent must not ask for it and an editor must refuse it.
func RFDNeverForwarded(method string) bool {
	return rfdNeverForwarded[method] || strings.HasPrefix(method, "$/")
}

// RFDOffered reports whether initialize params (or an initialize result,
// for the agent's side) offer the RFD: `clientCapabilities.lsp` (ACP v1)
// or `capabilities.lsp` (v2) present and neither null nor false.
func RFDOffered(params json.RawMessage) bool {
	// Each side is read on its own, so that one malformed key does not
	// hide the other.
	var top map[string]json.RawMessage
	if !isObject(params) || json.Unmarshal(params, &top) != nil {
		return false
	}
	for _, key := range []string{"clientCapabilities", "capabilities"} {
		var caps map[string]json.RawMessage
		if c := top[key]; isObject(c) && json.Unmarshal(c, &caps) == nil && Offered(caps["lsp"]) {
			return true
		}
	}
	return false
}

// Offered reports whether a capability value is on: present, neither
// null nor false (the RFD's `lsp`, a server's `hoverProvider`, …).
func Offered(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && !bytes.Equal(v, []byte("null")) && !bytes.Equal(v, []byte("false"))
}

// RFDPositionEncoding is the position encoding of a server with these
// initialize result capabilities: its `positionEncoding`, "utf-16" (LSP's
// default) when absent or unreadable.
func RFDPositionEncoding(capabilities json.RawMessage) string {
	var c struct {
		PositionEncoding *string `json:"positionEncoding"`
	}
	if !isObject(capabilities) || json.Unmarshal(capabilities, &c) != nil || c.PositionEncoding == nil || *c.PositionEncoding == "" {
		return "utf-16"
	}
	return *c.PositionEncoding
}

// isObject reports whether raw holds a JSON object (after white space).
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
