// Package lspext defines the `_lsp/*` ACP extension as acp-lsp speaks it: the
// method names (both the spec-compliant `_lsp/x` spelling and the bare `lsp/x`
// some peers send), and the wire shapes of params and results.
//
// Two families share the prefix. The reference methods (Hover … CodeActions,
// PublishDiagnostics, DidSave) use the shapes of the original extension:
// 1-based line and character, snake_case fields. Everything else (Servers,
// Request, DiagnosticReport, FilesChanged, Status) is LSP-native: 0-based
// line, character in UTF-16 code units, and raw LSP JSON payloads, so an
// editor can hand over what its language client already holds without
// converting. docs/protocol.md is the normative description.
package lspext

import (
	"encoding/json"
	"strings"
	"time"
)

// Method names in their canonical (underscore) spelling.
const (
	// Reference methods: agent side → editor, 1-based positions.
	Hover           = "_lsp/hover"
	Definition      = "_lsp/definition"
	References      = "_lsp/references"
	Diagnostics     = "_lsp/diagnostics"
	DocumentSymbols = "_lsp/documentSymbols"
	WorkspaceSymbol = "_lsp/workspaceSymbol"
	CodeActions     = "_lsp/codeActions"

	// Reference notifications: editor → agent side.
	PublishDiagnostics = "_lsp/publishDiagnostics"
	DidSave            = "_lsp/didSave"

	// Raw passthrough (the shape proposed for ACP): agent side → editor.
	Servers = "_lsp/servers"
	Request = "_lsp/request"

	// acp-lsp additions.
	DiagnosticReport = "_lsp/diagnosticReport"
	Status           = "_lsp/status"
	Restart          = "_lsp/restart"
	FilesChanged     = "_lsp/filesChanged" // notification, agent side → upstream
	Check            = "_lsp/check"
)

// ForwardToAgentMeta is the `_meta` key the adapter sets to true on an
// editor's LSP notification the agent should see as well: the component
// below caches every such notification and passes on only marked ones, so
// an agent that never advertised the extension is not sent methods it does
// not know.
const ForwardToAgentMeta = "acp-lsp/forwardToAgent"

// Canonical returns the underscore spelling of an `_lsp/x` or `lsp/x` method
// name and whether the name belongs to the extension at all.
func Canonical(method string) (string, bool) {
	switch {
	case strings.HasPrefix(method, "_lsp/"):
		return method, len(method) > len("_lsp/")
	case strings.HasPrefix(method, "lsp/"):
		return "_" + method, len(method) > len("lsp/")
	}
	return "", false
}

// InNamespace reports whether method starts with either spelling's prefix
// (`_lsp/`, `lsp/`). Unlike Canonical it builds nothing, for the chain's
// per-message checks.
func InNamespace(method string) bool {
	return strings.HasPrefix(method, "_lsp/") || strings.HasPrefix(method, "lsp/")
}

// Bare returns the `lsp/x` spelling of an extension method name.
func Bare(method string) string {
	return strings.TrimPrefix(method, "_")
}

// Is reports whether method names want in either spelling.
func Is(method, want string) bool {
	c, ok := Canonical(method)
	return ok && c == want
}

