package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/acp-lsp/acp-lsp/conductor"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/internal/logging"
	"github.com/acp-lsp/acp-lsp/internal/stack"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// chainFlags are the flags shared by the three proxy modes: the
// configuration flags (-config, -log-level, -trace-file, -mcp-transport,
// -set) and the chain's own.
type chainFlags struct {
	cfg     *config.Flags
	maxLine int
}

func (f *chainFlags) set(fs *flag.FlagSet) {
	f.cfg = config.AddFlags(fs)
	cfg := f.cfg
	fs.Func("trace", "write every message of every hop to `FILE` as NDJSON {time, hop, dir, msg} (same as -trace-file)", func(v string) error {
		cfg.Set("-trace", "log.trace_file", v)
		return nil
	})
	fs.IntVar(&f.maxLine, "max-message-mib", proxy.DefaultMaxLine>>20, "largest message accepted, in MiB (larger ones are skipped with an error)")
}

// chainSetup is what a mode needs to run: conductor options with logging
// and tracing set up, the effective configuration, and a func closing what
// was opened.
type chainSetup struct {
	opts      conductor.Options
	cfg       config.Config
	log       *slog.Logger
	workspace string
	// reload loads the configuration for another folder with the same
	// flags: a session elsewhere gets its own project file's settings.
	reload func(workspace string) (*config.Loaded, error)
	done   func()
}

// maxMessageMiB bounds -max-message-mib.
const maxMessageMiB = 4096

// setup loads the configuration for the current folder (the workspace the
// editor started acp-lsp in) and turns it and the flags into conductor
// options. Configuration errors are usage errors (exit 2) naming the file,
// line and key.
func (f *chainFlags) setup(stdio Stdio) (*chainSetup, error) {
	// Past 4 GiB the size in bytes nears what an int holds once the line
	// buffer doubles, and a huge value overflowed into the default.
	if f.maxLine < 1 || f.maxLine > maxMessageMiB {
		return nil, UsageErrorf("-max-message-mib must be between 1 and %d", maxMessageMiB)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the current folder: %w", err)
	}
	loaded, err := f.cfg.Load(wd)
	if err != nil {
		return nil, UsageErrorf("%w", err)
	}
	if err := loaded.CheckServers(isBuiltinServer); err != nil {
		return nil, UsageErrorf("%w", err)
	}
	cfg := loaded.Config
	level, err := logging.ParseLevel(cfg.Log.Level)
	if err != nil {
		return nil, UsageErrorf("%v", err)
	}
	log := logging.New(stdio.Err, logging.Options{Level: level})
	for _, w := range loaded.Warnings {
		log.Warn(w)
	}
	s := &chainSetup{
		cfg:       cfg,
		log:       log,
		workspace: wd,
		reload:    f.cfg.Load,
		opts: conductor.Options{
			In:      conductor.Input(stdio.In),
			Out:     stdio.Out,
			Stderr:  stdio.Err,
			Logger:  log,
			MaxLine: f.maxLine << 20,
		},
		done: func() {},
	}
	if cfg.Log.TraceFile != "" {
		tf, err := createTrace(cfg.Log.TraceFile)
		if err != nil {
			return nil, UsageErrorf("log.trace_file: %v", err)
		}
		s.opts.Trace = tf
		s.done = func() { tf.Close() }
	}
	return s, nil
}

// lspStages builds the LSP stack (adapter, then component) as chain stages;
// the returned func closes it once the chain has stopped.
func (s *chainSetup) lspStages() ([]conductor.Proxy, func(), error) {
	st, err := stack.Build(s.cfg, s.log, stack.Options{Workspace: s.workspace, Reload: s.reload})
	if err != nil {
		return nil, nil, ExitCode(ExitFailure, err)
	}
	var stages []conductor.Proxy
	for _, c := range st.Stages() {
		stages = append(stages, conductor.Proxy{Stage: c})
	}
	return stages, func() {
		if err := st.Close(); err != nil {
			s.log.Warn("closing the LSP stack", "err", err)
		}
	}, nil
}

// runWithLSP runs the chain, with the LSP stack as its only stages when
// withLSP is set (wrapper and proxy modes).
func (s *chainSetup) runWithLSP(ctx context.Context, withLSP bool) error {
	if withLSP {
		stages, closeStack, err := s.lspStages()
		if err != nil {
			return err
		}
		defer closeStack()
		s.opts.Proxies = stages
	}
	return runChain(ctx, s.opts)
}

func isBuiltinServer(name string) bool {
	return slices.ContainsFunc(lsp.DefaultServers(), func(s lsp.ServerConfig) bool { return s.Name == name })
}

// runChain runs the chain and maps its end to an exit code.
func runChain(ctx context.Context, opts conductor.Options) error {
	err := conductor.Run(ctx, opts)
	if err == nil {
		return nil
	}
	return ExitCode(ExitFailure, err)
}

// runCmd is wrapper mode: the editor runs acp-lsp as its agent.
type runCmd struct {
	f     chainFlags
	noLSP bool
}

func (*runCmd) Name() string { return "run" }
func (*runCmd) Synopsis() string {
	return "run an ACP agent behind acp-lsp (the default: acp-lsp [flags] -- AGENT)"
}
func (*runCmd) Usage() string {
	return `Usage: acp-lsp [flags] -- AGENT [ARGS...]
       acp-lsp run [flags] -- AGENT [ARGS...]

Wrapper mode. Configure acp-lsp as the agent in your editor; it starts
AGENT as a child in its own process group and runs

  editor ⇄ adapter ⇄ lsp tool ⇄ AGENT

forwarding every ACP message unchanged, except where acp-lsp adds
something: every session the agent opens gets the lsp tool (an MCP server
added to session/new, load, resume and fork), answered through the
editor's language servers when it offers them and local ones (gopls,
pyright, ...) otherwise. -no-lsp leaves only the plain proxy.

The configuration (docs/configuration.md) is read from the user file,
the current folder's .acp-lsp.toml once trusted ('acp-lsp trust'),
ACP_LSP_* variables and the flags below; a broken configuration stops
acp-lsp with exit status 2 and a message naming the file, line and key.

When the editor disconnects, AGENT, the language servers and all their
children are ended (SIGTERM, then SIGKILL) within 5 seconds; on Linux
also daemons they detached with setsid, and also when acp-lsp is killed
outright (each child runs under an acp-lsp-guard process). If AGENT
dies, the editor's pending requests are answered with an error saying
how, and acp-lsp exits with status 1.

Examples:
  acp-lsp -- opencode acp
  acp-lsp -log-level debug -trace /tmp/acp.ndjson -- gemini --experimental-acp
  acp-lsp -set tool.allow_mutating=false -- opencode acp
  acp-lsp -no-lsp -- opencode acp
`
}
func (c *runCmd) SetFlags(fs *flag.FlagSet) {
	c.f.set(fs)
	fs.BoolVar(&c.noLSP, "no-lsp", false, "run a plain proxy: no lsp tool, no language servers")
}
func (c *runCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	if len(args) == 0 {
		return UsageErrorf("missing the agent command: acp-lsp [flags] -- AGENT [ARGS...]")
	}
	s, err := c.f.setup(stdio)
	if err != nil {
		return err
	}
	defer s.done()
	s.opts.Agent = args
	return s.runWithLSP(ctx, !c.noLSP)
}
