package bench

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// LoadSpec is the module of the load rows (issue 20): golang.org/x/tools
// v0.39.0, 1,249 Go files, and a few stray files of other languages
// (cmd/present/static/*.js, a testdata .c) whose servers a workspace-wide
// question may start. The references asked for are those of
// analysis.Analyzer, a few hundred places; the workspace-symbol query
// finds some 80 (gopls returns at most 100, and a query that reaches the
// cap may return a different hundred each time).
var LoadSpec = Spec{Module: "golang.org/x/tools", Version: "v0.39.0",
	DeclFile: "go/analysis/analysis.go", DeclLine: "type Analyzer struct", UseSymbol: "Analyzer",
	Query: "Unparen"}

const (
	// modelTurn is how long the load rows' agent takes before it asks
	// again after an answer it cannot take as whole (a caveat, an error, a
	// partial list): a model reads the answer and calls the tool again,
	// which takes it at least this long.
	modelTurn = time.Second
	// loadTimeout bounds one cold run, from start to the right answer.
	loadTimeout = 3 * time.Minute
)

// loadOps are the load rows' questions, in order.
var loadOps = []Op{OpReferences, OpSymbols}

// loadSubject is one load column: asks a question the way a model does
// (every page of a list) and ends every process it started on Close.
type loadSubject interface {
	ask(ctx context.Context, op Op, t *Target) (loadAnswer, error)
	Close() error
}

// loadColumn starts one load column cold.
type loadColumn struct {
	Key, Name string
	start     func(ctx context.Context, env *Env, root string, wsEnv []string) (loadSubject, error)
}

// loadColumns are the load table's columns, (a) first.
var loadColumns = []loadColumn{
	{Key: "bare", Name: "(a) bare LSP client", start: startBareLoad},
	{Key: "acp-lsp", Name: "(b) acp-lsp lsp tool", start: startToolLoad},
}

// LoadRun is one cold run of one column on one question.
type LoadRun struct {
	// D is the time from start to the right answer, or to giving up.
	D     time.Duration
	Right bool
	// Why is what was wrong with the first answer that was not right.
	Why string
	// Asks counts the questions asked (the model asking again); Calls
	// the tool calls or requests they took (pages).
	Asks, Calls int
	Mem         MemPeak
	// Err is set when the column did not start.
	Err string
}

// LoadResult is the load table: Runs[op][column][run].
type LoadResult struct {
	Spec  Spec
	Files int
	// Stray names the module's files of other languages than Go that a
	// built-in server handles ("7 .js", with the server).
	Stray   string
	Target  *Target
	Ops     []Op
	Truth   []int // places in the right answer, per op
	Columns []string
	Keys    []string
	Runs    [][][]LoadRun
	N       int
}

// loadRows measures each column cold, n times, on each question, the
// columns' runs interleaved so both see the same machine.
func loadRows(ctx context.Context, env *Env, n int, logf func(string, ...any)) (*LoadResult, error) {
	logf("load: fetching %s@%s", LoadSpec.Module, LoadSpec.Version)
	w, err := Fetch(ctx, env.Cache, LoadSpec, env.Base)
	if err != nil {
		return nil, err
	}
	// One copy for the truth and every column: gopls's file cache, which
	// the truth run fills, is keyed by file names too, so every run of
	// every column starts with it equally warm.
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "load")
	if err != nil {
		return nil, err
	}
	line, char, err := find(root, LoadSpec.DeclFile, LoadSpec.DeclLine, LoadSpec.UseSymbol)
	if err != nil {
		return nil, err
	}
	t := &Target{DeclFile: LoadSpec.DeclFile, DeclLine: line, DeclChar: char, UseSymbol: LoadSpec.UseSymbol, Query: LoadSpec.Query}
	res := &LoadResult{Spec: LoadSpec, Files: w.Files, Stray: strayFiles(root), Target: t, Ops: loadOps, N: n}
	logf("load: the truth: the bare client's answers once gopls has loaded %s", LoadSpec.Module)
	truth, err := loadTruth(ctx, env, root, w.Env, t)
	if err != nil {
		return nil, fmt.Errorf("load truth: %w", err)
	}
	for _, s := range truth {
		res.Truth = append(res.Truth, s.size())
	}
	for _, c := range loadColumns {
		res.Columns = append(res.Columns, c.Name)
		res.Keys = append(res.Keys, c.Key)
	}
	res.Runs = make([][][]LoadRun, len(loadOps))
	for oi := range loadOps {
		res.Runs[oi] = make([][]LoadRun, len(loadColumns))
	}
	for i := 0; i < n; i++ {
		for oi, op := range loadOps {
			for ci, col := range loadColumns {
				r := coldRun(ctx, env, root, w.Env, col, op, t, truth[oi])
				res.Runs[oi][ci] = append(res.Runs[oi][ci], r)
				logf("load: %s, %s, run %d: %s", col.Name, op, i+1, r.summary())
			}
		}
	}
	return res, nil
}

