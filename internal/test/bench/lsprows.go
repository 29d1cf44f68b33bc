package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Column starts one subject over a workspace copy.
type Column struct {
	// Key selects the column (-columns); Name heads it.
	Key   string
	Name  string
	Start func(ctx context.Context, env *Env, root string, wsEnv []string) (Subject, error)
}

// LSPRow names the rows of the LSP table, in order.
var LSPRows = []string{
	"cold start to first hover",
	"hover (warm)",
	"definition (warm)",
	"references (warm)",
	"workspace symbols (warm)",
	"diagnostics after an edit",
}

var warmOps = []Op{OpHover, OpDefinition, OpReferences, OpSymbols}

// LSPResult is the LSP table: Cells[row][column].
type LSPResult struct {
	Columns []string
	Keys    []string
	Cells   [][]*Cell
	Target  *Target
	Runs    int
	// MCPClient is the client that drove the MCP columns.
	MCPClient string
}

// lspRuns measures every column on its own copy of the workspace, one
// column after the other (the machine is shared: no column runs while
// another does).
func lspRuns(ctx context.Context, env *Env, w *Workspace, cols []Column, runs, coldRuns int, logf func(string, ...any)) (*LSPResult, error) {
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "truth")
	if err != nil {
		return nil, err
	}
	t, err := Locate(root, w.Spec)
	if err != nil {
		return nil, err
	}
	// The references' truth, and a warm gopls file cache for every column
	// alike: the bare client's answer on an untouched copy.
	truth, err := StartBareSubject(ctx, env, root, w.Env)
	if err != nil {
		return nil, err
	}
	refs, err := truth.Do(ctx, OpReferences, t)
	truth.Close()
	if err != nil {
		return nil, fmt.Errorf("references truth: %w", err)
	}
	for _, l := range strings.Fields(refs) {
		file, rest, _ := strings.Cut(l, ":")
		line, _, _ := strings.Cut(rest, ":")
		t.Refs = append(t.Refs, file+":"+line)
	}
	if len(t.Refs) == 0 {
		return nil, fmt.Errorf("references truth: gopls found no references to %s", t.UseSymbol)
	}
	res := &LSPResult{Target: t, Runs: runs, MCPClient: env.MCPClient}
	for range LSPRows {
		res.Cells = append(res.Cells, make([]*Cell, len(cols)))
	}
	for ci, col := range cols {
		res.Columns = append(res.Columns, col.Name)
		res.Keys = append(res.Keys, col.Key)
		for ri := range LSPRows {
			res.Cells[ri][ci] = &Cell{}
		}
		logf("lsp: %s", col.Name)
		if err := lspColumn(ctx, env, w, t, col, res, ci, runs, coldRuns, logf); err != nil {
			logf("lsp: %s: %v", col.Name, err)
		}
	}
	return res, nil
}

func lspColumn(ctx context.Context, env *Env, w *Workspace, t *Target, col Column, res *LSPResult, ci, runs, coldRuns int, logf func(string, ...any)) error {
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), col.Key)
	if err != nil {
		return err
	}
	wsEnv := w.Env
	if env.Trace != "" {
		if env, wsEnv, err = traced(env.Trace, col.Key, env, wsEnv); err != nil {
			return err
		}
	}
	cold := res.Cells[0][ci]
	var s Subject
	for i := 0; i < coldRuns; i++ {
		if s != nil {
			s.Close()
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		s, err = col.Start(cctx, env, root, wsEnv)
		if err != nil {
			cancel()
			cold.Err = err.Error()
			for _, row := range res.Cells {
				if row[ci].Err == "" {
					row[ci].Err = "did not start: " + firstLineOf(err.Error())
				}
			}
			return err
		}
		text, err := s.Do(cctx, OpHover, t)
		d := time.Since(start)
		cancel()
		ok, why := judge(OpHover, t, text, "")
		if err != nil {
			ok, why = false, err.Error()
		}
		cold.Samples = append(cold.Samples, Sample{D: d, Right: ok, Why: why})
	}
	defer s.Close()
	for oi, op := range warmOps {
		cell := res.Cells[1+oi][ci]
		// One unmeasured call: the first one after start may still load
		// packages for this op. Then the column's servers finish what
		// they do in the background (settle), so no row of any column is
		// measured during a server's start-up work.
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		_, err := s.Do(wctx, op, t)
		cancel()
		if err != nil {
			cell.Err = firstLineOf(err.Error())
			continue
		}
		if d := settleServers(ctx); d > 2*settleWindow {
			logf("lsp: %s: %s: the servers were busy for %v before the row", col.Name, op, d.Round(100*time.Millisecond))
		}
		for i := 0; i < runs; i++ {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			start := time.Now()
			text, err := s.Do(wctx, op, t)
			d := time.Since(start)
			cancel()
			ok, why := judge(op, t, text, "")
			if err != nil {
				ok, why = false, err.Error()
			}
			cell.Samples = append(cell.Samples, Sample{D: d, Right: ok, Why: why})
		}
	}
	// Diagnostics after an edit: each run writes a new type error with its
	// own marker into the file, as an agent's edit would, then asks.
	path := filepath.Join(root, t.EditFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	defer os.WriteFile(path, orig, 0o644)
	cell := res.Cells[len(LSPRows)-1][ci]
	// Edit 0 is the row's unmeasured first call, as every warm row has
	// one: the first diagnostics call opens the file (the bare client's
	// didOpen, the tool's first look at it), every later one asks about a
	// change. Then settled like the warm rows: that call, and the last
	// warm row, may have left the column's servers working.
	for i := 0; i <= runs; i++ {
		edited, token := typeErrorEdit(orig, i)
		if err := os.WriteFile(path, edited, 0o644); err != nil {
			return err
		}
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		start := time.Now()
		text, err := s.Do(dctx, OpDiagnostics, t)
		d := time.Since(start)
		cancel()
		if i == 0 {
			if d := settleServers(ctx); d > 2*settleWindow {
				logf("lsp: %s: diagnostics after an edit: the servers were busy for %v before the row", col.Name, d.Round(100*time.Millisecond))
			}
			continue
		}
		ok, why := judge(OpDiagnostics, t, text, token)
		if err != nil {
			ok, why = false, err.Error()
		}
		cell.Samples = append(cell.Samples, Sample{D: d, Right: ok, Why: why})
	}
	return nil
}

// typeErrorEdit returns orig with a new type error appended, the n-th of
// a run, as an agent's edit would add one, and the token that gopls's
// message about it quotes: an answer that names the token reflects this
// edit.
func typeErrorEdit(orig []byte, n int) (edited []byte, token string) {
	token = fmt.Sprintf("bench-edit-%d-%d", time.Now().UnixNano()%1e6, n)
	return fmt.Appendf(nil, "%s\nvar benchEdit%d int = %q\n", orig, n, token), token
}
