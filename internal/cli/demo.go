package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/demo"
	"github.com/acp-lsp/acp-lsp/internal/logging"
)

// demoCmd runs acp-lsp in front of the scripted agent over a sample
// workspace and prints what the agent saw.
type demoCmd struct {
	keep      bool
	workspace string
	script    string
	logLevel  string
	trace     string
	timeout   time.Duration
}

func (*demoCmd) Name() string { return "demo" }
func (*demoCmd) Synopsis() string {
	return "show acp-lsp working: the scripted agent asks gopls about a sample Go module"
}
func (*demoCmd) Usage() string {
	return `Usage: acp-lsp demo [flags]

Copies a small sample Go module (with one deliberate type error) to a new
temporary folder, starts 'acp-lsp -- acp-lsp agent' there (the same command
line an editor runs: acp-lsp's conductor, adapter and component in front of
the built-in scripted agent), opens an ACP session as an editor would, and
has the agent call the lsp tool five times: diagnostics, definition,
references, hover and a rename preview. For each call it prints the call,
what the agent got back, and how long it took. Nothing in the current
folder changes; the temporary folder is removed at the end (-keep keeps
it) and acp-lsp, the agent and gopls are ended.

The sample needs gopls on PATH; without it the demo stops and says how to
install it (scripts/demo.sh in a checkout installs the pinned version).

With -workspace DIR the calls run over DIR in place instead: for each of
the (up to three) languages with the most files there, the diagnostics of
all its files and the symbols of one, then the servers' status; or the
calls of -script FILE. A script has one tool call per line, as the
scripted agent reads them; a '# title' line names the call after it.
Nothing is written in either case (a rename in a script is a preview
unless it says "apply":true, and the demo declines every permission).

Exits 0 when every call completed, 1 when one failed or the chain broke,
2 on a wrong command line.

Examples:
  acp-lsp demo
  acp-lsp demo -keep -log-level debug
  acp-lsp demo -trace /tmp/demo.ndjson      # every ACP message of every hop
  acp-lsp demo -workspace ~/src/project -script calls.txt

  # calls.txt:
  # where is Serve declared?
  lsp {"action":"definition","file":"main.go","line":12,"symbol":"Serve"}
`
}

func (c *demoCmd) SetFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary copy of the sample workspace (its path is printed)")
	fs.StringVar(&c.workspace, "workspace", "", "run over `DIR` in place instead of the sample")
	fs.StringVar(&c.script, "script", "", "run the tool calls in `FILE`, one per line, instead of the built-in ones")
	fs.StringVar(&c.logLevel, "log-level", "warn", "acp-lsp's log level on stderr: debug, info, warn, error")
	fs.StringVar(&c.trace, "trace", "", "have acp-lsp write every message of every hop to `FILE` (NDJSON)")
	fs.DurationVar(&c.timeout, "timeout", 3*time.Minute, "longest wait for one call (the first includes starting gopls)")
}

func (c *demoCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	if _, err := logging.ParseLevel(c.logLevel); err != nil {
		return UsageErrorf("-log-level: %v", err)
	}
	if c.timeout <= 0 {
		return UsageErrorf("-timeout must be positive")
	}
	if c.keep && c.workspace != "" {
		return UsageErrorf("-keep applies to the sample's temporary copy; -workspace runs in place and is never removed")
	}
	var steps []demo.Step
	if c.script != "" {
		f, err := os.Open(c.script)
		if err != nil {
			return UsageErrorf("-script: %v", err)
		}
		steps, err = demo.ParseScript(f)
		f.Close()
		if err != nil {
			return UsageErrorf("-script %s: %v", c.script, err)
		}
	}
	// A reader that goes away (acp-lsp demo | head) must not kill the demo
	// before it ends acp-lsp and removes its folder: with SIGPIPE handled,
	// writes to a closed stdout fail instead, and the demo carries on.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the acp-lsp binary: %w", err)
	}
	chain := []string{exe, "-log-level", c.logLevel}
	if c.trace != "" {
		// acp-lsp runs in the workspace, so a relative path would land
		// in the temporary copy (removed at the end) or in the given
		// folder; it means where the demo was started.
		trace, err := filepath.Abs(c.trace)
		if err != nil {
			return UsageErrorf("-trace: %v", err)
		}
		chain = append(chain, "-trace", trace)
	}
	chain = append(chain, "--", exe, "agent", "-log-level", c.logLevel)
	_, err = demo.Run(ctx, demo.Options{
		Chain:       chain,
		Workspace:   c.workspace,
		Keep:        c.keep,
		Steps:       steps,
		Out:         stdio.Out,
		Stderr:      stdio.Err,
		StepTimeout: c.timeout,
	})
	if errors.Is(err, demo.ErrNoGopls) {
		return ExitCode(ExitFailure, err)
	}
	return err
}
