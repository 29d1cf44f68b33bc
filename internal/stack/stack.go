// Package stack assembles acp-lsp's LSP feature from the configuration: the
// adapter (upstream, next to the editor, answering `_lsp/*` through the
// editor or local language servers) and the component stage (downstream,
// next to the agent, serving the `lsp` MCP tool and the diagnostics cache),
// in that order, ready to be placed in a chain by any of the three modes.
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/internal/serverhost"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Options are what Build needs beyond the configuration. The zero value
// works.
type Options struct {
	// Environ is acp-lsp's own environment (os.Environ form) from which
	// the allowlisted variables reach language servers; nil means
	// os.Environ().
	Environ []string
	// Executable is the acp-lsp binary named in stdio MCP entries; empty
	// means os.Executable().
	Executable string
	// Roots are workspace roots known before any session (each session's
	// cwd is added when it starts).
	Roots []string
	// Workspace is the folder whose project file (.acp-lsp.toml) the
	// configuration was loaded for.
	Workspace string
	// Reload loads the configuration for another folder from what acp-lsp
	// started with (user file, environment, flags). With Workspace set, a
	// session in another folder that has its own project file gets that
	// file's settings as far as one session can have its own (the tool's
	// gates, budget and page size, the diagnostics wait and prompt
	// injection); the rest is named in a warning. Nil: every session
	// gets the configuration Build was given.
	Reload func(workspace string) (*config.Loaded, error)
}

// Stack is the adapter and the component stage of one chain. Its parts are
// proxy components with their own concurrency contracts; the Stack itself
// only orders them and closes them.
type Stack struct {
	// Adapter answers `_lsp/*` requests and owns the local servers.
	Adapter *adapter.Adapter
	// Stage serves the lsp tool to agent sessions.
	Stage *component.Stage

	// closing tracks the shutdown of the language servers started when
	// the chain stopped (see earlyClose).
	closing sync.WaitGroup
}

// Stages returns the stack's chain components, editor side first:
// the adapter, then the component stage.
func (s *Stack) Stages() []proxy.Stage {
	return []proxy.Stage{&earlyClose{Adapter: s.Adapter, s: s}, s.Stage}
}

// earlyClose is the adapter as placed in the chain: when the chain stops,
// it starts shutting the language servers down at once, so that their
// shutdown runs while the conductor ends the agent rather than after it
// (the editor leaving must end everything within a few seconds). Close
// waits for it.
type earlyClose struct {
	*adapter.Adapter
	s *Stack
}

var (
	_ proxy.Stage  = (*earlyClose)(nil)
	_ proxy.Runner = (*earlyClose)(nil)
)

// Run implements proxy.Runner.
func (e *earlyClose) Run(ctx context.Context, hop *proxy.Hop) error {
	err := e.Adapter.Run(ctx, hop)
	e.s.closing.Add(1)
	go func() {
		defer e.s.closing.Done()
		if err := e.Adapter.Close(); err != nil {
			hop.Logger().Warn("closing the language servers", "err", err)
		}
	}()
	return err
}

// Close ends the local language servers and the component's listeners. It
// is safe to call after the chain already stopped the stage, and more than
// once.
func (s *Stack) Close() error {
	err := errors.Join(s.Adapter.Close(), s.Stage.Tool().Close())
	s.closing.Wait()
	return err
}

// Build maps cfg onto the adapter, the lsp manager and the component and
// returns them unstarted (the chain starts them). logger receives every
// part's logs; nil discards them.
func Build(cfg config.Config, logger *slog.Logger, opts Options) (*Stack, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ac, err := AdapterConfig(cfg, logger, opts)
	if err != nil {
		return nil, err
	}
	cc, err := ToolConfig(cfg, logger, opts)
	if err != nil {
		return nil, err
	}
	if opts.Workspace != "" && opts.Reload != nil {
		p := &projectSettings{workspace: opts.Workspace, reload: opts.Reload, log: logger.With("part", "component"), opts: opts, told: map[string]string{}}
		cc.ForSession = p.forSession
	}
	a, err := adapter.New(ac)
	if err != nil {
		return nil, fmt.Errorf("build stack: %w", err)
	}
	st, err := component.NewStage(cc)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("build stack: %w", err)
	}
	return &Stack{Adapter: a, Stage: st}, nil
}

