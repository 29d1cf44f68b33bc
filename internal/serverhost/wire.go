package serverhost

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// The methods a client calls on the host (over a link, link.go), one per
// method of the adapter's view of local servers (adapter.LocalServers),
// and the one notification the host sends back.
const (
	mHello          = "hello"
	mAddRoot        = "addRoot"
	mRequest        = "request"
	mDiagnostics    = "diagnostics"
	mCheck          = "check"
	mFileChanged    = "fileChanged"
	mFileSaved      = "fileSaved"
	mWillRenameFile = "willRenameFile"
	mFileRenamed    = "fileRenamed"
	mPrewarm        = "prewarm"
	mRestart        = "restart"
	mServers        = "servers"
	mWatchStatus    = "watchStatus"
	mSurvey         = "survey"
	mStatus         = "status"
	mStop           = "stop"
	mCancel         = "cancel"
	// nDiagnostics carries one lsp.DiagnosticsEvent to a client whose
	// roots hold the file.
	nDiagnostics = "diagnostics"
)

// helloParams open a client's session with the host: who it is and the
// profile its servers run with.
type helloParams struct {
	// Identity is the build identity of the client's binary; the host
	// refuses another (the socket name already keeps builds apart).
	Identity string `json:"identity"`
	// PID is the client's process id, for the host's status.
	PID     int     `json:"pid"`
	Profile profile `json:"profile"`
	// Roots are the client's workspace roots so far.
	Roots []string `json:"roots,omitempty"`
}

// helloResult is the host's answer to hello.
type helloResult struct {
	PID int `json:"pid"`
}

// profile is everything of lsp.Options that decides how a server runs
// (lsp.Options without the roots, which are per client, and the logger
// and Connect, which cannot cross a process boundary). Clients with equal
// profiles share servers; TestProfileCoversOptions keeps it in step with
// lsp.Options.
type profile struct {
	Servers           []lsp.ServerConfig `json:"servers"`
	Timeouts          lsp.Timeouts       `json:"timeouts"`
	MaxOpenDocuments  int                `json:"maxOpenDocuments,omitempty"`
	DocumentIdle      time.Duration      `json:"documentIdle,omitempty"`
	MaxFileSize       int64              `json:"maxFileSize,omitempty"`
	MaxRestarts       int                `json:"maxRestarts,omitempty"`
	RestartWindow     time.Duration      `json:"restartWindow,omitempty"`
	RestartBackoff    time.Duration      `json:"restartBackoff,omitempty"`
	RestartBackoffMax time.Duration      `json:"restartBackoffMax,omitempty"`
	WedgeAfter        int                `json:"wedgeAfter,omitempty"`
	DiagnosticsSettle time.Duration      `json:"diagnosticsSettle,omitempty"`
	MaxWatchedDirs    int                `json:"maxWatchedDirs,omitempty"`
	TellAtRequest     bool               `json:"tellAtRequest,omitempty"`
	MemoryBudget      int64              `json:"memoryBudget,omitempty"`
	MaxRunning        int                `json:"maxRunning,omitempty"`
	// DataDir holds the servers' data folders (lsp.DataDirVar).
	DataDir string `json:"dataDir,omitempty"`
	// Env is the servers' environment exactly as they get it (the
	// configuration's allowlist applied): a different PATH, GOFLAGS or
	// VIRTUAL_ENV is a different profile.
	Env []string `json:"env"`
}

// profileOf takes the profile of opts (the registry and environment
// filled, so that a default and its spelled-out value are one profile).
func profileOf(opts lsp.Options, environ []string) profile {
	servers := opts.Servers
	if servers == nil {
		servers = lsp.DefaultServers()
	}
	env := opts.Env
	if env == nil {
		env = environ
	}
	return profile{
		Servers: servers, Timeouts: opts.Timeouts, MaxOpenDocuments: opts.MaxOpenDocuments,
		DocumentIdle: opts.DocumentIdle, MaxFileSize: opts.MaxFileSize, MaxRestarts: opts.MaxRestarts,
		RestartWindow: opts.RestartWindow, RestartBackoff: opts.RestartBackoff, RestartBackoffMax: opts.RestartBackoffMax,
		WedgeAfter: opts.WedgeAfter, DiagnosticsSettle: opts.DiagnosticsSettle, MaxWatchedDirs: opts.MaxWatchedDirs,
		TellAtRequest: opts.TellAtRequest, MemoryBudget: opts.MemoryBudget, MaxRunning: opts.MaxRunning, Env: env,
		DataDir: opts.DataDir,
	}
}