// Position is a reference-shape position: 1-based line and character.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a reference-shape range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a reference-shape location.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// PositionParams are the params of Hover and Definition.
type PositionParams struct {
	URI       string `json:"uri"`
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// ReferencesParams are the params of References.
type ReferencesParams struct {
	URI                string `json:"uri"`
	Line               uint32 `json:"line"`
	Character          uint32 `json:"character"`
	IncludeDeclaration bool   `json:"include_declaration"`
}

// URIParams are the params of Diagnostics, DocumentSymbols and DidSave.
type URIParams struct {
	URI string `json:"uri"`
}

// QueryParams are the params of WorkspaceSymbol.
type QueryParams struct {
	Query string `json:"query"`
}

// CodeActionsParams are the params of CodeActions.
type CodeActionsParams struct {
	URI         string       `json:"uri"`
	Range       Range        `json:"range"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// HoverResult is the result of Hover: markdown text.
type HoverResult struct {
	Contents string `json:"contents"`
	Range    *Range `json:"range,omitempty"`
}

// Diagnostic is a reference-shape diagnostic. Code is a string on the wire
// in the reference shape; acp-lsp also accepts a number (LSP allows both).
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// DocumentSymbol is a reference-shape hierarchical symbol.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selection_range"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SymbolInformation is a reference-shape workspace symbol.
type SymbolInformation struct {
	Name     string   `json:"name"`
	Kind     int      `json:"kind"`
	Location Location `json:"location"`
}

// TextEdit is a reference-shape text edit.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"new_text"`
}

// WorkspaceEdit is a reference-shape workspace edit (changes only).
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

// CodeAction is a reference-shape code action.
type CodeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind,omitempty"`
	IsPreferred bool           `json:"is_preferred,omitempty"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	Edit        *WorkspaceEdit `json:"edit,omitempty"`
}

// PublishDiagnosticsParams are the params of the PublishDiagnostics
// notification. Diagnostics are raw LSP diagnostics (0-based, UTF-16) when
// Native is true, as acp-lsp's adapter sends them; reference-shape (1-based)
// otherwise, as the reference editors send them.
type PublishDiagnosticsParams struct {
	URI         string          `json:"uri"`
	Version     *int32          `json:"version,omitempty"`
	Diagnostics json.RawMessage `json:"diagnostics"`
	// Server names the language server that produced them, when known.
	Server string `json:"server,omitempty"`
	// Native marks LSP-native positions (0-based).
	Native bool `json:"native,omitempty"`
}

// ServerInfo describes one language server in Servers and Status answers.
type ServerInfo struct {
	// Name identifies the server ("gopls", "editor:rust-analyzer").
	Name string `json:"name"`
	// Source is "editor" or "local".
	Source string `json:"source"`
	// Languages are LSP language ids the server handles.
	Languages []string `json:"languages,omitempty"`
	// Root is the workspace root the server runs for.
	Root string `json:"root,omitempty"`
	// State is "not_started" (a local server never started: it starts on
	// first use), "starting", "ready", "indexing", "stopped" (it ran and
	// was stopped, idle), "failed" or "not_installed".
	State string `json:"state,omitempty"`
	PID   int    `json:"pid,omitempty"`
	// RSS is the resident memory in bytes, when known.
	RSS int64 `json:"rss,omitempty"`
	// OverBudget is set when the server alone exceeds acp-lsp's memory
	// budget for language servers (local.memory_budget): it is reported,
	// not stopped.
	OverBudget bool `json:"overBudget,omitempty"`
	// LastError is the last failure, with an install hint when the binary
	// is missing.
	LastError string `json:"lastError,omitempty"`
	// Progress is the loading work the server reports (State "indexing").
	Progress []Progress `json:"progress,omitempty"`
	// Capabilities are the server's raw LSP ServerCapabilities.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Needed is set on a local server the workspace needs: workspace-wide
	// questions (workspace symbols, whole-workspace diagnostics) go to
	// it. Another starts only when a question names one of its files.
	Needed bool `json:"needed,omitempty"`
	// Reason says why a local server is needed or not, when the
	// workspace was looked at ("go.mod at the workspace root", "3 of 48
	// files (6%), under 10%, ...").
	Reason string `json:"reason,omitempty"`
}

// ServersResult is the result of Servers and Status.
type ServersResult struct {
	Servers []ServerInfo `json:"servers"`
}

// ServersParams are the params of Servers and Status: an optional file
// restricting the answer to the servers that handle it.
type ServersParams struct {
	URI string `json:"uri,omitempty"`
}

// RestartParams name the server to restart: by Server name, or the servers
// handling URI. The result is null once the server is running again.
type RestartParams struct {
	Server string `json:"server,omitempty"`
	URI    string `json:"uri,omitempty"`
}

// RequestParams are the params of Request: a raw LSP request for the server
// handling URI (or, with Server set, that server).
type RequestParams struct {
	URI    string          `json:"uri,omitempty"`
	Server string          `json:"server,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	// Readiness asks for the answer as a RequestResult: the raw result
	// with the readiness of the servers that gave it.
	Readiness bool `json:"readiness,omitempty"`
	// Peek says the request reads URI's file in passing (an outline for
	// enclosing symbols): local servers are asked about a file not open
	// yet without opening it, or, when they answer only about open
	// documents, with it opened for the request only and closed after.
	// An editor ignores it.
	Peek bool `json:"peek,omitempty"`
}

