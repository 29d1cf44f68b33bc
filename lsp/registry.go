package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ServerConfig describes one language server: how to start it, which files
// it serves, how to find a project root for a file, and how to install it.
// Zero-valued fields in an override keep the default's value (see Merge).
type ServerConfig struct {
	// Name identifies the server in status, logs and configuration
	// ("gopls", "pyright").
	Name string `json:"name"`
	// Command is the program to run, looked up on PATH when not absolute.
	Command string `json:"command"`
	// Args are the command-line arguments ("--stdio"). An argument
	// holding DataDirVar has it replaced, at each start, by a folder of
	// this server's own for its root (see dataDir).
	Args []string `json:"args,omitempty"`
	// Env are extra KEY=VALUE entries appended to the child's environment.
	Env []string `json:"env,omitempty"`
	// Extensions are the file-name extensions served, without the dot.
	Extensions []string `json:"extensions,omitempty"`
	// Filenames are exact base names served ("Makefile", "go.mod").
	Filenames []string `json:"filenames,omitempty"`
	// LanguageIDs maps an extension or base name to the LSP languageId
	// sent in didOpen; unmapped files use Language.
	LanguageIDs map[string]string `json:"languageIds,omitempty"`
	// Language is the default languageId and the language doctor reports.
	Language string `json:"language,omitempty"`
	// RootMarkers are file or folder names whose presence marks a project
	// root; the nearest one above a file wins.
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// InitializationOptions is sent as initialize's initializationOptions.
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
	// Settings answers workspace/configuration: an item whose section
	// names a top-level key of Settings gets that value, an item without
	// a section gets all of Settings, anything else gets null ({} with
	// Quirks.ObjectSettings).
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// Install holds the exact commands that install the server's program
	// on each platform, for doctor and the missing-server error.
	Install Install `json:"install,omitzero"`
	// InstallHint tells a person how to install the server on any
	// platform; it is used where Install names no command for the
	// platform (a server added by configuration) and an override's
	// hint replaces the platform commands (see InstallCommand).
	InstallHint string `json:"installHint,omitempty"`
	// VersionArgs print the server's version for doctor ("version").
	VersionArgs []string `json:"versionArgs,omitempty"`
	// Priority orders servers that serve the same file: lower first; the
	// first one installed serves it (see ServersFor). Built-ins give the
	// first choice of a language 0 and its alternatives 10 and up.
	Priority int `json:"priority,omitempty"`
	// Disabled removes the server from routing.
	Disabled bool `json:"disabled,omitempty"`
	// Needed says whether workspace-wide questions go to the server:
	// NeededAuto (or empty) decides from project markers and the share
	// of files (Manager.Survey), NeededYes and NeededNo override that.
	Needed string `json:"needed,omitempty"`
	// Timeouts overrides Options' timeouts for this server.
	Timeouts Timeouts `json:"timeouts,omitzero"`
	// Loading says how the server shows that it is still loading its
	// project and when it is done; the zero value reads $/progress.
	Loading LoadSignals `json:"loading,omitzero"`
	// Quirks are what the server needs from a client beyond the
	// protocol's defaults.
	Quirks Quirks `json:"quirks,omitzero"`
}

// Install holds the commands that install one server's program, one per
// platform, each a command line a person can paste ("npm install -g
// pyright@1.1.414"); several alternatives are joined by " || ".
type Install struct {
	// Linux is for Debian and Ubuntu.
	Linux string `json:"linux,omitempty"`
	// Darwin is for macOS.
	Darwin string `json:"darwin,omitempty"`
	// Windows is for Windows.
	Windows string `json:"windows,omitempty"`
}

// For returns the command for the platform goos (a runtime.GOOS value;
// other Unix systems get Linux's), or "" when none is known.
func (i Install) For(goos string) string {
	switch goos {
	case "darwin", "ios":
		return i.Darwin
	case "windows":
		return i.Windows
	}
	return i.Linux
}

// everywhere is an Install whose command is the same on every platform
// (npm, go install, pip).
func everywhere(cmd string) Install { return Install{Linux: cmd, Darwin: cmd, Windows: cmd} }

// InstallCommand returns how to install s's program on the platform goos:
// InstallHint when set (a configured server's own), else the platform's
// Install command, else "".
func (s *ServerConfig) InstallCommand(goos string) string {
	if s.InstallHint != "" {
		return s.InstallHint
	}
	return s.Install.For(goos)
}