// perServer splits p into the profiles its Managers run with: one with
// no server, then one per server of the registry (that server alone, with
// p's options and environment). A server's profile is its key in the
// host: two clients configuring gopls differently get two goplses and
// still share pyright.
func (p profile) perServer() []profile {
	base := p
	base.Servers = []lsp.ServerConfig{}
	out := []profile{base}
	for _, s := range p.Servers {
		one := p
		one.Servers = []lsp.ServerConfig{s}
		out = append(out, one)
	}
	return out
}

// options are the lsp.Options of a profile.
func (p profile) options() lsp.Options {
	return lsp.Options{
		Servers: p.Servers, Timeouts: p.Timeouts, MaxOpenDocuments: p.MaxOpenDocuments,
		DocumentIdle: p.DocumentIdle, MaxFileSize: p.MaxFileSize, MaxRestarts: p.MaxRestarts,
		RestartWindow: p.RestartWindow, RestartBackoff: p.RestartBackoff, RestartBackoffMax: p.RestartBackoffMax,
		WedgeAfter: p.WedgeAfter, DiagnosticsSettle: p.DiagnosticsSettle, MaxWatchedDirs: p.MaxWatchedDirs,
		TellAtRequest: p.TellAtRequest, MemoryBudget: p.MemoryBudget, MaxRunning: p.MaxRunning, Env: p.Env,
		DataDir: p.DataDir,
	}
}

type pathParams struct {
	Path string `json:"path"`
}

// requestParams are a request's meta; the server's params are the
// frame's raw bytes.
type requestParams struct {
	Path   string `json:"path"`
	Method string `json:"method"`
	// Native asks lsp.Manager.AskNative: positions in the server's own
	// encoding.
	Native bool `json:"native,omitempty"`
	// Peek asks lsp.Manager.Peek: a file read in passing.
	Peek bool `json:"peek,omitempty"`
}

// askResult is lsp.Answer's meta on the wire: the server's readiness
// when the answer was read; its raw result is the frame's raw bytes.
type askResult struct {
	Readiness lsp.Readiness `json:"readiness"`
}

type diagnosticsParams struct {
	Paths   []string      `json:"paths"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Settle  time.Duration `json:"settle,omitempty"`
}

// checkParams are a check's meta: of one file, Path, whose content
// checked is the frame's raw bytes; of several, Files, each with its
// content.
type checkParams struct {
	Path    string        `json:"path,omitempty"`
	Files   []checkFile   `json:"files,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Settle  time.Duration `json:"settle,omitempty"`
}

// checkFile is one file of a check of several: its path and new content.
type checkFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

type pathsParams struct {
	Paths []string `json:"paths"`
}

type renameParams struct {
	Old string `json:"old"`
	New string `json:"new"`
}

type restartParams struct {
	Name string `json:"name,omitempty"`
	Path string `json:"path,omitempty"`
}

type surveyParams struct {
	Root string `json:"root"`
	Keep int    `json:"keep"`
}

// statusParams ask for the status once at least Calls calls are open.
type statusParams struct {
	Calls int `json:"calls,omitempty"`
}

type cancelParams struct {
	ID uint64 `json:"id"`
}

// Status is what the host says of itself: its process and its clients.
type Status struct {
	PID int `json:"pid"`
	// Clients counts the acp-lsp processes using the host (a connection
	// that only asks for the status is none).
	Clients int `json:"clients"`
	// Profiles counts the host's Managers: one per server profile in use
	// (a server's configuration with the options and environment it runs
	// with) and one per options without a server.
	Profiles int `json:"profiles"`
	// Calls counts the calls being answered (this one included).
	Calls int `json:"calls"`
	// Servers are every server of the host, of every profile, sorted by
	// root and name.
	Servers []HostServer `json:"servers,omitempty"`
}

// HostServer is one server of the host, as `acp-lsp servers` lists it.
type HostServer struct {
	lsp.ServerStatus
	// Command is the server's program and arguments.
	Command []string `json:"command"`
	// Clients are the process ids of the clients using it: those of its
	// profile whose roots hold its root or lie under it.
	Clients []int `json:"clients"`
}

// Error kinds carried in an error's data, so the client gives back an
// error errors.Is and errors.As read as the Manager's own.
const (
	kindOutside  = "outside"
	kindNoServer = "noServer"
	kindTimeout  = "timeout"
	kindExited   = "exited"
	kindClosed   = "closed"
	kindCircuit  = "circuit"
	kindProtocol = "protocol"
	kindNotExist = "notExist"
	kindCanceled = "canceled"
	kindDeadline = "deadline"
	kindResponse = "response"
	kindIndexing = "indexing"
	kindMissing  = "missing"
	kindFile     = "file"
	kindStarting = "starting"
)

