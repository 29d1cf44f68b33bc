// Package bench is acp-lsp's benchmark report: one command (cmd/acp-lsp-bench,
// run by scripts/bench.sh) measures acp-lsp against the alternatives in the
// same run, on the same machine, with the same gopls and the same workspace,
// and writes the tables and PNG plots of docs/benchmarks.md.
//
// The LSP rows ask the same questions of four columns: (a) a bare LSP
// client talking to gopls directly (BareClient, the floor), (b) acp-lsp's
// lsp tool through the real chain (adapter and component in process, the
// MCP go-sdk client over the component's HTTP transport), and (c) the
// MCP-to-LSP servers cclsp and lsmcp over stdio, driven by the same MCP
// client. Every answer is checked (the right place, the edit's error), so a
// fast wrong or stale answer shows as such.
//
// The load rows (load.go) start (a) and (b) cold on a large module and
// time them to the first right answer of a long list, asking again as a
// model would while an answer is partial or says a server is not ready,
// and sample the peak memory of every process each column started
// (memory.go).
package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// Options configure Run.
type Options struct {
	// Out is the docs folder: Run rewrites the generated section of
	// Out/benchmarks.md and writes Out/bench/*.png.
	Out string
	// Cache holds the fetched module, workspace copies and npm peers
	// (default .cache/bench at the module root).
	Cache string
	// Quick runs few repetitions (a smoke test, figures not for the docs).
	Quick bool
	// Groups selects row groups: "lsp", "forward", "scale", "load",
	// "shared", "bytes" (default all).
	Groups []string
	// LoadRuns is how many cold runs the load rows make per column and
	// question (default 3; 1 with Quick).
	LoadRuns int
	// Columns selects LSP columns: "bare", "acp-lsp", "cclsp", "lsmcp"
	// (default all).
	Columns []string
	// Log receives progress lines (default os.Stderr).
	Log io.Writer
	// MCPClient is the MCP client driving every MCP column (b and c):
	// ClientSDK (default) or ClientLean.
	MCPClient string
	// Trace, when set, is a folder where every LSP column's gopls writes
	// its RPC trace (Trace/<column>/gopls-<pid>.log): what each column asks
	// the server, and the server's own time per request.
	Trace string
}

// Report is everything one run measured.
type Report struct {
	Machine  Machine
	Quick    bool
	Spec     Spec
	Files    int
	LSP      *LSPResult
	Forward  *ForwardResult
	Scale    *ScaleResult
	Load     *LoadResult
	Shared   *SharedResult
	Bytes    *BytesResult
	Errors   []string
	Duration time.Duration
}

func (o *Options) wants(g string) bool {
	return len(o.Groups) == 0 || slices.Contains(o.Groups, g)
}

// RowGroups are the row groups Options.Groups selects from, in the order
// they run.
var RowGroups = []string{"lsp", "forward", "scale", "load", "shared", "bytes"}

// AllColumns are the LSP table's columns in order: (a) first, (b) second
// (the goals compare against them by position).
var AllColumns = []Column{
	{Key: "bare", Name: "(a) bare LSP client", Start: StartBareSubject},
	{Key: "acp-lsp", Name: "(b) acp-lsp lsp tool", Start: StartACPLSP},
	{Key: "cclsp", Name: "(c) cclsp " + CclspVersion, Start: StartCclsp},
	{Key: "lsmcp", Name: "(c) lsmcp " + LsmcpVersion, Start: StartLsmcp},
}