// loadTruth is the bare client's answer to each load question once gopls
// has loaded the module (asked cold, then again once the server is idle,
// and the references once more to see the answer stands).
func loadTruth(ctx context.Context, env *Env, root string, wsEnv []string, t *Target) ([]placeSet, error) {
	s, err := startBareLoad(ctx, env, root, wsEnv)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.ask(ctx, OpReferences, t); err != nil {
		return nil, err
	}
	settleServers(ctx)
	var out []placeSet
	for _, op := range loadOps {
		a, err := s.ask(ctx, op, t)
		if err != nil {
			return nil, err
		}
		if a.Places.size() == 0 {
			return nil, fmt.Errorf("gopls answered no %s for %s", op, t.UseSymbol)
		}
		out = append(out, a.Places)
	}
	again, err := s.ask(ctx, OpReferences, t)
	if err != nil {
		return nil, err
	}
	if d := again.Places.diff(out[0]); d != "" {
		return nil, fmt.Errorf("references changed between two asks of a loaded gopls: %s", d)
	}
	return out, nil
}

// coldRun starts col afresh and asks op until the answer is right (or
// loadTimeout passes), the model's turn between asks; it samples memory
// from before the start until the servers are idle after the answer, so
// what the question set off in the background counts too.
func coldRun(ctx context.Context, env *Env, root string, wsEnv []string, col loadColumn, op Op, t *Target, truth placeSet) LoadRun {
	var r LoadRun
	if procs, err := procfs.Table(); err == nil {
		if left := procfs.Descendants(procs, os.Getpid()); len(left) > 0 {
			settleServers(ctx) // what the last run's Close is still ending
		}
	}
	debug.FreeOSMemory() // the bench's own level, before the column, as low as it goes
	mem := sampleMemory()
	rctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	start := time.Now()
	s, err := col.start(rctx, env, root, wsEnv)
	if err != nil {
		r.Err, r.D, r.Mem = firstLineOf(err.Error()), time.Since(start), mem.Stop()
		return r
	}
	defer s.Close()
	for {
		a, err := s.ask(rctx, op, t)
		r.Asks++
		r.Calls += a.Calls
		ok, why := judgeLoad(a, err, truth)
		if ok {
			r.Right = true
			break
		}
		if r.Why == "" {
			r.Why = why
		}
		if rctx.Err() != nil {
			break
		}
		turn := time.NewTimer(modelTurn)
		select {
		case <-turn.C:
		case <-rctx.Done():
			turn.Stop()
		}
	}
	r.D = time.Since(start)
	settleServers(ctx)
	r.Mem = mem.Stop()
	return r
}

func (r LoadRun) summary() string {
	if r.Err != "" {
		return "did not start: " + r.Err
	}
	s := fmt.Sprintf("%s, %s, %s, right %v, servers %s MiB, in process +%s MiB", fmtSec(r.D), count(int64(r.Asks), "ask"), count(int64(r.Calls), "call"), r.Right, fmtMiB(r.Mem.Servers), fmtMiB(r.Mem.Self))
	for _, name := range r.Mem.Names() {
		s += fmt.Sprintf(", %s %s MiB", name, fmtMiB(r.Mem.ByServer[name]))
	}
	if r.Why != "" {
		s += "; first answer not right: " + r.Why
	}
	return s
}

// strayFiles counts the files under root that a built-in server other
// than gopls handles, by extension: what a workspace-wide question may
// start servers for.
func strayFiles(root string) string {
	server := map[string]string{}
	for _, s := range lsp.DefaultServers() {
		if s.Name == "gopls" {
			continue
		}
		for _, e := range s.Extensions {
			if _, taken := server[e]; !taken {
				server[e] = s.Name
			}
		}
	}
	count := map[string]int{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if e := strings.TrimPrefix(filepath.Ext(p), "."); server[e] != "" {
				count[e]++
			}
		}
		return nil
	})
	var parts []string
	for _, e := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%d .%s (%s)", count[e], e, server[e]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// bareLoad is column (a) for the load rows: one request, the whole list.
type bareLoad struct{ *bareSubject }

func startBareLoad(ctx context.Context, env *Env, root string, wsEnv []string) (loadSubject, error) {
	c, err := StartBare(ctx, env.Gopls, root, wsEnv)
	if err != nil {
		return nil, err
	}
	return bareLoad{&bareSubject{c: c, root: root}}, nil
}

