package stack

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/internal/serverhost"
	"github.com/acp-lsp/acp-lsp/lsp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var discard = slog.New(slog.DiscardHandler)

var environ = []string{"PATH=/bin:/usr/bin", "HOME=/h", "GITHUB_TOKEN=secret", "GOFLAGS=-mod=mod"}

func TestAdapterConfig(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*config.Config)
		check func(t *testing.T, got lspView)
	}{
		{
			name: "defaults",
			check: func(t *testing.T, got lspView) {
				want := lspView{
					Timeouts: lsp.Timeouts{
						Initialize:  lsp.Duration(time.Minute),
						Request:     lsp.Duration(30 * time.Second),
						Shutdown:    lsp.Duration(5 * time.Second),
						Diagnostics: lsp.Duration(5 * time.Second),
						Idle:        lsp.Duration(10 * time.Minute),
						Loading:     lsp.Duration(10 * time.Second),
					},
					MaxRestarts: 5, WedgeAfter: 3, MaxFileSize: 10 << 20, WatchedDirs: 10000, Settle: 250 * time.Millisecond,
					Backoff: time.Second, BackoffMax: 30 * time.Second,
					Env:           []string{"GOFLAGS=-mod=mod", "HOME=/h", "PATH=/bin:/usr/bin"},
					EditorTimeout: 10 * time.Second,
					Servers:       names(lsp.DefaultServers()),
					Disabled:      disabled(lsp.DefaultServers()),
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "timeouts and restarts",
			edit: func(c *config.Config) {
				c.Timeouts = config.Timeouts{Editor: 2 * time.Second, Request: 3 * time.Second, Initialize: 4 * time.Second, Shutdown: 6 * time.Second, Loading: 8 * time.Second}
				c.Diagnostics.WaitBudget = 7 * time.Second
				c.Local.MaxRestarts, c.Local.WedgeTimeouts = 2, 9
				c.Local.IdleAfter = time.Hour
			},
			check: func(t *testing.T, got lspView) {
				want := lsp.Timeouts{
					Initialize: lsp.Duration(4 * time.Second), Request: lsp.Duration(3 * time.Second),
					Shutdown: lsp.Duration(6 * time.Second), Diagnostics: lsp.Duration(7 * time.Second),
					Idle: lsp.Duration(time.Hour), Loading: lsp.Duration(8 * time.Second),
				}
				if diff := cmp.Diff(want, got.Timeouts); diff != "" {
					t.Errorf("timeouts (-want +got):\n%s", diff)
				}
				if got.EditorTimeout != 2*time.Second || got.MaxRestarts != 2 || got.WedgeAfter != 9 {
					t.Errorf("editor timeout %v, max restarts %d, wedge %d", got.EditorTimeout, got.MaxRestarts, got.WedgeAfter)
				}
			},
		},
		{
			name: "a zero wait budget does not wait",
			edit: func(c *config.Config) { c.Diagnostics.WaitBudget = 0 },
			check: func(t *testing.T, got lspView) {
				if got.Timeouts.Diagnostics >= 0 {
					t.Errorf("diagnostics timeout %v, want negative (no wait): zero is lsp's default", time.Duration(got.Timeouts.Diagnostics))
				}
			},
		},
		{
			name: "zero restarts, backoff and wedge timeouts mean off",
			edit: func(c *config.Config) {
				c.Local.MaxRestarts, c.Local.RestartBackoff, c.Local.WedgeTimeouts, c.Local.MaxFileSize = 0, 0, 0, 0
				c.Local.RestartBackoffMax = 2 * time.Second
			},
			check: func(t *testing.T, got lspView) {
				if got.MaxFileSize >= 0 {
					t.Errorf("max file size %d, want negative (no cap)", got.MaxFileSize)
				}
				if got.MaxRestarts >= 0 || got.Backoff >= 0 || got.WedgeAfter >= 0 || got.BackoffMax != 2*time.Second {
					t.Errorf("max restarts %d, backoff %v, wedge %d, backoff max %v: want the first three negative (off) and 2s",
						got.MaxRestarts, got.Backoff, got.WedgeAfter, got.BackoffMax)
				}
			},
		},
		{
			name: "watching off is a negative folder limit",
			edit: func(c *config.Config) { c.Local.Watch, c.Local.WatchMaxDirs = false, 50 },
			check: func(t *testing.T, got lspView) {
				if got.WatchedDirs >= 0 {
					t.Errorf("watched folders %d, want negative (off)", got.WatchedDirs)
				}
			},
		},
		{
			name: "watch_max_dirs is the folder limit",
			edit: func(c *config.Config) { c.Local.WatchMaxDirs = 50 },
			check: func(t *testing.T, got lspView) {
				if got.WatchedDirs != 50 {
					t.Errorf("watched folders %d, want 50", got.WatchedDirs)
				}
			},
		},
		{
			name: "idle teardown off is a negative idle",
			edit: func(c *config.Config) { c.Local.IdleTeardown = false },
			check: func(t *testing.T, got lspView) {
				if got.Timeouts.Idle >= 0 {
					t.Errorf("idle = %v, want negative (off)", time.Duration(got.Timeouts.Idle))
				}
			},
		},
		{
			name: "editor off, notifications forwarded",
			edit: func(c *config.Config) { c.Editor.UseLSP, c.Editor.ForwardNotifications = false, true },
			check: func(t *testing.T, got lspView) {
				if !got.NoEditor || !got.Forward {
					t.Errorf("NoEditor %v Forward %v, want both true", got.NoEditor, got.Forward)
				}
			},
		},
		{
			name: "env allowlist",
			edit: func(c *config.Config) { c.Local.EnvAllowlist = []string{"PATH", "GITHUB_*"} },
			check: func(t *testing.T, got lspView) {
				if diff := cmp.Diff([]string{"GITHUB_TOKEN=secret", "PATH=/bin:/usr/bin"}, got.Env); diff != "" {
					t.Errorf("env (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "servers merged",
			edit: func(c *config.Config) {
				c.Servers = map[string]config.Server{
					"pyright": {Disabled: true},
					"mypy-ls": {Command: []string{"mypy-ls", "--stdio"}, Extensions: []string{"py"}},
				}
			},
			check: func(t *testing.T, got lspView) {
				want := append(names(lsp.DefaultServers()), "mypy-ls")
				if diff := cmp.Diff(want, got.Servers); diff != "" {
					t.Errorf("servers (-want +got):\n%s", diff)
				}
				if !slices.Contains(got.Disabled, "pyright") {
					t.Errorf("pyright not disabled: %v", got.Disabled)
				}
			},
		},
		{
			name: "a zero settle window is none",
			edit: func(c *config.Config) { c.Diagnostics.SettleWindow = 0 },
			check: func(t *testing.T, got lspView) {
				if got.Settle >= 0 {
					t.Errorf("settle = %v, want negative (none): zero is lsp's default", got.Settle)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			if tt.edit != nil {
				tt.edit(&cfg)
			}
			ac, err := AdapterConfig(cfg, discard, Options{Environ: environ})
			if err != nil {
				t.Fatal(err)
			}
			if ac.LSP.Logger == nil || ac.Logger == nil {
				t.Error("loggers not set")
			}
			v := lspView{
				Timeouts: ac.LSP.Timeouts, MaxRestarts: ac.LSP.MaxRestarts, WedgeAfter: ac.LSP.WedgeAfter, MaxFileSize: ac.LSP.MaxFileSize, WatchedDirs: ac.LSP.MaxWatchedDirs,
				Settle: ac.LSP.DiagnosticsSettle, Backoff: ac.LSP.RestartBackoff, BackoffMax: ac.LSP.RestartBackoffMax, Env: ac.LSP.Env, EditorTimeout: ac.EditorTimeout,
				NoEditor: ac.NoEditor, Forward: ac.ForwardToAgent, Servers: names(ac.LSP.Servers),
			}
			for _, s := range ac.LSP.Servers {
				if s.Disabled {
					v.Disabled = append(v.Disabled, s.Name)
				}
			}
			tt.check(t, v)
		})
	}
}

// lspView is the part of adapter.Config a test compares.
type lspView struct {
	Timeouts            lsp.Timeouts
	MaxRestarts         int
	WedgeAfter          int
	MaxFileSize         int64
	WatchedDirs         int
	Settle              time.Duration
	Backoff, BackoffMax time.Duration
	Env                 []string
	EditorTimeout       time.Duration
	NoEditor, Forward   bool
	Servers, Disabled   []string
}

// disabled names the servers that are off.
func disabled(servers []lsp.ServerConfig) []string {
	var out []string
	for _, s := range servers {
		if s.Disabled {
			out = append(out, s.Name)
		}
	}
	return out
}

func names(servers []lsp.ServerConfig) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

func TestToolConfig(t *testing.T) {
	allOn := map[string]bool{"rename": true, "rename_file": true, "code_actions": true, "format": true, "restart": true, "request": false}
	tests := []struct {
		name    string
		edit    func(*config.Config)
		want    component.Config
		wantErr string
	}{
		{
			name: "defaults",
			want: component.Config{
				Transport: component.TransportAuto, AllowMutating: allOn, Budget: 20000, PageSize: 50,
				DiagnosticsWait: 5 * time.Second, CacheFiles: 2000, CachePerFile: 200, InjectBudget: 2000,
				PermissionWait: 5 * time.Minute,
				MaxFileSize:    10 << 20,
				ConnectWarning: time.Minute,
			},
		},
		{
			name: "everything changed",
			edit: func(c *config.Config) {
				c.MCP.Transport = "stdio"
				c.MCP.ConnectWarning = 0
				c.Tool = config.Tool{AllowMutating: false, AllowRawRequest: true, OutputBudget: 999, PageSize: 7}
				c.Timeouts.Permission = 90 * time.Second
				c.Diagnostics = config.Diagnostics{
					WaitBudget: time.Second, CacheFiles: 5, PerFile: 6, RefreshOnSave: false,
					InjectContext: false, IncludeWarnings: true, InjectionBudget: 300,
				}
			},
			want: component.Config{
				Transport: component.TransportStdio,
				AllowMutating: map[string]bool{
					"rename": false, "rename_file": false, "code_actions": false, "format": false, "restart": false, "request": true,
				},
				Budget: 999, PageSize: 7, DiagnosticsWait: time.Second, CacheFiles: 5, CachePerFile: 6,
				NoDiagnosticsOnSave: true, NoContextInjection: true, InjectWarnings: true, InjectBudget: 300,
				PermissionWait: 90 * time.Second,
				MaxFileSize:    10 << 20,
				ConnectWarning: -1,
			},
		},
		{
			// The tool reads files under the cap servers get them under.
			name: "max_file_size, with 0 for no cap",
			edit: func(c *config.Config) { c.Local.MaxFileSize = 0 },
			want: component.Config{
				Transport: component.TransportAuto, AllowMutating: allOn, Budget: 20000, PageSize: 50,
				DiagnosticsWait: 5 * time.Second, CacheFiles: 2000, CachePerFile: 200, InjectBudget: 2000,
				PermissionWait: 5 * time.Minute,
				MaxFileSize:    -1,
				ConnectWarning: time.Minute,
			},
		},
		{
			name: "http transport",
			edit: func(c *config.Config) { c.MCP.Transport = "http" },
			want: component.Config{
				Transport: component.TransportHTTP, AllowMutating: allOn, Budget: 20000, PageSize: 50,
				DiagnosticsWait: 5 * time.Second, CacheFiles: 2000, CachePerFile: 200, InjectBudget: 2000,
				PermissionWait: 5 * time.Minute,
				MaxFileSize:    10 << 20,
				ConnectWarning: time.Minute,
			},
		},
		{
			name: "a zero injection budget turns injection off",
			edit: func(c *config.Config) { c.Diagnostics.InjectionBudget = 0 },
			want: component.Config{
				Transport: component.TransportAuto, AllowMutating: allOn, Budget: 20000, PageSize: 50,
				DiagnosticsWait: 5 * time.Second, CacheFiles: 2000, CachePerFile: 200, NoContextInjection: true,
				PermissionWait: 5 * time.Minute,
				MaxFileSize:    10 << 20,
				ConnectWarning: time.Minute,
			},
		},
		{
			name: "a zero wait budget does not wait",
			edit: func(c *config.Config) { c.Diagnostics.WaitBudget = 0 },
			want: component.Config{
				Transport: component.TransportAuto, AllowMutating: allOn, Budget: 20000, PageSize: 50,
				DiagnosticsWait: component.NoWait, CacheFiles: 2000, CachePerFile: 200, InjectBudget: 2000,
				PermissionWait: 5 * time.Minute,
				MaxFileSize:    10 << 20,
				ConnectWarning: time.Minute,
			},
		},
		{
			name:    "unknown transport",
			edit:    func(c *config.Config) { c.MCP.Transport = "tcp" },
			wantErr: `mcp.transport: unknown transport "tcp"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			if tt.edit != nil {
				tt.edit(&cfg)
			}
			got, err := ToolConfig(cfg, discard, Options{Executable: "/x/acp-lsp"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Logger == nil || got.Executable != "/x/acp-lsp" {
				t.Errorf("logger %v executable %q", got.Logger, got.Executable)
			}
			got.Logger, got.Executable = nil, ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildOrdersAndCloses(t *testing.T) {
	s, err := Build(config.Defaults(), nil, Options{Environ: environ, Executable: "/x/acp-lsp"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Stages() {
		got = append(got, c.Name())
	}
	if diff := cmp.Diff([]string{"adapter", "component"}, got); diff != "" {
		t.Errorf("chain order (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*config.Config)
		want string
	}{
		{"new server without command", func(c *config.Config) {
			c.Servers = map[string]config.Server{"zz": {Extensions: []string{"zz"}}}
		}, `new server "zz" needs a command`},
		{"bad transport", func(c *config.Config) { c.MCP.Transport = "carrier-pigeon" }, "carrier-pigeon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			tt.edit(&cfg)
			s, err := Build(cfg, nil, Options{Environ: environ})
			if err == nil {
				s.Close()
				t.Fatal("Build succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSharedServersConfig: local.shared puts the adapter's servers in the
// user's server host where the platform has one; off, they run in the
// process.
func TestSharedServersConfig(t *testing.T) {
	for _, shared := range []bool{true, false} {
		cfg := config.Defaults()
		cfg.Local.Shared = shared
		ac, err := AdapterConfig(cfg, discard, Options{Environ: environ})
		if err != nil {
			t.Fatal(err)
		}
		if want := shared && serverhost.Supported; (ac.Host != nil) != want {
			t.Errorf("local.shared = %v: host used %v, want %v", shared, ac.Host != nil, want)
		}
	}
}

// TestServerBudgetConfig: local.memory_budget (MiB) and local.max_running
// reach the Manager's options in bytes and servers; 0 leaves the default.
func TestServerBudgetConfig(t *testing.T) {
	for _, tt := range []struct {
		mib, running int
		wantBytes    int64
	}{
		{512, 3, 512 << 20},
		{0, 0, 0},
	} {
		cfg := config.Defaults()
		cfg.Local.MemoryBudget, cfg.Local.MaxRunning = tt.mib, tt.running
		ac, err := AdapterConfig(cfg, discard, Options{Environ: environ})
		if err != nil {
			t.Fatal(err)
		}
		if ac.LSP.MemoryBudget != tt.wantBytes || ac.LSP.MaxRunning != tt.running {
			t.Errorf("memory_budget %d MiB, max_running %d: options %d bytes, %d", tt.mib, tt.running, ac.LSP.MemoryBudget, ac.LSP.MaxRunning)
		}
	}
}
