package component

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// PermissionFunc asks the editor, through ACP session/request_permission in
// session sessionID, whether a change may be applied. diff shows the change.
// It returns false when the user declined or cancelled.
type PermissionFunc func(ctx context.Context, sessionID, title, diff string) (bool, error)

// Transport selects how the agent reaches the MCP server.
type Transport string

// Transports.
const (
	// TransportAuto is HTTP when the agent advertises it, else stdio
	// when it takes stdio (every ACP v1 agent), else none (ParseAgentMCP).
	TransportAuto  Transport = ""
	TransportHTTP  Transport = "http"
	TransportStdio Transport = "stdio"
)

// Defaults of the Config fields acp-lsp's configuration also sets. The
// configuration (internal/config) takes its defaults from these, so a
// zero Config (tests, benchmarks, other embedders) behaves as acp-lsp
// does out of the box: two copies of a number drift apart.
const (
	// DefaultBudget is Config.Budget's default, in characters
	// (tool.output_budget).
	DefaultBudget = 20000
	// DefaultPageSize is Config.PageSize's default (tool.page_size).
	DefaultPageSize = 50
	// DefaultCacheFiles is Config.CacheFiles's default
	// (diagnostics.cache_files).
	DefaultCacheFiles = 2000
	// DefaultCachePerFile is Config.CachePerFile's default
	// (diagnostics.per_file).
	DefaultCachePerFile = 200
	// DefaultInjectBudget is Config.InjectBudget's default, in characters
	// (diagnostics.injection_budget).
	DefaultInjectBudget = 2000
	// DefaultPermissionWait is Config.PermissionWait's default
	// (timeouts.permission): long enough to read a diff, short enough
	// that an agent is not kept waiting on a prompt nobody is watching.
	DefaultPermissionWait = 5 * time.Minute
	// DefaultConnectWarning is Config.ConnectWarning's default
	// (mcp.connect_warning): an agent that opens its MCP servers as its
	// first turn starts does so within seconds (it needs the tool list for
	// the model's first call), and a slow one must not be warned about.
	DefaultConnectWarning = time.Minute
)

// NoWait as Config.DiagnosticsWait answers diagnostics at once from what
// the servers have already said, each with its freshness verdict (stale,
// timeout, starting, indexing ...): a zero DiagnosticsWait cannot say it,
// since zero takes the default like every other zero field. Any negative
// duration means the same.
//
// The default wait itself is not the component's to know: zero travels
// as "the answering side's default" (`_lsp/diagnosticReport` wait 0), which
// is lsp.DefaultTimeouts.Diagnostics where a local server answers.
const NoWait time.Duration = -1