func (b bareLoad) ask(ctx context.Context, op Op, t *Target) (loadAnswer, error) {
	text, err := b.Do(ctx, op, t)
	return loadAnswer{Places: parseBarePlaces(text), Calls: 1}, err
}

// toolLoad is column (b) for the load rows: acp-lsp's chain in process, as
// the LSP rows' cold start runs it, with structuredContent turned on and
// the go-sdk client, which hands it over (whatever -mcp-client says: the
// load rows read the pages' offsets and notes from it).
type toolLoad struct {
	st *Stack
	cs *mcp.ClientSession
}

func startToolLoad(ctx context.Context, env *Env, root string, wsEnv []string) (loadSubject, error) {
	st, err := StartStack(ctx, lsp.Options{Env: wsEnv}, component.Config{StructuredContent: true})
	if err != nil {
		return nil, err
	}
	_, url, token, err := st.OpenSessionEntry(ctx, root)
	var cs *mcp.ClientSession
	if err == nil {
		cs, err = connectHTTP(ctx, url, token)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return &toolLoad{st: st, cs: cs}, nil
}

func (l *toolLoad) ask(ctx context.Context, op Op, t *Target) (loadAnswer, error) {
	_, args := acpLSPArgs(op, t)
	return collectPages(ctx, func(ctx context.Context, offset int) (toolPage, error) {
		a := map[string]any{"offset": offset}
		for k, v := range args {
			a[k] = v
		}
		res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: a})
		if err != nil {
			return toolPage{}, err
		}
		p := toolPage{IsError: res.IsError, Structured: res.StructuredContent}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		p.Text = b.String()
		return p, nil
	})
}

func (l *toolLoad) Close() error {
	l.cs.Close()
	return l.st.Close()
}

