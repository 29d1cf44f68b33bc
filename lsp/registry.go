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
	// Args are the command-line arguments ("--stdio").
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
	// a section gets all of Settings, anything else gets null.
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// InstallHint tells a person how to install the server.
	InstallHint string `json:"installHint,omitempty"`
	// VersionArgs print the server's version for doctor ("version").
	VersionArgs []string `json:"versionArgs,omitempty"`
	// Priority orders servers that serve the same file: lower first.
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

// DefaultServers returns the built-in registry, a fresh copy each call.
func DefaultServers() []ServerConfig {
	return []ServerConfig{
		{
			Name: "gopls", Command: "gopls", Language: "go",
			Extensions:  []string{"go"},
			Filenames:   []string{"go.mod", "go.sum", "go.work"},
			LanguageIDs: map[string]string{"go.mod": "go.mod", "go.sum": "go.sum", "go.work": "go.work"},
			RootMarkers: []string{"go.work", "go.mod", ".git"},
			// workspace/symbol searches the workspace's packages only, not
			// the standard library and dependencies as well: the tool
			// leaves results outside the session's workspace out anyway,
			// and on the bench's module the search took a third of the
			// time (docs/lsp.md).
			InitializationOptions: json.RawMessage(`{"symbolScope":"workspace"}`),
			InstallHint:           "go install golang.org/x/tools/gopls@latest (gopls v0.24 needs Go 1.27; with Go 1.26 use @v0.23.0)",
			VersionArgs:           []string{"version"},
		},
		{
			Name: "rust-analyzer", Command: "rust-analyzer", Language: "rust",
			Extensions: []string{"rs"},
			// Its check on save reports progress titled by the command
			// ("cargo check", "cargo check (#2)", "cargo clippy"): a
			// build, not a load; its index is complete meanwhile.
			Loading:     LoadSignals{QuietProgress: `^cargo `},
			RootMarkers: []string{"Cargo.toml", "rust-project.json", ".git"},
			InstallHint: "rustup component add rust-analyzer",
			VersionArgs: []string{"--version"},
		},
		{
			Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Language: "python",
			Extensions: []string{"py", "pyi"},
			// pyright reports no progress while it lists the workspace's
			// files, and until it has, references and workspace symbols
			// see the open files alone (1 reference of 30,001 in a
			// package of 10,000 modules; an empty workspace symbol
			// list). It logs "Found 10022 source files" (or "No source
			// files found.") once the list is complete, in English
			// whatever the locale, and that is the end of its load. Its
			// $/progress is per request ("Finding references") or a
			// check under way, neither a load.
			Loading:     LoadSignals{DoneLog: `^(Found \d+ source files?|No source files found\.)$`},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
			InstallHint: "npm install -g pyright",
			VersionArgs: []string{"--version"},
		},
		{
			Name: "pylsp", Command: "pylsp", Language: "python", Priority: 10,
			Extensions:  []string{"py", "pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
			InstallHint: "pip install python-lsp-server (or apt install python3-pylsp)",
			VersionArgs: []string{"--version"},
		},
		{
			Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Language:   "typescript",
			Extensions: []string{"ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"},
			LanguageIDs: map[string]string{
				"ts": "typescript", "mts": "typescript", "cts": "typescript", "tsx": "typescriptreact",
				"js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascriptreact",
			},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
			// No automatic type acquisition: tsserver would otherwise run
			// npm in the background (types-registry, @types/* for every
			// package a .js file requires) from the first .js file it
			// opens: network traffic and writes to ~/.cache/typescript
			// nobody asked for. Configuration turns it back on
			// (docs/configuration.md).
			InitializationOptions: json.RawMessage(`{"disableAutomaticTypingAcquisition":true}`),
			InstallHint:           "npm install -g typescript-language-server typescript",
			VersionArgs:           []string{"--version"},
		},
		{
			Name: "clangd", Command: "clangd", Language: "c",
			Extensions:  []string{"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "m", "mm"},
			LanguageIDs: map[string]string{"cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp", "hxx": "cpp", "m": "objective-c", "mm": "objective-cpp"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", ".git"},
			InstallHint: "apt install clangd (or your platform's LLVM package)",
			VersionArgs: []string{"--version"},
		},
		{
			Name: "bash-language-server", Command: "bash-language-server", Args: []string{"start"}, Language: "shellscript",
			Extensions:  []string{"sh", "bash"},
			Filenames:   []string{".bashrc", ".bash_profile", ".profile"},
			RootMarkers: []string{".git"},
			InstallHint: "npm install -g bash-language-server (and shellcheck)",
			VersionArgs: []string{"--version"},
		},
		{
			Name: "yaml-language-server", Command: "yaml-language-server", Args: []string{"--stdio"}, Language: "yaml",
			Extensions:  []string{"yaml", "yml"},
			RootMarkers: []string{".git"},
			InstallHint: "npm install -g yaml-language-server",
		},
		{
			Name: "vscode-json-language-server", Command: "vscode-json-language-server", Args: []string{"--stdio"}, Language: "json",
			Extensions:  []string{"json", "jsonc"},
			LanguageIDs: map[string]string{"jsonc": "jsonc"},
			RootMarkers: []string{".git"},
			InstallHint: "npm install -g vscode-langservers-extracted",
		},
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
