// Package cli implements the acp-lsp command line: the subcommands, their
// flags and help, and the exit codes.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"runtime/debug"
	"sort"
	"strings"
)

// Exit codes shared by every subcommand; README.md (Exit codes) documents
// them.
const (
	// ExitOK means the command did what was asked.
	ExitOK = 0
	// ExitFailure means the command ran and failed (a missing server for
	// doctor, an agent that exited non-zero, a broken connection).
	ExitFailure = 1
	// ExitUsage means the command line or configuration was wrong.
	ExitUsage = 2
)

// Stdio is the standard streams a command reads and writes. Stdout carries
// protocol traffic in most modes, so commands log to Err only.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Command is one subcommand of acp-lsp.
type Command interface {
	// Name is the word that selects the command.
	Name() string
	// Synopsis is a one-line description for the command list.
	Synopsis() string
	// Usage is the detailed help, examples included, printed by -h.
	Usage() string
	// SetFlags registers the command's flags on fs.
	SetFlags(fs *flag.FlagSet)
	// Run executes the command with the arguments left after flag parsing.
	Run(ctx context.Context, io Stdio, args []string) error
}

// usageError marks an error caused by a wrong command line; it maps to
// ExitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// UsageErrorf returns an error that makes Main exit with ExitUsage.
func UsageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitError carries a specific exit code out of Run.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// ExitCode wraps err so that Main exits with code. A nil err with a non-zero
// code exits silently with that code.
func ExitCode(code int, err error) error {
	return exitError{code: code, err: err}
}

// stampedVersion is the version scripts/release.sh stamps into a release
// binary (-ldflags -X); empty in any other build.
var stampedVersion string

// Version reports the version acp-lsp was built from: the one a release
// binary was stamped with, else the module version, the tag for
// `go install …@vX`, "(devel)" for a checkout build.
func Version() string {
	if stampedVersion != "" {
		return stampedVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

// Main runs acp-lsp with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	cmds := commands()
	if len(args) == 0 {
		fmt.Fprint(stdio.Err, topUsage(cmds))
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			if c := find(cmds, args[1]); c != nil {
				fmt.Fprint(stdio.Out, commandUsage(c))
				return ExitOK
			}
			fmt.Fprintf(stdio.Err, "acp-lsp: unknown command %q\n", args[1])
			return ExitUsage
		}
		fmt.Fprint(stdio.Out, topUsage(cmds))
		return ExitOK
	case "-version", "--version", "-v":
		fmt.Fprintf(stdio.Out, "acp-lsp %s\n", Version())
		return ExitOK
	}
	c := find(append(cmds, hiddenCommands()...), name)
	rest := args[1:]
	if c == nil {
		// Wrapper mode is the default: `acp-lsp [flags] -- AGENT …`.
		if strings.HasPrefix(name, "-") {
			c = find(cmds, "run")
			rest = args
		}
		if c == nil {
			fmt.Fprintf(stdio.Err, "acp-lsp: unknown command %q; run 'acp-lsp help'\n", name)
			return ExitUsage
		}
	}
	return runCommand(ctx, c, rest, stdio)
}

func runCommand(ctx context.Context, c Command, args []string, stdio Stdio) int {
	fs := flag.NewFlagSet("acp-lsp "+c.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.SetFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdio.Out, commandUsage(c))
			return ExitOK
		}
		fmt.Fprintf(stdio.Err, "acp-lsp %s: %v\nrun 'acp-lsp %s -h' for help\n", c.Name(), err, c.Name())
		return ExitUsage
	}
	err := c.Run(ctx, stdio, fs.Args())
	if err == nil {
		return ExitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stdio.Err, "acp-lsp %s: %v\n", c.Name(), ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stdio.Err, "acp-lsp %s: %v\n", c.Name(), err)
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitFailure
}

func find(cmds []Command, name string) Command {
	for _, c := range cmds {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

func topUsage(cmds []Command) string {
	var b strings.Builder
	b.WriteString(`acp-lsp gives ACP coding agents language-server intelligence: it runs
between an editor and an agent and gives every agent session an lsp tool
answered by real language servers.

Usage:
  acp-lsp [flags] -- AGENT [ARGS...]   run AGENT behind acp-lsp (wrapper mode)
  acp-lsp COMMAND [flags] [args]

Commands:
`)
	sorted := append([]Command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name() < sorted[j].Name() })
	for _, c := range sorted {
		fmt.Fprintf(&b, "  %-12s %s\n", c.Name(), c.Synopsis())
	}
	b.WriteString(`
Start here:
  acp-lsp demo                 see it work: a scripted agent asks gopls about a sample
  acp-lsp doctor               which language servers this folder needs, and whether they run
  acp-lsp -- opencode acp      the command line to give your editor as its agent

Run 'acp-lsp COMMAND -h' or 'acp-lsp help COMMAND' for a command's flags and examples.
Exit codes: 0 success, 1 failure (a failed check or step, the agent failed or
the connection broke), 2 wrong command line or configuration.
`)
	return b.String()
}

func commandUsage(c Command) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(c.Usage(), "\n"))
	b.WriteString("\n")
	fs := flag.NewFlagSet(c.Name(), flag.ContinueOnError)
	c.SetFlags(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	return b.String()
}
