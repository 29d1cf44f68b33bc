package fakelsp

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Script configures a fake server. The zero Script is a well-behaved server:
// UTF-16 positions, full document sync, versioned push diagnostics, and
// normal answers to every method it knows. A Script is JSON so that the
// subprocess (cmd/fakelsp) reads the same configuration as the in-process
// server; tests write it with WriteScript.
type Script struct {
	// PositionEncoding is the encoding the server picks when the client
	// offers it in general.positionEncodings: "utf-8", "utf-16" or
	// "utf-32". Empty or not offered: "utf-16", the LSP default.
	PositionEncoding string `json:"positionEncoding,omitempty"`

	// Diagnostics selects how diagnostics reach the client.
	Diagnostics DiagnosticsMode `json:"diagnostics,omitempty"`

	// Publish selects what the version field of pushed diagnostics says.
	Publish PublishMode `json:"publish,omitempty"`

	// PublishDelay delays every push of diagnostics after a didOpen or
	// didChange, to exercise the client's settle window.
	PublishDelay Duration `json:"publishDelay,omitempty"`

	// Elsewhere are files the server also reports on after every
	// didChange of a document, with the changed text's diagnostics and no
	// version (as on a file not open), each after its Delay: a change
	// breaking a use in a file it does not touch, reported late.
	Elsewhere []Elsewhere `json:"elsewhere,omitempty"`

	// DoublePublish pushes an empty diagnostics list for the same version
	// before the real one, as some servers do when they clear and recompute.
	DoublePublish bool `json:"doublePublish,omitempty"`

	// PassDelay, with DoublePublish, sends the real list this long after
	// the empty first one, as a Volar server (astro-ls) publishes its type
	// check after its syntax pass, late under load.
	PassDelay Duration `json:"passDelay,omitempty"`

	// ExtraPass, with DoublePublish, sends the empty first pass twice, as
	// a Volar server does when a re-check (after a settings push or a
	// tsconfig change) starts over a check whose first pass was out: a
	// client counting passes takes the second empty one for the last.
	ExtraPass bool `json:"extraPass,omitempty"`

	// Methods holds per-method behaviours, keyed by LSP method name
	// ("initialize", "shutdown", "textDocument/hover", ...).
	Methods map[string]Behavior `json:"methods,omitempty"`

	// ClientRequests are server→client requests the server sends once the
	// client says initialized, in order, each after the previous answer.
	// Their answers are recorded (Message.Kind "response"). Client
	// requests other than initialize and shutdown are answered only after
	// all of them were answered, so a client that got an answer has
	// answered them.
	ClientRequests []ClientRequest `json:"clientRequests,omitempty"`

	// BeforeInitialized sends the ClientRequests, the dynamic registration
	// and the indexing window's start right after the initialize answer,
	// without waiting for the client's initialized notification, as
	// ruby-lsp does.
	BeforeInitialized bool `json:"beforeInitialized,omitempty"`

	// Indexing, when set, makes the server report work-done progress
	// (window/workDoneProgress/create, then $/progress begin) on
	// initialized and end it after Indexing.Duration, or when EndIndexing
	// is called. While indexing, hover, definition, documentSymbol and
	// pulled diagnostics answer empty and nothing is pushed, as real
	// servers do while loading; the end pushes every open document.
	Indexing *Indexing `json:"indexing,omitempty"`

	// RefuseExit makes the server ignore the exit notification, stdin
	// closing and SIGTERM: only SIGKILL (or, in process, Close) ends it.
	RefuseExit bool `json:"refuseExit,omitempty"`

	// SaveIncludeText asks the client to send the document text with
	// didSave (textDocumentSync.save.includeText).
	SaveIncludeText bool `json:"saveIncludeText,omitempty"`

	// Grandchild makes the subprocess start a child of its own in the same
	// process group that sleeps until killed, so tests can prove the
	// client ends the whole group. Ignored in process.
	Grandchild bool `json:"grandchild,omitempty"`
}

// Elsewhere is one file of Script.Elsewhere.
type Elsewhere struct {
	URI   string   `json:"uri"`
	Delay Duration `json:"delay,omitempty"`
	// OnOpen reports after every didOpen too (with the opened text's
	// diagnostics), as a server diagnosing a package reports its other
	// files a little after the one opened.
	OnOpen bool `json:"onOpen,omitempty"`
}

