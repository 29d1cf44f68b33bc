// Command acp-lsp-bench measures acp-lsp against a bare LSP client and the
// MCP-to-LSP servers cclsp and lsmcp, plus forwarding and scale rows, and
// writes docs/benchmarks.md's generated section and docs/bench/*.png.
// scripts/bench.sh installs what it needs and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acp-lsp/acp-lsp/internal/bench"
)

func main() {
	fs := flag.NewFlagSet("acp-lsp-bench", flag.ContinueOnError)
	out := fs.String("out", "docs", "docs folder to write benchmarks.md's generated section and bench/*.png into (empty: write nothing)")
	quick := fs.Bool("quick", false, "few repetitions: a smoke run, figures only indicative")
	rows := fs.String("rows", "lsp,forward,scale", "row groups to run, comma-separated: lsp, forward, scale")
	cache := fs.String("cache", "", "cache folder for the workspace module and npm peers (default .cache/bench)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: acp-lsp-bench [-out DIR] [-quick] [-rows lsp,forward,scale]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "acp-lsp-bench: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var groups []string
	for _, g := range strings.Split(*rows, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	_, err := bench.Run(ctx, bench.Options{Out: *out, Quick: *quick, Groups: groups, Cache: *cache})
	if err != nil {
		fmt.Fprintln(os.Stderr, "acp-lsp-bench:", err)
		os.Exit(1)
	}
}
