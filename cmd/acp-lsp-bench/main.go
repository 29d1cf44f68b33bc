// Command acp-lsp-bench measures acp-lsp against a bare LSP client and the
// MCP-to-LSP servers cclsp and lsmcp, plus forwarding, scale and load
// (cold start on a large module: time to the right answer, memory) rows, and
// writes docs/benchmarks.md's generated section and docs/bench/*.png.
// scripts/bench.sh installs what it needs and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acp-lsp/acp-lsp/internal/test/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command without the process around it (tests call it).
func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp-lsp-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "docs", "docs folder to write benchmarks.md's generated section and bench/*.png into (empty: write nothing)")
	quick := fs.Bool("quick", false, "few repetitions: a smoke run, figures only indicative")
	rows := fs.String("rows", strings.Join(bench.RowGroups, ","), "row groups to run, comma-separated: "+strings.Join(bench.RowGroups, ", "))
	loadRuns := fs.Int("load-runs", 0, "cold runs per column and question in the load rows (default 3, with -quick 1)")
	cols := fs.String("columns", "bare,acp-lsp,cclsp,lsmcp", "LSP table columns, comma-separated: bare, acp-lsp, cclsp, lsmcp")
	client := fs.String("mcp-client", bench.ClientSDK, "MCP client driving every MCP column (acp-lsp, cclsp, lsmcp): go-sdk (github.com/modelcontextprotocol/go-sdk) or lean (the bench's own, to see the client's share)")
	trace := fs.String("trace", "", "folder for each LSP column's gopls RPC trace (gopls -rpc.trace), to read what each column asks the server; slows gopls, so not for figures")
	cache := fs.String("cache", "", "cache folder for the workspace module, workspace copies and npm peers (default .cache/bench)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: acp-lsp-bench [-out DIR] [-quick] [-rows lsp,forward,scale,load,shared,bytes] [-load-runs N] [-columns bare,acp-lsp,cclsp,lsmcp] [-mcp-client lean|go-sdk] [-trace DIR]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acp-lsp-bench: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	_, err := bench.Run(ctx, bench.Options{Out: *out, Quick: *quick, Groups: list(*rows), LoadRuns: *loadRuns, Columns: list(*cols), Cache: *cache, Log: stderr, Trace: *trace, MCPClient: *client})
	if err != nil {
		fmt.Fprintln(stderr, "acp-lsp-bench:", err)
		return 1
	}
	return 0
}

func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
