// Package config holds acp-lsp's configuration: the option types and their
// defaults, the loader that layers built-in defaults, the user file, the
// trusted project file, ACP_LSP_* environment variables and command-line
// flags, and the trust store that gates project files. docs/configuration.md
// documents every option.
package config

import (
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// Config is the effective configuration. The zero value is not useful; start
// from Defaults or Load. The struct tags drive the TOML keys, the
// ACP_LSP_* variable names, validation (enum, min, max) and whether an
// untrusted project file may set the key (safe). Every safe key that is not
// a switch has a max, so that a repository nobody trusted cannot set an
// absurd wait or budget.
type Config struct {
	// Log controls acp-lsp's own logging.
	Log Log `toml:"log"`
	// MCP controls how the lsp tool's MCP server is offered to agents.
	MCP MCP `toml:"mcp"`
	// Timeouts bounds requests to the editor and to local servers.
	Timeouts Timeouts `toml:"timeouts"`
	// Local governs the life of local language-server processes.
	Local Local `toml:"local"`
	// Diagnostics sizes the diagnostics cache and its freshness waits.
	Diagnostics Diagnostics `toml:"diagnostics"`
	// Tool shapes the lsp tool's gating and output.
	Tool Tool `toml:"tool"`
	// Editor controls use of the editor's language servers.
	Editor Editor `toml:"editor"`
	// Servers overrides built-in language servers or adds new ones, by
	// name. The lsp registry merges each entry over its built-in of the
	// same name: zero or nil fields keep the built-in value.
	Servers map[string]Server `toml:"servers"`
}

// Log controls acp-lsp's own logging.
type Log struct {
	// Level is the minimum level logged to stderr.
	Level string `toml:"level" enum:"debug,info,warn,error"`
	// TraceFile, when set, receives every JSON-RPC message acp-lsp sees.
	TraceFile string `toml:"trace_file"`
}

// MCP controls how the lsp tool's MCP server is offered to agents.
type MCP struct {
	// Transport is auto (HTTP when the agent advertises it, stdio
	// otherwise), http or stdio.
	Transport string `toml:"transport" enum:"auto,http,stdio"`
	// ConnectWarning is how long the agent may take to open a session's
	// MCP server, after the later of session/new's answer and the first
	// prompt, before the log and the session say it has not; 0 never
	// warns.
	ConnectWarning time.Duration `toml:"connect_warning" min:"0"`
}

// Timeouts bounds requests.
type Timeouts struct {
	// Editor bounds each _lsp/* request forwarded to the editor.
	Editor time.Duration `toml:"editor" min:"1"`
	// Request bounds each request to a local language server.
	Request time.Duration `toml:"request" min:"1"`
	// Initialize bounds a local server's initialize handshake.
	Initialize time.Duration `toml:"initialize" min:"1"`
	// Loading bounds how long a request waits for a local server that is
	// still loading its project before answering "loading" with its
	// progress.
	Loading time.Duration `toml:"loading" min:"1"`
	// Shutdown bounds shutdown+exit before the process group is killed.
	Shutdown time.Duration `toml:"shutdown" min:"1"`
	// Permission bounds how long a change waits for the user's answer to
	// its session/request_permission.
	Permission time.Duration `toml:"permission" min:"1"`
}

// Local governs local language-server processes.
type Local struct {
	// IdleTeardown stops a server no session has used for IdleAfter.
	IdleTeardown bool `toml:"idle_teardown"`
	// IdleAfter is how long a server may sit unused before teardown.
	IdleAfter time.Duration `toml:"idle_after" min:"1"`
	// MaxRestarts caps crash restarts of one server; 0 never restarts.
	MaxRestarts int `toml:"max_restarts" min:"0"`
	// RestartBackoff is the first restart delay; it doubles per crash. 0
	// restarts at once.
	RestartBackoff time.Duration `toml:"restart_backoff" min:"0"`
	// RestartBackoffMax caps the doubled restart delay; 0 keeps the
	// default.
	RestartBackoffMax time.Duration `toml:"restart_backoff_max" min:"0"`
	// WedgeTimeouts recycles a server after this many consecutive request
	// timeouts; 0 never does.
	WedgeTimeouts int `toml:"wedge_timeouts" min:"0"`
	// MaxFileSize is the largest file, in bytes, sent to a server; larger
	// ones get a clear error instead. 0 sends any size.
	MaxFileSize int `toml:"max_file_size" min:"0"`
	// Watch watches the workspace for files changed outside acp-lsp
	// (the agent's shell, builds, git) and tells servers before the next
	// request; off, a server learns of a file only when it is asked about.
	Watch bool `toml:"watch"`
	// WatchMaxDirs bounds the folders watched; past it the status says
	// which folders are not covered.
	WatchMaxDirs int `toml:"watch_max_dirs" min:"1"`
	// EnvAllowlist names the variables of acp-lsp's environment passed to
	// spawned servers; a trailing * matches a prefix.
	EnvAllowlist []string `toml:"env_allowlist"`
	// Shared runs the servers in the user's server host, shared by every
	// acp-lsp process configuring a server alike, with the same
	// environment (Linux, macOS and Windows; elsewhere each process runs
	// its own); off, each process runs its own.
	Shared bool `toml:"shared"`
	// Prewarm starts the servers a session's folder needs as soon as the
	// session is set up, so the first question finds them loaded.
	Prewarm bool `toml:"prewarm"`
	// MemoryBudget bounds, in MiB, the resident memory of the running
	// servers together (of the server host with Shared): before a start,
	// while they fill it, the least recently used idle one is stopped. 0:
	// a quarter of the machine's memory (lsp.DefaultMemoryBudget).
	MemoryBudget int `toml:"memory_budget" min:"0"`
	// MaxRunning bounds the running servers the same way; 0: no cap.
	MaxRunning int `toml:"max_running" min:"0"`
}

// Diagnostics sizes the diagnostics cache and freshness waits.
type Diagnostics struct {
	// SettleWindow is how long a push from a server that reports no
	// versions must stay quiet before it counts as fresh; 0 makes it fresh
	// as soon as it arrives.
	SettleWindow time.Duration `toml:"settle_window" min:"0" max:"30s" safe:"true"`
	// WaitBudget bounds how long a diagnostics answer waits for fresh
	// results before reporting stale or timeout. 0 does not wait: the
	// answer is what the servers have already said, each with its verdict.
	WaitBudget time.Duration `toml:"wait_budget" min:"0" max:"5m" safe:"true"`
	// CacheFiles is the number of files the LRU cache keeps.
	CacheFiles int `toml:"cache_files" min:"1" max:"100000" safe:"true"`
	// PerFile caps the diagnostics kept for one file.
	PerFile int `toml:"per_file" min:"1" max:"10000" safe:"true"`
	// RefreshOnSave fetches fresh diagnostics when the editor saves a file.
	RefreshOnSave bool `toml:"refresh_on_save" safe:"true"`
	// InjectContext appends new errors to the agent's next prompt.
	InjectContext bool `toml:"inject_context" safe:"true"`
	// IncludeWarnings adds warnings to injected context.
	IncludeWarnings bool `toml:"include_warnings" safe:"true"`
	// InjectionBudget caps the injected text, in characters.
	InjectionBudget int `toml:"injection_budget" min:"0" max:"50000" safe:"true"`
}

// Tool shapes the lsp tool.
type Tool struct {
	// AllowMutating enables rename, rename_file, format, code action
	// apply and restart (each still asks the editor's permission).
	AllowMutating bool `toml:"allow_mutating"`
	// AllowRawRequest enables the request action (any LSP method).
	AllowRawRequest bool `toml:"allow_raw_request"`
	// OutputBudget caps one tool answer's text, in characters.
	OutputBudget int `toml:"output_budget" min:"256" max:"200000" safe:"true"`
	// PageSize is the number of items per page of long lists.
	PageSize int `toml:"page_size" min:"1" max:"1000" safe:"true"`
	// StructuredContent adds structuredContent to the tool's answers, for
	// clients that read data; the model reads the text either way.
	StructuredContent bool `toml:"structured_content" safe:"true"`
}

// Editor controls use of the editor's language servers.
type Editor struct {
	// UseLSP answers through the editor when it offers the _lsp extension.
	UseLSP bool `toml:"use_lsp"`
	// ForwardNotifications forwards the editor's _lsp notifications to an
	// agent that did not advertise the extension.
	ForwardNotifications bool `toml:"forward_notifications"`
}

// Server overrides or adds one language server. Zero or nil fields keep the
// built-in value of the server of the same name.
type Server struct {
	// Command is the executable and its leading arguments.
	Command []string `toml:"command" min:"1"`
	// Args are appended to Command.
	Args []string `toml:"args"`
	// Env sets variables for the server, on top of the allowlisted ones.
	Env map[string]string `toml:"env"`
	// EnvAllowlist adds names to local.env_allowlist for this server.
	EnvAllowlist []string `toml:"env_allowlist"`
	// Extensions are file extensions without the dot ("go", "tsx").
	Extensions []string `toml:"extensions"`
	// Filenames are exact basenames ("Makefile", "go.mod").
	Filenames []string `toml:"filenames"`
	// RootMarkers are files or folders whose nearest ancestor is the root.
	RootMarkers []string `toml:"root_markers"`
	// LanguageID is the LSP languageId of documents sent to the server.
	LanguageID string `toml:"language_id"`
	// InitializationOptions is sent in initialize.
	InitializationOptions map[string]any `toml:"initialization_options"`
	// Settings answers workspace/configuration and didChangeConfiguration.
	Settings map[string]any `toml:"settings"`
	// Disabled turns the server off.
	Disabled bool `toml:"disabled"`
	// Priority orders the servers of one file type: the lowest installed
	// one serves it. Built-ins use 0 for a language's first choice and
	// 10 and up for its alternatives; 0 here keeps the built-in's.
	Priority int `toml:"priority"`
	// Needed overrides whether the workspace needs the server (its
	// workspace-wide questions go to it): "auto" decides from project
	// markers and the share of files, "yes" and "no" say so.
	Needed string `toml:"needed" enum:"auto,yes,no"`
	// Timeouts overrides the global request and initialize timeouts.
	Timeouts ServerTimeouts `toml:"timeouts"`
}

// ServerTimeouts overrides global timeouts for one server; zero keeps them.
type ServerTimeouts struct {
	// Request bounds each request to this server.
	Request time.Duration `toml:"request" min:"0"`
	// Initialize bounds this server's initialize handshake.
	Initialize time.Duration `toml:"initialize" min:"0"`
}

// Defaults returns the built-in configuration. The options the adapter,
// the component or the lsp package also has a Go default for take it from
// there (adapter.DefaultEditorTimeout, component.DefaultBudget,
// lsp.DefaultRestartBackoff, lsp.DefaultTimeouts ...), so that a zero
// adapter.Config, component.Config or lsp.Options behaves as acp-lsp does.
func Defaults() Config {
	return Config{
		Log: Log{Level: "info"},
		MCP: MCP{Transport: "auto", ConnectWarning: component.DefaultConnectWarning},
		Timeouts: Timeouts{
			Editor:     adapter.DefaultEditorTimeout,
			Request:    time.Duration(lsp.DefaultTimeouts.Request),
			Initialize: time.Duration(lsp.DefaultTimeouts.Initialize),
			Loading:    time.Duration(lsp.DefaultTimeouts.Loading),
			Shutdown:   time.Duration(lsp.DefaultTimeouts.Shutdown),
			Permission: component.DefaultPermissionWait,
		},
		Local: Local{
			IdleTeardown:      true,
			IdleAfter:         time.Duration(lsp.DefaultTimeouts.Idle),
			MaxRestarts:       lsp.DefaultMaxRestarts,
			RestartBackoff:    lsp.DefaultRestartBackoff,
			RestartBackoffMax: lsp.DefaultRestartBackoffMax,
			WedgeTimeouts:     lsp.DefaultWedgeAfter,
			MaxFileSize:       lsp.DefaultMaxFileSize,
			Watch:             true,
			WatchMaxDirs:      lsp.DefaultMaxWatchedDirs,
			Shared:            true,
			Prewarm:           true,
			EnvAllowlist: []string{
				"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "TERM",
				"LANG", "LC_*", "XDG_*", "GO*", "CGO_*", "CARGO_HOME", "RUSTUP_*",
				"NODE_*", "NPM_CONFIG_*", "PYTHON*", "VIRTUAL_ENV", "CONDA_*", "JAVA_HOME",
				// Windows' own, without which its programs cannot find
				// their folders (the go command its build cache, npm
				// its prefix) or run at all (SystemRoot).
				"USERPROFILE", "APPDATA", "LOCALAPPDATA", "USERNAME", "TEMP", "TMP",
				"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "PATHEXT", "COMSPEC", "PROGRAMDATA", "PROGRAMFILES*",
			},
		},
		Diagnostics: Diagnostics{
			SettleWindow:    lsp.DefaultDiagnosticsSettle,
			WaitBudget:      time.Duration(lsp.DefaultTimeouts.Diagnostics),
			CacheFiles:      component.DefaultCacheFiles,
			PerFile:         component.DefaultCachePerFile,
			RefreshOnSave:   true,
			InjectContext:   true,
			IncludeWarnings: false,
			InjectionBudget: component.DefaultInjectBudget,
		},
		Tool: Tool{
			AllowMutating:   true,
			AllowRawRequest: false,
			OutputBudget:    component.DefaultBudget,
			PageSize:        component.DefaultPageSize,
			// Off, as a zero component.Config has it.
			StructuredContent: false,
		},
		Editor:  Editor{UseLSP: true, ForwardNotifications: false},
		Servers: map[string]Server{},
	}
}
