package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// ScaleResult holds the scale rows.
type ScaleResult struct {
	Rows []ScaleRow
}

// ScaleRow is one scale measurement and the check it must pass.
type ScaleRow struct {
	Name   string
	Result string
	Check  string
	OK     bool
}

// scaleRows runs the scale rows through the in-process stack. Each row is
// independent: a failure is reported in its row and the next one runs.
func scaleRows(ctx context.Context, env *Env, w *Workspace, quick bool, logf func(string, ...any)) (*ScaleResult, error) {
	res := &ScaleResult{}
	add := func(r ScaleRow, err error) {
		if err != nil {
			r.Result, r.OK = "error: "+err.Error(), false
		}
		logf("scale: %s: %s", r.Name, r.Result)
		res.Rows = append(res.Rows, r)
	}
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "scale")
	if err != nil {
		return nil, err
	}
	t, err := Locate(root, w.Spec)
	if err != nil {
		return nil, err
	}
	sessions, calls := 20, 200
	if quick {
		sessions, calls = 5, 40
	}
	r1, r2, err := concurrentRows(ctx, w, root, t, sessions, calls)
	add(r1, err)
	if err == nil {
		add(r2, nil)
	}
	add(pushedDiagnostics(ctx, w, root, quick))
	if !quick {
		logf("scale: fetching %s@%s", LargeSpec.Module, LargeSpec.Version)
		add(largeSymbols(ctx, env))
	}
	return res, nil
}

// toolText calls the lsp tool and returns its text.
func toolText(ctx context.Context, cs *mcp.ClientSession, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return b.String(), fmt.Errorf("tool error: %s", firstLineOf(b.String()))
	}
	return b.String(), nil
}

// concurrentRows: n agent sessions on one workspace, each asking hover,
// definition and references at once (one gopls must serve them all, every
// answer right), then calls tool calls at once spread over the sessions.
func concurrentRows(ctx context.Context, w *Workspace, root string, t *Target, n, calls int) (ScaleRow, ScaleRow, error) {
	r1 := ScaleRow{Name: fmt.Sprintf("%d concurrent agent sessions on one workspace", n),
		Check: "one gopls process; every answer right"}
	r2 := ScaleRow{Name: fmt.Sprintf("%d concurrent tool calls", calls), Check: "every answer right"}
	st, err := StartStack(ctx, lsp.Options{Env: w.Env}, component.Config{})
	if err != nil {
		return r1, r2, err
	}
	defer st.Close()
	css := make([]*mcp.ClientSession, n)
	for i := range css {
		cs, err := st.NewSession(ctx, root)
		if err != nil {
			return r1, r2, err
		}
		defer cs.Close()
		css[i] = cs
	}
	// The truth for references comes from the tool itself on session 0
	// after a warm-up: the row is about concurrency, not about accuracy.
	args := []struct {
		op   Op
		args map[string]any
	}{}
	for _, op := range []Op{OpHover, OpDefinition, OpReferences} {
		_, a := acpLSPArgs(op, t)
		args = append(args, struct {
			op   Op
			args map[string]any
		}{op, a})
	}
	refText, err := toolText(ctx, css[0], args[2].args)
	if err != nil {
		return r1, r2, fmt.Errorf("warm-up: %w", err)
	}
	for _, l := range strings.Split(refText, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.Count(f[0], ":") >= 2 && !strings.HasSuffix(f[0], ":") {
			parts := strings.Split(f[0], ":")
			t.Refs = append(t.Refs, parts[0]+":"+parts[1])
		}
	}
	if len(t.Refs) == 0 {
		return r1, r2, fmt.Errorf("warm-up: no references in %q", firstLineOf(refText))
	}
	run := func(total int) (right int, lat *Cell, wall time.Duration, why string) {
		lat = &Cell{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for i := 0; i < total; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := args[i%len(args)]
				cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				defer cancel()
				s := time.Now()
				text, err := toolText(cctx, css[i%n], a.args)
				d := time.Since(s)
				ok, reason := judge(a.op, t, text, "")
				if err != nil {
					ok, reason = false, err.Error()
				}
				mu.Lock()
				lat.Samples = append(lat.Samples, Sample{D: d, Right: ok, Why: reason})
				mu.Unlock()
			}()
		}
		wg.Wait()
		return lat.Right(), lat, time.Since(start), lat.FirstWrong()
	}
	right, lat, wall, why := run(n * len(args))
	procs := 0
	for _, s := range st.Adapter.Local().Servers() {
		if s.PID > 0 {
			procs++
		}
	}
	r1.Result = fmt.Sprintf("%d calls (hover, definition, references per session) in %s; per call p50 %s, p99 %s; %d/%d right; gopls processes: %d",
		len(lat.Samples), fmtDur(wall), fmtDur(lat.Median()), fmtDur(lat.Quantile(0.99)), right, len(lat.Samples), procs)
	if why != "" {
		r1.Result += "; first wrong: " + why
	}
	r1.OK = procs == 1 && right == len(lat.Samples)
	right, lat, wall, why = run(calls)
	r2.Result = fmt.Sprintf("%d calls over %d sessions in %s (%.0f calls/s); per call p50 %s, p99 %s; %d/%d right",
		calls, n, fmtDur(wall), float64(calls)/wall.Seconds(), fmtDur(lat.Median()), fmtDur(lat.Quantile(0.99)), right, len(lat.Samples))
	if why != "" {
		r2.Result += "; first wrong: " + why
	}
	r2.OK = right == len(lat.Samples)
	return r1, r2, nil
}