// AdapterConfig maps cfg onto the adapter's configuration and the options
// of its lsp.Manager.
func AdapterConfig(cfg config.Config, logger *slog.Logger, opts Options) (adapter.Config, error) {
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	servers, err := cfg.LSPServers(environ)
	if err != nil {
		return adapter.Config{}, fmt.Errorf("build stack: %w", err)
	}
	idle := cfg.Local.IdleAfter
	if !cfg.Local.IdleTeardown {
		idle = -1 // lsp: negative disables idle teardown
	}
	ac := adapter.Config{
		LSP: lsp.Options{
			Roots:   opts.Roots,
			Servers: servers,
			Timeouts: lsp.Timeouts{
				Initialize:  lsp.Duration(cfg.Timeouts.Initialize),
				Request:     lsp.Duration(cfg.Timeouts.Request),
				Loading:     lsp.Duration(cfg.Timeouts.Loading),
				Shutdown:    lsp.Duration(cfg.Timeouts.Shutdown),
				Diagnostics: lsp.Duration(off(cfg.Diagnostics.WaitBudget)),
				Idle:        lsp.Duration(idle),
			},
			MaxRestarts:       off(cfg.Local.MaxRestarts),
			RestartBackoff:    off(cfg.Local.RestartBackoff),
			RestartBackoffMax: cfg.Local.RestartBackoffMax,
			WedgeAfter:        off(cfg.Local.WedgeTimeouts),
			MaxFileSize:       int64(off(cfg.Local.MaxFileSize)),
			MaxWatchedDirs:    watchedDirs(cfg.Local),
			DiagnosticsSettle: off(cfg.Diagnostics.SettleWindow),
			MemoryBudget:      int64(cfg.Local.MemoryBudget) << 20,
			MaxRunning:        cfg.Local.MaxRunning,
			Env:               cfg.BaseEnv(environ),
			Logger:            logger.With("part", "lsp"),
		},
		EditorTimeout:  cfg.Timeouts.Editor,
		ForwardToAgent: cfg.Editor.ForwardNotifications,
		NoEditor:       !cfg.Editor.UseLSP,
		Prewarm:        cfg.Local.Prewarm,
		Logger:         logger.With("part", "adapter"),
	}
	if cfg.Local.Shared && serverhost.Supported {
		log := logger.With("part", "serverhost")
		ac.Host = func(o lsp.Options) (adapter.LocalServers, error) {
			return serverhost.NewClient(o, serverhost.Config{Logger: log})
		}
	}
	return ac, nil
}

// off carries a configured value to the Go API for the keys whose 0 the
// configuration documents as off (local.max_restarts, restart_backoff,
// wedge_timeouts, max_file_size; diagnostics.settle_window, wait_budget;
// mcp.connect_warning):
// lsp and component read zero as their default, like every zero field,
// and a negative value as off (component.NoWait for the wait). The
// configuration never holds a negative value for these keys (min 0).
func off[T ~int | ~int64](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// ToolConfig maps cfg onto the component's Tool configuration.
func ToolConfig(cfg config.Config, logger *slog.Logger, opts Options) (component.Config, error) {
	var tr component.Transport
	switch cfg.MCP.Transport {
	case "", "auto":
		tr = component.TransportAuto
	case "http":
		tr = component.TransportHTTP
	case "stdio":
		tr = component.TransportStdio
	default:
		return component.Config{}, fmt.Errorf("build stack: mcp.transport: unknown transport %q", cfg.MCP.Transport)
	}
	mut := cfg.Tool.AllowMutating
	return component.Config{
		Transport:  tr,
		Executable: opts.Executable,
		AllowMutating: map[string]bool{
			"rename": mut, "rename_file": mut, "code_actions": mut, "format": mut, "restart": mut,
			"request": cfg.Tool.AllowRawRequest,
		},
		Budget:              cfg.Tool.OutputBudget,
		PageSize:            cfg.Tool.PageSize,
		StructuredContent:   cfg.Tool.StructuredContent,
		DiagnosticsWait:     off(cfg.Diagnostics.WaitBudget),
		CacheFiles:          cfg.Diagnostics.CacheFiles,
		CachePerFile:        cfg.Diagnostics.PerFile,
		NoDiagnosticsOnSave: !cfg.Diagnostics.RefreshOnSave,
		NoContextInjection:  !cfg.Diagnostics.InjectContext || cfg.Diagnostics.InjectionBudget == 0,
		InjectWarnings:      cfg.Diagnostics.IncludeWarnings,
		InjectBudget:        cfg.Diagnostics.InjectionBudget,
		PermissionWait:      cfg.Timeouts.Permission,
		MaxFileSize:         int64(off(cfg.Local.MaxFileSize)),
		ConnectWarning:      off(cfg.MCP.ConnectWarning),
		Logger:              logger.With("part", "component"),
	}, nil
}

// watchedDirs is lsp's MaxWatchedDirs for the configuration: negative
// (off) when watching is off.
func watchedDirs(l config.Local) int {
	if !l.Watch {
		return -1
	}
	return l.WatchMaxDirs
}