// DiagnosticsMode says which diagnostics model the server offers.
type DiagnosticsMode string

// Diagnostics modes.
const (
	// DiagPush (the default) pushes textDocument/publishDiagnostics after
	// every didOpen and didChange and offers no pull.
	DiagPush DiagnosticsMode = "push"
	// DiagPull offers textDocument/diagnostic statically and never pushes.
	DiagPull DiagnosticsMode = "pull"
	// DiagBoth pushes and offers pull.
	DiagBoth DiagnosticsMode = "both"
	// DiagDynamic offers no diagnostics statically; on initialized it
	// registers textDocument/diagnostic with client/registerCapability and
	// answers pulls once the client accepted. It never pushes. Requests
	// other than initialize and shutdown are answered only after the
	// client answered the registration (and any ClientRequests), so a
	// client that got an answer has seen it.
	DiagDynamic DiagnosticsMode = "dynamic"
	// DiagUnadvertised pushes and answers textDocument/diagnostic without
	// offering it (no diagnosticProvider), as astro-ls does.
	DiagUnadvertised DiagnosticsMode = "unadvertised"
	// DiagNone offers no diagnostics at all.
	DiagNone DiagnosticsMode = "none"
)

// PublishMode says what version pushed diagnostics carry.
type PublishMode string

// Publish modes.
const (
	// PublishVersioned (the default) carries the document version the
	// diagnostics were computed from.
	PublishVersioned PublishMode = "versioned"
	// PublishUnversioned omits the version.
	PublishUnversioned PublishMode = "unversioned"
	// PublishStale publishes, after each didChange, the diagnostics of the
	// previous text with the previous version, and never the fresh ones:
	// a client that trusts it reports stale results as fresh.
	PublishStale PublishMode = "stale"
)