// Run measures the selected groups and writes the report into Out.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	if opts.Cache == "" {
		opts.Cache = filepath.Join(peers.ModuleRoot(), ".cache", "bench")
	}
	for _, g := range opts.Groups {
		if !slices.Contains(RowGroups, g) {
			return nil, fmt.Errorf("bench: unknown row group %q (%s)", g, strings.Join(RowGroups, ", "))
		}
	}
	var cols []Column
	for _, c := range AllColumns {
		if len(opts.Columns) == 0 || slices.Contains(opts.Columns, c.Key) {
			cols = append(cols, c)
		}
	}
	if opts.MCPClient != "" && opts.MCPClient != ClientLean && opts.MCPClient != ClientSDK {
		return nil, fmt.Errorf("bench: unknown MCP client %q (%s, %s)", opts.MCPClient, ClientLean, ClientSDK)
	}
	for _, k := range opts.Columns {
		if !slices.ContainsFunc(AllColumns, func(c Column) bool { return c.Key == k }) {
			return nil, fmt.Errorf("bench: unknown column %q (bare, acp-lsp, cclsp, lsmcp)", k)
		}
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(opts.Log, "bench: "+format+"\n", args...)
	}
	if err := os.MkdirAll(opts.Cache, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	gopls, err := peers.Find("gopls")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	env := &Env{Gopls: gopls, Base: peers.Env(), NodeModules: opts.Cache, Cache: opts.Cache, Trace: opts.Trace, MCPClient: opts.MCPClient}
	start := time.Now()
	loadStart := LoadAverage()
	rep := &Report{Quick: opts.Quick, Spec: DefaultSpec}
	logf("fetching %s@%s", DefaultSpec.Module, DefaultSpec.Version)
	w, err := Fetch(ctx, opts.Cache, DefaultSpec, env.Base)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rep.Files = w.Files
	runs, coldRuns := 15, 3
	if opts.Quick {
		runs, coldRuns = 3, 1
	}
	if opts.wants("lsp") {
		rep.LSP, err = lspRuns(ctx, env, w, cols, runs, coldRuns, logf)
		if err != nil {
			rep.Errors = append(rep.Errors, "lsp rows: "+err.Error())
			logf("lsp rows: %v", err)
		}
	}
	if opts.wants("forward") {
		logf("forwarding rows")
		rep.Forward, err = forwardRows(ctx, opts.Cache, opts.Quick)
		if err != nil {
			rep.Errors = append(rep.Errors, "forwarding rows: "+err.Error())
			logf("forwarding rows: %v", err)
		}
	}
	if opts.wants("scale") {
		logf("scale rows")
		rep.Scale, err = scaleRows(ctx, env, w, opts.Quick, logf)
		if err != nil {
			rep.Errors = append(rep.Errors, "scale rows: "+err.Error())
			logf("scale rows: %v", err)
		}
	}
	if opts.wants("load") {
		n := cmp.Or(opts.LoadRuns, 3)
		if opts.Quick && opts.LoadRuns == 0 {
			n = 1
		}
		rep.Load, err = loadRows(ctx, env, n, logf)
		if err != nil {
			rep.Errors = append(rep.Errors, "load rows: "+err.Error())
			logf("load rows: %v", err)
		}
	}
	if opts.wants("shared") {
		logf("shared rows")
		rep.Shared, err = sharedRows(ctx, env, w, opts.Quick, logf)
		if err != nil {
			rep.Errors = append(rep.Errors, "shared rows: "+err.Error())
			logf("shared rows: %v", err)
		}
	}
	if opts.wants("bytes") {
		logf("bytes rows")
		rep.Bytes, err = bytesRuns(ctx, env, w, cols, logf)
		if err != nil {
			rep.Errors = append(rep.Errors, "bytes rows: "+err.Error())
			logf("bytes rows: %v", err)
		}
		// The other languages' projects are not part of a quick run: they
		// need the pinned npm packages scripts/bench.sh installs.
		for _, p := range BytesProjects {
			if opts.Quick || rep.Bytes == nil {
				break
			}
			pr, err := bytesProjectRuns(ctx, env, p, cols, logf)
			if err != nil {
				rep.Errors = append(rep.Errors, "bytes rows: "+err.Error())
				logf("bytes rows: %v", err)
				continue
			}
			rep.Bytes.Projects = append(rep.Bytes.Projects, pr)
		}
	}
	rep.Machine = DescribeMachine(ctx, env, "")
	rep.Machine.LoadStart = loadStart
	rep.Duration = time.Since(start)
	if opts.Out != "" {
		if err := rep.Write(opts.Out); err != nil {
			return rep, err
		}
	}
	if len(rep.Errors) > 0 {
		return rep, errors.New("bench: " + strings.Join(rep.Errors, "; "))
	}
	return rep, nil
}