// Config configures a Tool. The zero value is usable: every zero
// field takes the default named in its comment.
type Config struct {
	// Name is the MCP server's name in mcpServers (default "acp-lsp").
	Name string
	// Transport picks the transport (default auto).
	Transport Transport
	// Executable is the absolute path of the acp-lsp binary for stdio
	// entries (default os.Executable()).
	Executable string
	// SocketDir is the private folder for stdio sockets (default a new
	// 0700 folder under os.TempDir()).
	SocketDir string
	// AllowMutating overrides which mutating actions are allowed, by
	// action name ("rename", "rename_file", "code_actions", "format",
	// "restart", "request"). Defaults: all on except "request".
	AllowMutating map[string]bool
	// AskPermission is called before any change is written; nil applies
	// without asking (tests, headless use).
	AskPermission PermissionFunc
	// PermissionWait bounds how long AskPermission waits for the user's
	// answer (default DefaultPermissionWait, 5m): then its ctx ends (the
	// editor's prompt is cancelled) and the call answers that permission
	// was not given in time.
	PermissionWait time.Duration
	// Budget is the per-call output budget in characters (default
	// DefaultBudget, 20000).
	Budget int
	// PageSize is the page length of long lists when a call gives no
	// limit (default DefaultPageSize, 50).
	PageSize int
	// StructuredContent adds structuredContent to the tool's answers
	// beside their text, for clients that read data (tool.md, Output).
	// Off by default: agents that find it hand it to the model instead of
	// the text or beside it, so the text reaches every model once only
	// when it is left out.
	StructuredContent bool
	// DiagnosticsWait bounds how long a diagnostics call waits for fresh
	// answers (zero: the backend's default, 5s for acp-lsp's own
	// servers; NoWait, or any negative duration, does not wait).
	DiagnosticsWait time.Duration
	// CacheFiles and CachePerFile size the diagnostics cache (defaults
	// DefaultCacheFiles, 2000 files, and DefaultCachePerFile, 200 per
	// file).
	CacheFiles, CachePerFile int
	// NoDiagnosticsOnSave turns off fetching diagnostics on didSave.
	NoDiagnosticsOnSave bool
	// NoContextInjection turns off PromptContext.
	NoContextInjection bool
	// InjectWarnings adds warnings to PromptContext (errors only by
	// default).
	InjectWarnings bool
	// InjectBudget bounds PromptContext's block in characters (default
	// DefaultInjectBudget, 2000).
	InjectBudget int
	// MaxFileSize is the largest workspace file, in bytes, the tool reads
	// (to place a position, to show a result's line, to apply or preview
	// a server's edit); a position in a larger one, or an edit of one, is
	// refused naming its size and the cap (default
	// edit.DefaultMaxFileSize, 10 MiB, as lsp.Options.MaxFileSize;
	// negative: no cap).
	MaxFileSize int64
	// ConnectWarning bounds how long the agent may take to open a
	// session's MCP server, counted from the later of the setup's answer
	// and the session's first session/prompt (connectwatch.go); then the
	// log and the session say that the agent has not (default
	// DefaultConnectWarning, 1m; negative: never).
	ConnectWarning time.Duration
	// Logger receives the component's logs (default discard).
	Logger *slog.Logger
	// ForSession, when set, gives a session settings of its own: called
	// as the session is set up, before its request goes on, with the
	// session's workspace (its cwd, symlinks resolved) and this Config,
	// it returns the Config that session's calls use. Of it only what
	// one session's calls read counts (see WithSessionSettings; zero
	// values take their defaults); everything else belongs to the
	// Tool. It must not change base's AllowMutating map, and may be
	// called from several goroutines at once.
	ForSession func(root string, base Config) Config
}

// WithSessionSettings returns c with the settings one session can have of
// its own taken from s: AllowMutating, Budget, PageSize,
// StructuredContent, DiagnosticsWait, NoContextInjection, InjectWarnings
// and InjectBudget. A ForSession hook returns it for a session with
// settings of its own.
func (c Config) WithSessionSettings(s Config) Config {
	c.AllowMutating = s.AllowMutating
	c.Budget, c.PageSize, c.StructuredContent, c.DiagnosticsWait = s.Budget, s.PageSize, s.StructuredContent, s.DiagnosticsWait
	c.NoContextInjection, c.InjectWarnings, c.InjectBudget = s.NoContextInjection, s.InjectWarnings, s.InjectBudget
	return c
}

func (c *Config) fill() error {
	if c.Name == "" {
		c.Name = "acp-lsp"
	}
	if c.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("component: find own executable: %w", err)
		}
		c.Executable = exe
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	if c.DiagnosticsWait < 0 {
		c.DiagnosticsWait = NoWait // one spelling for the backend
	}
	if c.CacheFiles <= 0 {
		c.CacheFiles = DefaultCacheFiles
	}
	if c.CachePerFile <= 0 {
		c.CachePerFile = DefaultCachePerFile
	}
	if c.InjectBudget <= 0 {
		c.InjectBudget = DefaultInjectBudget
	}
	if c.PermissionWait <= 0 {
		c.PermissionWait = DefaultPermissionWait
	}
	if c.ConnectWarning == 0 {
		c.ConnectWarning = DefaultConnectWarning
	}
	if c.MaxFileSize == 0 {
		c.MaxFileSize = edit.DefaultMaxFileSize
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func (c *Config) allowed(action string) bool {
	if v, ok := c.AllowMutating[action]; ok {
		return v
	}
	return action != "request"
}