// count prints n things: "1 ask", "2 asks".
func count(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// fmtSec prints a cold run's duration, seconds long.
func fmtSec(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// fmtMiB prints bytes in whole MiB.
func fmtMiB(b int64) string { return fmt.Sprintf("%.0f", mib(b)) }

// median is the middle value, or the mean of the two middle ones (0 for
// none).
func median[T int | int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// loadCell is one column's runs on one question, summed up.
type loadCell struct {
	runs []LoadRun
}

func (c loadCell) each(f func(LoadRun) int64) []int64 {
	var out []int64
	for _, r := range c.runs {
		if r.Err == "" {
			out = append(out, f(r))
		}
	}
	return out
}

func (c loadCell) started() int { return len(c.each(func(LoadRun) int64 { return 0 })) }
func (c loadCell) right() int {
	return len(slices.DeleteFunc(slices.Clone(c.runs), func(r LoadRun) bool { return !r.Right }))
}
func (c loadCell) allRight() bool { return len(c.runs) > 0 && c.right() == len(c.runs) }
func (c loadCell) d() time.Duration {
	return time.Duration(median(c.each(func(r LoadRun) int64 { return int64(r.D) })))
}
func (c loadCell) asks() int64 { return median(c.each(func(r LoadRun) int64 { return int64(r.Asks) })) }
func (c loadCell) calls() int64 {
	return median(c.each(func(r LoadRun) int64 { return int64(r.Calls) }))
}
func (c loadCell) servers() int64 {
	return median(c.each(func(r LoadRun) int64 { return r.Mem.Servers }))
}
func (c loadCell) self() int64 { return median(c.each(func(r LoadRun) int64 { return r.Mem.Self })) }

// byServer is each server's peak over the runs, "gopls 410 MiB, clangd
// 60 MiB", largest first.
func (c loadCell) byServer() string {
	peak := map[string]int64{}
	for _, r := range c.runs {
		for name, b := range r.Mem.ByServer {
			peak[name] = max(peak[name], b)
		}
	}
	names := slices.SortedFunc(maps.Keys(peak), func(a, b string) int {
		return cmp.Or(cmp.Compare(peak[b], peak[a]), strings.Compare(a, b))
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %s MiB", n, fmtMiB(peak[n])))
	}
	if len(parts) == 0 {
		return "none seen"
	}
	return strings.Join(parts, ", ")
}

func (l *LoadResult) cell(oi, ci int) loadCell { return loadCell{l.Runs[oi][ci]} }

func (l *LoadResult) question(oi int) string {
	t := l.Target
	switch l.Ops[oi] {
	case OpReferences:
		return fmt.Sprintf("references of `%s` (%s:%d, %d places)", t.UseSymbol, t.DeclFile, t.DeclLine, l.Truth[oi])
	case OpSymbols:
		return fmt.Sprintf("workspace symbols for %q (%d places)", t.Query, l.Truth[oi])
	}
	return string(l.Ops[oi])
}

func (l *LoadResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### Loading a large module (issue 20)\n\n")
	p("`%s@%s`: %d .go files, and of other languages %s. ", l.Spec.Module, l.Spec.Version, l.Files, l.Stray)
	p("Median over %d cold runs per column and question, the columns' runs interleaved: each run starts a fresh gopls, and for (b) a fresh acp-lsp chain in process (as the LSP table's cold start), gopls's file cache warmed alike for both by the truth run. ", l.N)
	p("**Right** is the same places (file:line, each as often) as the bare client's answer once gopls had loaded the module, asked in the same run. ")
	p("(b) pages through the list as a model does (default page size, each page a call). ")
	p("An answer that is partial, an error, or says a server is not ready (`loadingCaveat`) is not right: the agent asks again after a model's turn (%s), and every ask counts in the time and in the asks. ", modelTurn)
	p("Server memory is the peak of the summed resident sets of every process the column started (the servers and their children), sampled every %s from /proc from the start until the servers are idle after the right answer, so what the question set off in the background counts; each server's own peak (max over the runs) follows. ", memInterval)
	p("In process is the bench process's peak above its level at the run's start: the bare client, or acp-lsp's chain with the MCP client.\n\n")
	tableHead(b, l.Columns)
	var notes []string
	note := func(ci int, row, why string) {
		notes = append(notes, fmt.Sprintf("%s, %s: %s", l.Columns[ci], row, why))
		p(" [%d]", len(notes))
	}
	for oi := range l.Ops {
		row := "cold start to the right " + l.question(oi)
		p("| %s |", row)
		for ci := range l.Columns {
			c := l.cell(oi, ci)
			if c.started() == 0 {
				p(" did not start")
				note(ci, row, c.runs[0].Err)
				p(" |")
				continue
			}
			p(" %s, %s (%s), %d/%d right", fmtSec(c.d()), count(c.asks(), "ask"), count(c.calls(), "call"), c.right(), len(c.runs))
			for _, r := range c.runs {
				if r.Why != "" {
					note(ci, row, "first answer not right: "+r.Why)
					break
				}
			}
			p(" |")
		}
		p("\n")
	}
	for oi, op := range l.Ops {
		p("| peak server memory, %s runs |", op)
		for ci := range l.Columns {
			c := l.cell(oi, ci)
			p(" %s MiB: %s |", fmtMiB(c.servers()), c.byServer())
		}
		p("\n")
	}
	for oi, op := range l.Ops {
		p("| in process, %s runs |", op)
		for ci := range l.Columns {
			p(" +%s MiB |", fmtMiB(l.cell(oi, ci).self()))
		}
		p("\n")
	}
	if len(notes) > 0 {
		p("\n")
		for i, n := range notes {
			p("%d. %s\n", i+1, strings.ReplaceAll(n, "|", "\\|"))
		}
	}
	p("\nGoals:\n\n")
	for _, g := range l.goals() {
		p("- %s\n", g)
	}
}

// goals are issue 20's: (b)'s cold start to the right answer and its
// servers' peak memory within 10 % of (a)'s.
func (l *LoadResult) goals() []string {
	colBare, colTool := slices.Index(l.Keys, "bare"), slices.Index(l.Keys, "acp-lsp")
	if colBare < 0 || colTool < 0 {
		return nil
	}
	var out []string
	for oi, op := range l.Ops {
		a, t := l.cell(oi, colBare), l.cell(oi, colTool)
		if a.started() == 0 || t.started() == 0 || !a.allRight() {
			out = append(out, fmt.Sprintf("cold start to the right %s: (b) ≤ 1.1× (a): not measurable", op))
			continue
		}
		ratio := float64(t.d()) / float64(a.d())
		g := fmt.Sprintf("cold start to the right %s: (b) ≤ 1.1× (a): %s vs %s = %.2f×", op, fmtSec(t.d()), fmtSec(a.d()), ratio)
		if !t.allRight() {
			g += fmt.Sprintf(", but (b) was right in %d of %d runs", t.right(), len(t.runs))
		}
		out = append(out, g+" — "+verdict(ratio <= 1.1 && t.allRight()))
	}
	for oi, op := range l.Ops {
		a, t := l.cell(oi, colBare), l.cell(oi, colTool)
		if a.servers() <= 0 || t.servers() <= 0 {
			out = append(out, fmt.Sprintf("peak server memory, %s runs: (b) ≤ 1.1× (a): not measurable", op))
			continue
		}
		ratio := float64(t.servers()) / float64(a.servers())
		out = append(out, fmt.Sprintf("peak server memory, %s runs: (b) ≤ 1.1× (a): %s MiB vs %s MiB = %.2f× — %s",
			op, fmtMiB(t.servers()), fmtMiB(a.servers()), ratio, verdict(ratio <= 1.1)))
	}
	return out
}