// pushedDiagnostics pushes 10,000 editor publishDiagnostics over 2,000
// files down the chain (five rounds over the same files, five diagnostics
// each) and reads the Go heap after each round: the component's cache is
// bounded, so the heap after round five must be about the heap after
// round one.
func pushedDiagnostics(ctx context.Context, w *Workspace, root string, quick bool) (ScaleRow, error) {
	const files, rounds, perFile = 2000, 5, 5
	row := ScaleRow{Name: fmt.Sprintf("%d pushed diagnostics notifications over %d files", files*rounds, files),
		Check: "heap after the last round within 10% (or 2 MiB) of the heap after the first; the cache holds every file's newest diagnostics"}
	st, err := StartStack(ctx, lsp.Options{Env: w.Env}, component.Config{})
	if err != nil {
		return row, err
	}
	defer st.Close()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	var after []uint64
	start := time.Now()
	for round := 0; round < rounds; round++ {
		for f := 0; f < files; f++ {
			uri := edit.URIFromPath(filepath.Join(root, "gen", fmt.Sprintf("pkg%03d", f/100), fmt.Sprintf("file%04d.go", f)))
			diags := make([]map[string]any, perFile)
			for d := range diags {
				diags[d] = map[string]any{
					"range":    map[string]any{"start": map[string]any{"line": d + 1, "character": 1}, "end": map[string]any{"line": d + 1, "character": 9}},
					"severity": 1,
					"source":   "compiler",
					"message":  fmt.Sprintf("round %d: undefined: someIdentifierThatIsMissing%d (diagnostic %d of file %d)", round, d, d, f),
				}
			}
			if err := st.Notify("_lsp/publishDiagnostics", map[string]any{"uri": uri, "version": round + 1, "diagnostics": diags}); err != nil {
				return row, err
			}
		}
		// A request behind the notifications comes back only after the
		// chain delivered them (wire order per direction is kept).
		st.chain.Call(ctx, "bench/barrier", map[string]any{})
		after = append(after, heap())
	}
	wall := time.Since(start)
	cache := st.Stage.Tool().Cache()
	last := edit.URIFromPath(filepath.Join(root, "gen", fmt.Sprintf("pkg%03d", (files-1)/100), fmt.Sprintf("file%04d.go", files-1)))
	diags, ok := cache.Get(last)
	newest := ok && len(diags) == perFile && strings.Contains(diags[0].Message, fmt.Sprintf("round %d:", rounds-1))
	first, end := int64(after[0]), int64(after[len(after)-1])
	growth := end - first
	var steps []string
	for _, h := range after {
		steps = append(steps, fmt.Sprintf("%.1f", float64(int64(h)-int64(base))/(1<<20)))
	}
	row.Result = fmt.Sprintf("%d notifications in %s (%.0f/s); heap above the idle chain after each round of %d: %s MiB; cache %d files, newest kept: %v",
		files*rounds, fmtDur(wall), float64(files*rounds)/wall.Seconds(), files, strings.Join(steps, ", "), cache.Len(), newest)
	margin := max(first/10, 2<<20)
	row.OK = growth <= margin && newest && cache.Len() <= files
	_ = quick
	return row, nil
}

// largeSymbols asks a broad workspace-symbol query over a large module
// through the tool and straight from gopls: the tool's answer must stay
// within its output budget however much gopls returns.
func largeSymbols(ctx context.Context, env *Env) (ScaleRow, error) {
	row := ScaleRow{Name: "workspace symbols over a large module (" + LargeSpec.Module + ")",
		Check: fmt.Sprintf("the answer stays within the tool's output budget (%d characters)", component.DefaultBudget)}
	w, err := Fetch(ctx, env.Cache, LargeSpec, env.Base)
	if err != nil {
		return row, err
	}
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "large")
	if err != nil {
		return row, err
	}
	const query = "Message"
	bare, err := StartBare(ctx, env.Gopls, root, w.Env)
	if err != nil {
		return row, err
	}
	defer bare.Close()
	bstart := time.Now()
	raw, err := bare.Call(ctx, "workspace/symbol", map[string]any{"query": query})
	bd := time.Since(bstart)
	if err != nil {
		return row, err
	}
	var syms []json.RawMessage
	json.Unmarshal(raw, &syms)
	st, err := StartStack(ctx, lsp.Options{Env: w.Env}, component.Config{})
	if err != nil {
		return row, err
	}
	defer st.Close()
	cs, err := st.NewSession(ctx, root)
	if err != nil {
		return row, err
	}
	defer cs.Close()
	args := map[string]any{"action": "symbols", "query": query}
	if _, err := toolText(ctx, cs, args); err != nil { // warm-up: gopls loads the module
		return row, err
	}
	tstart := time.Now()
	text, err := toolText(ctx, cs, args)
	td := time.Since(tstart)
	if err != nil {
		return row, err
	}
	row.Result = fmt.Sprintf("%d .go files; gopls answers %d symbols (%d bytes of JSON) in %s (bare client, first call); the tool answers %d characters in %s (warm)",
		w.Files, len(syms), len(raw), fmtDur(bd), len(text), fmtDur(td))
	if strings.Contains(text, "offset=") {
		row.Result += "; it says how to page for more"
	}
	row.OK = len(text) <= component.DefaultBudget
	return row, nil
}

func (s *ScaleResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### Scale (through the in-process chain, real gopls)\n\n| Row | Result | Check | |\n|---|---|---|---|\n")
	for _, r := range s.Rows {
		p("| %s | %s | %s | %s |\n", r.Name, strings.ReplaceAll(r.Result, "|", "\\|"), r.Check, verdict(r.OK))
	}
}