// errorData is the data of an error the host answers with.
type errorData struct {
	Kind string `json:"kind,omitempty"`
	// Response is a server's own JSON-RPC error.
	Response *lsp.ResponseError      `json:"response,omitempty"`
	Indexing *lsp.IndexingError      `json:"indexing,omitempty"`
	Missing  *lsp.MissingServerError `json:"missing,omitempty"`
	File     *fileError              `json:"file,omitempty"`
	Starting *startingError          `json:"starting,omitempty"`
}

type fileError struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Limit    int64  `json:"limit"`
	Offset   int    `json:"offset"`
	TooLarge bool   `json:"tooLarge"`
}

type startingError struct {
	Server   string        `json:"server"`
	For      time.Duration `json:"for"`
	Restart  bool          `json:"restart"`
	Deadline bool          `json:"deadline"`
}

// sentinels are the errors.Is targets kept across the socket, in the
// order they are tried.
var sentinels = []struct {
	kind string
	err  error
}{
	{kindOutside, lsp.ErrOutsideWorkspace}, {kindNoServer, lsp.ErrNoServer}, {kindCircuit, lsp.ErrCircuitOpen},
	{kindProtocol, lsp.ErrProtocol}, {kindExited, lsp.ErrServerExited}, {kindClosed, lsp.ErrClosed},
	{kindTimeout, lsp.ErrTimeout}, {kindNotExist, fs.ErrNotExist},
	{kindCanceled, context.Canceled}, {kindDeadline, context.DeadlineExceeded},
}

// encodeError turns what a Manager call failed with into the host's
// error frame: the message as it was, the type in the data.
func encodeError(err error) *wireError {
	var d errorData
	var (
		re *lsp.ResponseError
		ie *lsp.IndexingError
		me *lsp.MissingServerError
		fe *lsp.FileError
		se *lsp.StartingError
	)
	switch {
	case errors.As(err, &re):
		d.Kind, d.Response = kindResponse, re
	case errors.As(err, &ie):
		d.Kind, d.Indexing = kindIndexing, ie
	case errors.As(err, &me):
		d.Kind, d.Missing = kindMissing, me
	case errors.As(err, &fe):
		d.Kind, d.File = kindFile, &fileError{Path: fe.Path, Size: fe.Size, Limit: fe.Limit, Offset: fe.Offset, TooLarge: errors.Is(fe, lsp.ErrFileTooLarge)}
	case errors.As(err, &se):
		d.Kind, d.Starting = kindStarting, &startingError{Server: se.Server, For: se.For, Restart: se.Restart, Deadline: errors.Is(se.Err, context.DeadlineExceeded)}
	default:
		for _, s := range sentinels {
			if errors.Is(err, s.err) {
				d.Kind = s.kind
				break
			}
		}
	}
	return &wireError{Message: err.Error(), Data: d}
}

// remoteError is an error the host answered with: its message as the host
// had it, matching what the host's error matched.
type remoteError struct {
	msg   string
	cause error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.cause }

// decodeError is encodeError's inverse.
func decodeError(e *wireError) error {
	d := e.Data
	out := &remoteError{msg: e.Message}
	switch d.Kind {
	case kindResponse:
		if d.Response != nil {
			out.cause = d.Response
		}
	case kindIndexing:
		if d.Indexing != nil {
			out.cause = d.Indexing
		}
	case kindMissing:
		if d.Missing != nil {
			out.cause = d.Missing
		}
	case kindFile:
		if f := d.File; f != nil {
			reason := lsp.ErrBinaryFile
			if f.TooLarge {
				reason = lsp.ErrFileTooLarge
			}
			out.cause = &lsp.FileError{Path: f.Path, Size: f.Size, Limit: f.Limit, Offset: f.Offset, Err: reason}
		}
	case kindStarting:
		if s := d.Starting; s != nil {
			why := context.Canceled
			if s.Deadline {
				why = context.DeadlineExceeded
			}
			out.cause = &lsp.StartingError{Server: s.Server, For: s.For, Restart: s.Restart, Err: why}
		}
	default:
		for _, s := range sentinels {
			if s.kind == d.Kind {
				out.cause = s.err
			}
		}
	}
	return out
}