// RequestResult is the answer of Request when RequestParams.Readiness is
// set: the raw LSP result as the server gave it, and how ready each
// server that answered was when it did (absent when the answering side
// does not know, as for an editor's answer).
type RequestResult struct {
	Result    json.RawMessage `json:"result"`
	Readiness []Readiness     `json:"readiness,omitempty"`
}

// Ready states of Readiness.State.
const (
	// ReadyStarting: the server is starting.
	ReadyStarting = "starting"
	// ReadyLoading: the server runs but has not finished loading its
	// project: a list it gives (references, workspace symbols) may be
	// incomplete.
	ReadyLoading = "loading"
	// Ready: the server has loaded its project, as far as it shows.
	Ready = "ready"
)

// Readiness is whether a server had loaded its project when it answered.
type Readiness struct {
	Server string `json:"server"`
	// State is ReadyStarting, ReadyLoading or Ready.
	State string `json:"state"`
	// Progress is its loading work as it last reported it.
	Progress []Progress `json:"progress,omitempty"`
}

// Progress is one piece of work a server reports ($/progress).
type Progress struct {
	Title   string `json:"title"`
	Message string `json:"message,omitempty"`
	// Percentage is 0 to 100, absent when the server gives none.
	Percentage *int `json:"percentage,omitempty"`
}

// Verdict values of a per-server diagnostics answer.
const (
	// VerdictFresh: the server answered for the current content.
	VerdictFresh = "fresh"
	// VerdictStale: only diagnostics older than the current content exist.
	VerdictStale = "stale"
	// VerdictTimeout: the server did not answer within the wait.
	VerdictTimeout = "timeout"
	// VerdictIndexing: the server is still loading the workspace.
	VerdictIndexing = "indexing"
	// VerdictStarting: the server is still starting (or restarting after a
	// crash); its answer is unknown, not empty.
	VerdictStarting = "starting"
	// VerdictUnsupported: the server does not produce diagnostics for it.
	VerdictUnsupported = "unsupported"
	// VerdictFailed: the server errored or is not running.
	VerdictFailed = "failed"
	// VerdictUnchecked: files the report leaves out (beyond the cap on a
	// workspace-wide report's files, a glob's, or files the editor has not
	// opened); Unchecked counts them when known. Its URIs list none.
	VerdictUnchecked = "unchecked"
)

// NoteServer is the server name of acp-lsp's own verdicts on a report
// (files left out of it, folders file watching does not cover), beside
// the servers' word on the files.
const NoteServer = "acp-lsp"

// DiagnosticReportParams ask for diagnostics of files (URIs; empty means the
// whole workspace, where servers support it) waiting at most Wait
// milliseconds for fresh answers. Wait 0 (absent) takes the answering
// side's default; a negative Wait does not wait: the answer is what the
// servers have already said, each with its verdict.
type DiagnosticReportParams struct {
	URIs []string `json:"uris,omitempty"`
	Wait int      `json:"wait,omitempty"`
}