// Behavior is how the server treats one method. The zero Behavior answers
// normally at once. Faults apply in this order: StopReading, Crash, Garbage,
// floods, ContentModified/ServerCancelled, NeverAnswer, Delay, Error,
// Result.
type Behavior struct {
	// Delay postpones the answer. A $/cancelRequest for the request during
	// the delay is answered with RequestCancelled (-32800) unless
	// IgnoreCancel.
	Delay Duration `json:"delay,omitempty"`
	// NeverAnswer drops the request.
	NeverAnswer bool `json:"neverAnswer,omitempty"`
	// IgnoreCancel makes $/cancelRequest for this method have no effect.
	IgnoreCancel bool `json:"ignoreCancel,omitempty"`
	// ContentModified answers ContentModified (-32801) to this many
	// requests for the method, then answers normally.
	ContentModified int `json:"contentModified,omitempty"`
	// ContentModifiedWhileIndexing answers ContentModified (-32801) to
	// every request for the method while the server is indexing, as
	// rust-analyzer does while it loads its workspace.
	ContentModifiedWhileIndexing bool `json:"contentModifiedWhileIndexing,omitempty"`
	// ServerCancelled answers ServerCancelled (-32802) to this many
	// requests, then answers normally.
	ServerCancelled int `json:"serverCancelled,omitempty"`
	// Error, when non-zero, answers every request with this code and
	// ErrorMessage.
	Error        int    `json:"error,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Result, when set, answers every request with this raw result
	// instead of the computed one (a definition anywhere, say).
	Result json.RawMessage `json:"result,omitempty"`
	// Crash ends the server on receiving the request (or notification:
	// the one fault a notification can carry), without answering: the
	// subprocess exits with status 2, the in-process server closes its
	// output.
	Crash bool `json:"crash,omitempty"`
	// Garbage writes Garbage bytes (raw, unframed) to the output instead of
	// answering; see GarbageHeader and GarbageBody.
	Garbage string `json:"garbage,omitempty"`
	// FloodProgress sends this many $/progress notifications before the
	// answer; FloodDiagnostics this many publishDiagnostics for the
	// request's document (same diagnostics, current version).
	FloodProgress int `json:"floodProgress,omitempty"`
	// Progress, when set, is the title of work-done progress begun just
	// before the answer and ended just after it (answers without Delay
	// only), as lua-language-server reports a request that takes it over
	// half a second ("Processing hover...").
	Progress         string `json:"progress,omitempty"`
	FloodDiagnostics int    `json:"floodDiagnostics,omitempty"`
	// StopReading stops the server reading its input for good on receiving
	// the request (it never answers it): the client's writes then block
	// once the pipe is full.
	StopReading bool `json:"stopReading,omitempty"`
	// Times limits the behaviours above (Delay included; ContentModified
	// and ServerCancelled count on their own) to the first Times requests
	// for the method; 0 means every request.
	Times int `json:"times,omitempty"`
}

// Garbage payloads for Behavior.Garbage.
const (
	// GarbageHeader is not an LSP header at all.
	GarbageHeader = "this is not a header\r\n\r\n"
	// GarbageBody is a well-formed frame whose body is not JSON.
	GarbageBody = "Content-Length: 11\r\n\r\n{not json!}"
)

// ClientRequest is a server→client request sent after initialized.
type ClientRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Indexing configures work-done progress around a loading window.
type Indexing struct {
	// Duration is how long indexing lasts after initialized; 0 means until
	// EndIndexing (in process only).
	Duration Duration `json:"duration,omitempty"`
	// Token is the progress token; empty means "fakelsp/indexing".
	Token string `json:"token,omitempty"`
	// Title is the title of the progress begin; empty means "Indexing".
	// Transcripts of real servers give their own ("Loading workspace").
	Title string `json:"title,omitempty"`
	// Then is the title of work-done progress (token Token+"/then")
	// begun just before the window ends and never ended: work that
	// follows a load and is not loading, as lua-language-server's
	// workspace diagnosis ("Diagnosing workspace") follows its load.
	Then string `json:"then,omitempty"`
	// Eager sends the $/progress begin right after the create request,
	// while handling initialized, without waiting for the client's answer
	// (servers do this). Every request the client sends after initialized
	// then lands inside the window, so a subprocess test is deterministic.
	Eager bool `json:"eager,omitempty"`
	// EndAfter ends indexing right after the server answered the first
	// request for this method (while indexing, so with an empty answer):
	// a subprocess test gets an empty answer inside the window and the
	// window's end after it, deterministically.
	EndAfter string `json:"endAfter,omitempty"`
	// EndAfterCount, with EndAfter, ends indexing after the server answered
	// that many requests for the method instead of the first.
	EndAfterCount int `json:"endAfterCount,omitempty"`
	// PublishEmpty makes pushes during the window publish an empty list
	// for the document's version instead of nothing, as
	// typescript-language-server does while its project loads; the real
	// diagnostics follow when the window ends.
	PublishEmpty bool `json:"publishEmpty,omitempty"`
	// Silent opens the window on initialized without any progress (no
	// create request, no $/progress), as pyright loads: only EndLog, if
	// set, tells the window's end.
	Silent bool `json:"silent,omitempty"`
	// EndLog is a window/logMessage (type info) sent when the window
	// ends, as pyright logs "Found 12 source files".
	EndLog string `json:"endLog,omitempty"`
	// Report is the message of a $/progress report (percentage 50) sent
	// right after the begin.
	Report string `json:"report,omitempty"`
	// Late plays clangd's background index: the window opens on
	// initialized with no progress; the create request goes out when the
	// first document is opened (clangd finds its compilation database
	// then), and the $/progress begin only after the server answered its
	// first request, which so comes between the two.
	Late bool `json:"late,omitempty"`
	// Partial makes documentSymbol answer only a document's first
	// function while indexing instead of an empty list: a list that is
	// incomplete, as typescript-language-server's and clangd's are while
	// they load.
	Partial bool `json:"partial,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as "1.5s".
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string such as "250ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("fakelsp: duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("fakelsp: duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// ReadScript reads a Script from a JSON file.
func ReadScript(path string) (Script, error) {
	var s Script
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("fakelsp: read script: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("fakelsp: read script %s: %w", path, err)
	}
	return s, nil
}

// WriteScript writes s to path as JSON. Rewriting the file between spawns
// changes what the next subprocess does (e.g. crash once, then behave).
func WriteScript(path string, s Script) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("fakelsp: write script: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("fakelsp: write script: %w", err)
	}
	return nil
}