// Quirks are the facts about one server that a client must act on and
// that its capabilities do not say. They are recorded in its registry
// entry and read by the general mechanism each names, never by a special
// case for a server's name. (What capabilities do say, such as pull
// diagnostics through diagnosticProvider or a registration of
// textDocument/diagnostic, needs no quirk: lsp reads the capability.)
type Quirks struct {
	// ObjectSettings answers a workspace/configuration item whose section
	// has no configured settings with {} instead of null: the CSS server
	// of vscode-langservers-extracted reads properties of the answer and
	// crashes on null.
	ObjectSettings bool `json:"objectSettings,omitempty"`
	// NotificationRequests maps a notification the server sends as a
	// request of its own, params [id, command, args] (or that array as
	// the one positional parameter), to the notification it waits for as
	// the answer, params [id, result] (in the same shape). Each is answered at
	// once with a null result: @vue/language-server 3 asks its editor's
	// TypeScript server this way ("tsserver/request", "tsserver/response")
	// and holds every request that needs the answer until it comes; a null
	// answer makes it fall back on its own project without tsconfig.
	NotificationRequests map[string]string `json:"notificationRequests,omitempty"`
	// PublishesInPasses, above 1, is how many times the server publishes
	// each document version's diagnostics, the last one complete: the
	// Volar servers that push (astro-ls) send 2, a syntax pass (often
	// empty, or still carrying the last version's type errors) and then
	// the type check, with nothing else to say when they are done. A
	// version's diagnostics are fresh at its last pass, however late;
	// before it they are stale, never "no problems". The count is not
	// airtight (a re-check of the same version adds passes), so a server
	// that answers pull (UnadvertisedPull) is read by its pushes only
	// when it refuses the pull.
	PublishesInPasses int `json:"publishesInPasses,omitempty"`
	// UnadvertisedPull says the server answers textDocument/diagnostic
	// with a document's complete diagnostics although its capabilities
	// offer no diagnosticProvider (astro-ls: Volar registers the handler
	// whenever a plugin checks, but offers it only without
	// inter-file dependencies). Its diagnostics are pulled, an answer on
	// the current version with no pass to count; a process that answers
	// the pull with an error is read by its pushes from then on.
	UnadvertisedPull bool `json:"unadvertisedPull,omitempty"`
}

// LoadSignals are what a server can be seen doing while it loads its
// project, so that an answer given before the load ends (a list that may
// be incomplete) is known as such. They are facts about one server,
// recorded in its registry entry and read nowhere else. With none set the
// server is loading while it reports $/progress work, which is how gopls,
// typescript-language-server and clangd report their loads.
type LoadSignals struct {
	// DoneLog is a regular expression matching the window/logMessage line
	// the server writes when its load ends, for servers that report no
	// progress while they load. When set, the server is loading from its
	// start until it writes a matching line, and its $/progress is not
	// read as loading at all.
	DoneLog string `json:"doneLog,omitempty"`
	// QuietProgress is a regular expression matching the titles of
	// $/progress work that is not loading: answers given during it are
	// complete.
	QuietProgress string `json:"quietProgress,omitempty"`
}

// loadRules are a server's LoadSignals compiled.
type loadRules struct {
	doneLog, quiet *regexp.Regexp
}

// compile compiles the signals' expressions.
func (l LoadSignals) compile(server string) (loadRules, error) {
	var r loadRules
	var err error
	if l.DoneLog != "" {
		if r.doneLog, err = regexp.Compile(l.DoneLog); err != nil {
			return r, fmt.Errorf("server %s: loading.doneLog: %w", server, err)
		}
	}
	if l.QuietProgress != "" {
		if r.quiet, err = regexp.Compile(l.QuietProgress); err != nil {
			return r, fmt.Errorf("server %s: loading.quietProgress: %w", server, err)
		}
	}
	return r, nil
}

// loadingWork reports whether $/progress work titled title means the
// server is loading.
func (r loadRules) loadingWork(title string) bool {
	return r.doneLog == nil && (r.quiet == nil || !r.quiet.MatchString(title))
}

// Timeouts bound each phase of talking to a server. Zero fields take the
// defaults given in DefaultTimeouts.
type Timeouts struct {
	// Initialize bounds the initialize request.
	Initialize Duration `json:"initialize,omitzero"`
	// Request bounds one request, retries included.
	Request Duration `json:"request,omitzero"`
	// Diagnostics bounds waiting for fresh diagnostics; negative does
	// not wait (see DiagnosticsOptions.Timeout).
	Diagnostics Duration `json:"diagnostics,omitzero"`
	// Shutdown bounds shutdown+exit before the process group is signalled.
	Shutdown Duration `json:"shutdown,omitzero"`
	// Write bounds one write to the server's stdin; a server that stops
	// reading longer than this is killed as wedged.
	Write Duration `json:"write,omitzero"`
	// Idle is how long a server with no open request may stay unused
	// before it is shut down; negative disables idle teardown.
	Idle Duration `json:"idle,omitzero"`
	// Loading bounds how long a request waits for an answer while its
	// server is still loading its project (see LoadSignals): past it the
	// request is cancelled and answers with an *IndexingError holding the
	// progress seen so far, instead of holding the caller up to Request;
	// negative does not bound it.
	Loading Duration `json:"loading,omitzero"`
}

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("30s") or as integer nanoseconds.
type Duration time.Duration

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Duration(d).String() + `"`), nil
}