// WaitMillis is DiagnosticReportParams.Wait for a wait of d: 0 (the
// default) for 0, -1 (no wait) for a negative d, and otherwise d in
// milliseconds rounded up, so that a wait under a millisecond is not sent
// as 0 and read as the default.
func WaitMillis(d time.Duration) int {
	switch {
	case d < 0:
		return -1
	case d == 0:
		return 0
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// WaitDuration is the wait p asks for: 0 for the answering side's default,
// negative for no wait.
func (p DiagnosticReportParams) WaitDuration() time.Duration {
	if p.Wait < 0 {
		return -1
	}
	return time.Duration(p.Wait) * time.Millisecond
}

// FileDiagnostics are the diagnostics of one file in a DiagnosticReport.
type FileDiagnostics struct {
	URI string `json:"uri"`
	// Diagnostics are raw LSP diagnostics (0-based, UTF-16).
	Diagnostics json.RawMessage `json:"diagnostics"`
	// Server produced them.
	Server string `json:"server,omitempty"`
}

// ServerVerdict is one server's freshness verdict in a DiagnosticReport.
type ServerVerdict struct {
	Server  string `json:"server"`
	Verdict string `json:"verdict"`
	// URIs the verdict covers; empty means every requested file.
	URIs []string `json:"uris,omitempty"`
	// Detail explains timeouts and failures.
	Detail string `json:"detail,omitempty"`
	// Unchecked is how many files the verdict leaves unchecked that its
	// URIs do not list (VerdictUnchecked's, a missing server's), when
	// known.
	Unchecked int `json:"unchecked,omitempty"`
}

// Unsettled reports whether v leaves the files it covers not known to be
// clean when they hold no diagnostics: every verdict does but fresh, and
// acp-lsp's own note that qualifies a report without leaving a file out
// (VerdictUnsupported from NoteServer: folders file watching does not
// cover). This is the one rule for calling files clean (Clean).
func (v ServerVerdict) Unsettled() bool {
	switch {
	case v.Verdict == VerdictFresh:
		return false
	case v.Server == NoteServer && v.Verdict == VerdictUnsupported:
		return false
	}
	return true
}

// Clean reports whether a report with these verdicts may call the files
// that hold no diagnostics clean: some server answered fresh and no
// verdict is unsettled (a server that timed out, was not ready, is stale,
// failed, handles none of them, or files left out of the report).
func Clean(verdicts []ServerVerdict) bool {
	fresh := false
	for _, v := range verdicts {
		if v.Unsettled() {
			return false
		}
		fresh = fresh || v.Verdict == VerdictFresh
	}
	return fresh
}

// CheckParams are the params of Check: the file's diagnostics were its
// content Text, or, for an edit of several files, the diagnostics were
// Files' contents theirs together (in place of URI and Text), waiting at
// most Wait milliseconds as in DiagnosticReportParams. The disk is not
// written.
type CheckParams struct {
	URI   string      `json:"uri,omitempty"`
	Text  string      `json:"text,omitempty"`
	Files []CheckFile `json:"files,omitempty"`
	Wait  int         `json:"wait,omitempty"`
	// Incidental: the check comes with another answer (an edit's
	// preview), not asked for itself, so it is not worth starting a
	// language server that an editor's servers stand in for (ACP's LSP
	// proposal forwards no document sync, so they cannot check); such a
	// check is refused (-32601) rather than start one.
	Incidental bool `json:"incidental,omitempty"`
}

// WaitDuration is the wait p asks for, as DiagnosticReportParams'.
func (p CheckParams) WaitDuration() time.Duration {
	return DiagnosticReportParams{Wait: p.Wait}.WaitDuration()
}

// CheckResult is the result of Check: the diagnostics the content would
// add and remove (raw LSP diagnostics, 0-based, UTF-16; Added's positions
// are in the checked content, Removed's in the disk's), with a verdict per
// server. Both lists are empty unless Clean(Servers): a check no server
// answered fresh on is unknown, never clean.
type CheckResult struct {
	// Added and Removed are the file's of a check of one file (URI).
	Added   json.RawMessage `json:"added"`
	Removed json.RawMessage `json:"removed"`
	// Files are every checked file's lists, then those of the files not
	// in the edit whose diagnostics it changes (Other), empty unless
	// Clean(Servers).
	Files   []CheckedFile   `json:"files,omitempty"`
	Servers []ServerVerdict `json:"servers"`
}

// CheckFile is one file of a check of several: its new content.
type CheckFile struct {
	URI  string `json:"uri"`
	Text string `json:"text"`
}

// CheckedFile is one file's part of a CheckResult: the diagnostics the
// edit adds to and removes from it. Other: the file is not in the edit (a
// use the edit breaks elsewhere); its Removed are positioned in its
// content on disk, as its Added.
type CheckedFile struct {
	URI     string          `json:"uri"`
	Added   json.RawMessage `json:"added"`
	Removed json.RawMessage `json:"removed"`
	Other   bool            `json:"other,omitempty"`
}

// DiagnosticReportResult is the result of DiagnosticReport.
type DiagnosticReportResult struct {
	Files   []FileDiagnostics `json:"files"`
	Servers []ServerVerdict   `json:"servers"`
}

// FilesChangedParams tell upstream that files changed on disk (the tool
// applied an edit), so servers resync before the next request.
type FilesChangedParams struct {
	Changes []FileChange `json:"changes"`
}

// FileChange is one changed file; Type is LSP FileChangeType (1 created, 2
// changed, 3 deleted).
type FileChange struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}
