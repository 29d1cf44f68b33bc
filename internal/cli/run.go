package cli

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/acp-lsp/acp-lsp/conductor"
	"github.com/acp-lsp/acp-lsp/internal/logging"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// chainFlags are the flags shared by the three proxy modes.
type chainFlags struct {
	logLevel string
	trace    string
	maxLine  int
}

func (f *chainFlags) set(fs *flag.FlagSet) {
	fs.StringVar(&f.logLevel, "log-level", "info", "minimum level of log lines on stderr: debug, info, warn, error")
	fs.StringVar(&f.trace, "trace", "", "write every message of every hop to `FILE` as NDJSON {time, hop, dir, msg}")
	fs.IntVar(&f.maxLine, "max-message-mib", proxy.DefaultMaxLine>>20, "largest message accepted, in MiB (larger ones are skipped with an error)")
}

// options turns the flags into conductor options; the returned func closes
// what it opened.
func (f *chainFlags) options(stdio Stdio) (conductor.Options, func(), error) {
	level, err := logging.ParseLevel(f.logLevel)
	if err != nil {
		return conductor.Options{}, nil, UsageErrorf("%v", err)
	}
	if f.maxLine < 1 {
		return conductor.Options{}, nil, UsageErrorf("-max-message-mib must be at least 1")
	}
	opts := conductor.Options{
		In:      detachedReader(stdio.In),
		Out:     stdio.Out,
		Stderr:  stdio.Err,
		Logger:  logging.New(stdio.Err, logging.Options{Level: level}),
		MaxLine: f.maxLine << 20,
	}
	closeFn := func() {}
	if f.trace != "" {
		tf, err := os.Create(f.trace)
		if err != nil {
			return conductor.Options{}, nil, UsageErrorf("-trace: %v", err)
		}
		opts.Trace = tf
		closeFn = func() { tf.Close() }
	}
	return opts, closeFn, nil
}

// detachedReader copies r into a pipe so that closing the pipe ends reads
// even when r (a blocking stdin) cannot be interrupted.
func detachedReader(r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	return pr
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
type runCmd struct{ f chainFlags }

func (*runCmd) Name() string { return "run" }
func (*runCmd) Synopsis() string {
	return "run an ACP agent behind acp-lsp (the default: acp-lsp [flags] -- AGENT)"
}
func (*runCmd) Usage() string {
	return `Usage: acp-lsp [flags] -- AGENT [ARGS...]
       acp-lsp run [flags] -- AGENT [ARGS...]

Wrapper mode. Configure acp-lsp as the agent in your editor; it starts
AGENT as a child in its own process group and forwards every ACP message
between the editor (stdin/stdout) and AGENT unchanged, except where
acp-lsp's components add something. When the editor disconnects, AGENT
and all its children are ended (SIGTERM, then SIGKILL) within 5 seconds.
If AGENT dies, the editor's pending requests are answered with an error
saying how, and acp-lsp exits with status 1.

Examples:
  acp-lsp -- opencode acp
  acp-lsp -log-level debug -trace /tmp/acp.ndjson -- gemini --experimental-acp
`
}
func (c *runCmd) SetFlags(fs *flag.FlagSet) { c.f.set(fs) }
func (c *runCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	if len(args) == 0 {
		return UsageErrorf("missing the agent command: acp-lsp [flags] -- AGENT [ARGS...]")
	}
	opts, done, err := c.f.options(stdio)
	if err != nil {
		return err
	}
	defer done()
	opts.Agent = args
	return runChain(ctx, opts)
}