// UnmarshalJSON accepts "30s" or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := string(b)
	if strings.HasPrefix(s, `"`) {
		v, err := time.ParseDuration(strings.Trim(s, `"`))
		if err != nil {
			return fmt.Errorf("duration %s: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return fmt.Errorf("duration %s: %w", s, err)
	}
	*d = Duration(n)
	return nil
}

// DefaultTimeouts are used for every zero field of Timeouts. The
// configuration (internal/config) takes its defaults for timeouts.initialize,
// timeouts.request, timeouts.shutdown, local.idle_after and
// diagnostics.wait_budget from here.
var DefaultTimeouts = Timeouts{
	Initialize:  Duration(60 * time.Second),
	Request:     Duration(30 * time.Second),
	Diagnostics: Duration(5 * time.Second),
	Shutdown:    Duration(5 * time.Second),
	Write:       Duration(10 * time.Second),
	Idle:        Duration(10 * time.Minute),
	Loading:     Duration(10 * time.Second),
}

func (t Timeouts) withDefaults(d Timeouts) Timeouts {
	pick := func(a, b Duration) Duration {
		if a != 0 {
			return a
		}
		return b
	}
	return Timeouts{
		Initialize:  pick(t.Initialize, d.Initialize),
		Request:     pick(t.Request, d.Request),
		Diagnostics: pick(t.Diagnostics, d.Diagnostics),
		Shutdown:    pick(t.Shutdown, d.Shutdown),
		Write:       pick(t.Write, d.Write),
		Idle:        pick(t.Idle, d.Idle),
		Loading:     pick(t.Loading, d.Loading),
	}
}

// MergeServers returns base with overrides applied: an override whose Name
// matches a base server replaces each of that server's fields the override
// sets (non-zero), and an override with a new Name adds a server, which
// then needs a Command and at least one Extension or Filename.
func MergeServers(base, overrides []ServerConfig) ([]ServerConfig, error) {
	out := slices.Clone(base)
	for _, o := range overrides {
		if o.Name == "" {
			return nil, fmt.Errorf("merge servers: a server override has no name")
		}
		switch o.Needed {
		case "", NeededAuto, NeededYes, NeededNo:
		default:
			return nil, fmt.Errorf("merge servers: server %q: needed %q: want %q, %q or %q", o.Name, o.Needed, NeededAuto, NeededYes, NeededNo)
		}
		i := slices.IndexFunc(out, func(s ServerConfig) bool { return s.Name == o.Name })
		if i < 0 {
			if o.Command == "" || len(o.Extensions)+len(o.Filenames) == 0 {
				return nil, fmt.Errorf("merge servers: new server %q needs a command and extensions or filenames", o.Name)
			}
			out = append(out, o)
			continue
		}
		s := &out[i]
		if o.Command != "" {
			s.Command = o.Command
		}
		if o.Args != nil {
			s.Args = o.Args
		}
		if o.Env != nil {
			s.Env = o.Env
		}
		if o.Extensions != nil {
			s.Extensions = o.Extensions
		}
		if o.Filenames != nil {
			s.Filenames = o.Filenames
		}
		if o.LanguageIDs != nil {
			s.LanguageIDs = o.LanguageIDs
		}
		if o.Language != "" {
			s.Language = o.Language
		}
		if o.RootMarkers != nil {
			s.RootMarkers = o.RootMarkers
		}
		if o.InitializationOptions != nil {
			s.InitializationOptions = o.InitializationOptions
		}
		if o.Settings != nil {
			s.Settings = o.Settings
		}
		if o.InstallHint != "" {
			s.InstallHint = o.InstallHint
		}
		if o.Install != (Install{}) {
			s.Install = o.Install
		}
		if o.Quirks.ObjectSettings || o.Quirks.NotificationRequests != nil || o.Quirks.PublishesInPasses != 0 || o.Quirks.UnadvertisedPull {
			s.Quirks = o.Quirks
		}
		if o.VersionArgs != nil {
			s.VersionArgs = o.VersionArgs
		}
		if o.Priority != 0 {
			s.Priority = o.Priority
		}
		if o.Needed != "" {
			s.Needed = o.Needed
		}
		if o.Loading != (LoadSignals{}) {
			s.Loading = o.Loading
		}
		s.Disabled = o.Disabled
		s.Timeouts = o.Timeouts.withDefaults(s.Timeouts)
	}
	return out, nil
}

// Serves reports whether s handles the file at path.
func (s *ServerConfig) Serves(path string) bool {
	base := filepath.Base(path)
	if slices.Contains(s.Filenames, base) {
		return true
	}
	ext := strings.TrimPrefix(filepath.Ext(base), ".")
	return ext != "" && slices.Contains(s.Extensions, ext)
}

// LanguageID returns the languageId to send for path.
func (s *ServerConfig) LanguageID(path string) string {
	base := filepath.Base(path)
	if id, ok := s.LanguageIDs[base]; ok {
		return id
	}
	if id, ok := s.LanguageIDs[strings.TrimPrefix(filepath.Ext(base), ".")]; ok {
		return id
	}
	return s.Language
}

// ServersFor returns the enabled servers of servers that handle path,
// ordered by Priority (stable).
func ServersFor(servers []ServerConfig, path string) []ServerConfig {
	var out []ServerConfig
	for _, s := range servers {
		if !s.Disabled && s.Serves(path) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b ServerConfig) int { return a.Priority - b.Priority })
	return out
}
