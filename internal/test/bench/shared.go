package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/serverhost"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// SharedResult holds the shared-servers rows (issue 21): the servers'
// memory of several acp-lsp processes with and without the server host,
// the wait for a first question with and without prewarm, and a warm
// call's cost through the host.
type SharedResult struct {
	// Procs acp-lsp processes with Sessions sessions each, on one workspace.
	Procs, Sessions int
	// OneRSS is the servers' resident memory of one session alone;
	// SharedRSS and OwnRSS that of every process together, with
	// local.shared and without; SharedServers and OwnServers count the
	// server processes.
	OneRSS, SharedRSS, OwnRSS int64
	SharedServers, OwnServers int
	// LoadModule is the large module of the prewarm rows.
	LoadModule string
	LoadFiles  int
	// Delay is how long after session/new the first question comes.
	Delay time.Duration
	// Load is the server's own load: session/new to the first right
	// answer, asked at once; WaitCold and WaitWarm are the first
	// question's wait (from the question to its right answer) without and
	// with prewarm. Right is false when an answer was not.
	Load, WaitCold, WaitWarm time.Duration
	Right                    bool
	// Calls warm hovers were timed, in process and through the host.
	Calls                  int
	InProcess, ThroughHost time.Duration
	// ToolOwn and ToolShared are a warm hover as the agent asks it (the
	// lsp tool over MCP, through the whole chain) with local.shared off
	// and on; ToolErr says why they were not measured.
	ToolOwn, ToolShared time.Duration
	ToolErr             string
	// MCPClient is the client that made the tool calls.
	MCPClient string
}

// sharedRows measures the shared-servers rows on the bench workspace
// (memory, warm call) and the load module (prewarm).
func sharedRows(ctx context.Context, env *Env, w *Workspace, quick bool, logf func(string, ...any)) (*SharedResult, error) {
	if !serverhost.Supported {
		return nil, fmt.Errorf("the server host is Linux only")
	}
	bin := filepath.Join(env.Cache, "acp-lsp")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/acp-lsp")
	build.Dir = peers.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build acp-lsp: %w: %s", err, out)
	}
	// A private host folder: the bench's host is nobody else's, and is
	// stopped at the end.
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	hcfg := serverhost.Config{Executable: bin, Dir: dir, Idle: -1}
	defer serverhost.StopHost(context.Background(), hcfg)
	res := &SharedResult{Procs: 3, Sessions: 4, Delay: 3 * time.Second, Calls: 300}
	if quick {
		res.Calls = 50
	}
	root, err := w.Copy(filepath.Join(env.Cache, "ws"), "shared")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, w.Spec.HoverFile)
	opts := lsp.Options{Roots: []string{root}, Env: w.Env}

	logf("shared: memory, %d processes x %d sessions", res.Procs, res.Sessions)
	one, err := lsp.NewManager(opts)
	if err != nil {
		return nil, err
	}
	res.OneRSS, _, err = serversRSS(ctx, []local{one}, file, 1)
	one.Close(ctx)
	if err != nil {
		return nil, err
	}
	var shared, own []local
	for range res.Procs {
		c, err := serverhost.NewClient(opts, hcfg)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		shared = append(shared, c)
		m, err := lsp.NewManager(opts)
		if err != nil {
			return nil, err
		}
		defer m.Close(ctx)
		own = append(own, m)
	}
	if res.SharedRSS, res.SharedServers, err = serversRSS(ctx, shared, file, res.Sessions); err != nil {
		return nil, err
	}
	if res.OwnRSS, res.OwnServers, err = serversRSS(ctx, own, file, res.Sessions); err != nil {
		return nil, err
	}

	logf("shared: warm hover, %d calls in process and through the host", res.Calls)
	line, char, err := find(root, w.Spec.HoverFile, w.Spec.HoverLine, w.Spec.HoverSymbol)
	if err != nil {
		return nil, err
	}
	params := json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, edit.URIFromPath(file), line-1, char)) // find's line is 1-based
	// Side by side, call for call, so load that comes and goes hits both.
	var in, host []time.Duration
	for i := range res.Calls + 10 {
		for j, l := range []local{own[0], shared[0]} {
			t0 := time.Now()
			raw, err := l.Request(ctx, file, "textDocument/hover", params)
			d := time.Since(t0)
			if err != nil || !strings.Contains(string(raw), w.Spec.HoverSymbol) {
				return nil, fmt.Errorf("warm hover: %s, %v", raw, err)
			}
			if i < 10 {
				continue // warming up
			}
			if j == 0 {
				in = append(in, d)
			} else {
				host = append(host, d)
			}
		}
	}
	res.InProcess, res.ThroughHost = median(in), median(host)

	logf("shared: warm lsp tool hover, %d calls with local.shared off and on", res.Calls)
	res.MCPClient = env.MCPClient
	if res.ToolOwn, res.ToolShared, err = toolHovers(ctx, env, w, root, hcfg, res.Calls); err != nil {
		// The other rows stand; the report says why this one is missing.
		res.ToolErr = firstLineOf(err.Error())
		logf("shared: warm lsp tool hover: %v", err)
	}

	logf("shared: prewarm: fetching %s@%s", LoadSpec.Module, LoadSpec.Version)
	lw, err := Fetch(ctx, env.Cache, LoadSpec, env.Base)
	if err != nil {
		return nil, err
	}
	res.LoadModule, res.LoadFiles = LoadSpec.Module+"@"+LoadSpec.Version, lw.Files
	lroot, err := lw.Copy(filepath.Join(env.Cache, "ws"), "prewarm")
	if err != nil {
		return nil, err
	}
	// The right answer names an error the run writes into the module.
	broken := filepath.Join(lroot, filepath.Dir(LoadSpec.DeclFile), "zz_bench_prewarm.go")
	pkg := filepath.Base(filepath.Dir(LoadSpec.DeclFile))
	if err := os.WriteFile(broken, []byte("package "+pkg+"\n\nvar _ int = \"prewarm\"\n"), 0o644); err != nil {
		return nil, err
	}
	lopts := lsp.Options{Roots: []string{lroot}, Env: lw.Env, Timeouts: lsp.Timeouts{Diagnostics: lsp.Duration(5 * time.Minute), Loading: lsp.Duration(5 * time.Minute)}}
	first := func(delay time.Duration, prewarm bool) (time.Duration, bool, error) {
		m, err := lsp.NewManager(lopts)
		if err != nil {
			return 0, false, err
		}
		defer m.Close(ctx)
		if prewarm {
			go m.Prewarm(ctx, broken)
		}
		time.Sleep(delay) // the model thinking: the scenario, not a wait for a state
		t0 := time.Now()
		rep, err := m.Diagnostics(ctx, []string{broken}, lsp.DiagnosticsOptions{})
		d := time.Since(t0)
		if err != nil {
			return d, false, err
		}
		f := rep.Files[0]
		return d, f.Verdict == lsp.Fresh && strings.Contains(string(f.Diagnostics), "cannot use"), nil
	}
	logf("shared: prewarm: the server's own load")
	load, ok1, err := first(0, false)
	if err != nil {
		return nil, err
	}
	logf("shared: prewarm: first question %s after session/new, without prewarm", res.Delay)
	cold, ok2, err := first(res.Delay, false)
	if err != nil {
		return nil, err
	}
	logf("shared: prewarm: first question %s after session/new, with prewarm", res.Delay)
	warm, ok3, err := first(res.Delay, true)
	if err != nil {
		return nil, err
	}
	res.Load, res.WaitCold, res.WaitWarm, res.Right = load, cold, warm, ok1 && ok2 && ok3
	return res, nil
}

// toolHovers returns the median of calls warm hovers as the agent asks
// them (the lsp tool, MCP over HTTP into the component, the chain, the
// adapter's servers), with the servers in process and through the host
// of hcfg, asked side by side, call for call.
func toolHovers(ctx context.Context, env *Env, w *Workspace, root string, hcfg serverhost.Config, calls int) (own, shared time.Duration, err error) {
	t, err := Locate(root, w.Spec)
	if err != nil {
		return 0, 0, err
	}
	var subjects []Subject
	for _, host := range []bool{false, true} {
		ac := adapter.Config{LSP: lsp.Options{Env: w.Env}}
		if host {
			ac.Host = func(o lsp.Options) (adapter.LocalServers, error) { return serverhost.NewClient(o, hcfg) }
		}
		s, err := startACPLSP(ctx, env, root, ac)
		if err != nil {
			return 0, 0, err
		}
		defer s.Close()
		subjects = append(subjects, s)
	}
	var took [2][]time.Duration
	for i := range calls + 10 {
		for j, s := range subjects {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			t0 := time.Now()
			text, err := s.Do(cctx, OpHover, t)
			d := time.Since(t0)
			cancel()
			if ok, why := judge(OpHover, t, text, ""); err != nil || !ok {
				return 0, 0, fmt.Errorf("lsp tool hover (shared %v): %v %s", j == 1, err, why)
			}
			if i >= 10 { // the first calls warm up
				took[j] = append(took[j], d)
			}
		}
	}
	return median(took[0]), median(took[1]), nil
}

// local is what the rows ask of an acp-lsp process's servers.
type local interface {
	Request(ctx context.Context, path, method string, params json.RawMessage) (json.RawMessage, error)
	Diagnostics(ctx context.Context, paths []string, opts lsp.DiagnosticsOptions) (*lsp.DiagnosticsReport, error)
	Servers() []lsp.ServerStatus
}

// serversRSS asks every process's sessions for the diagnostics of file
// (each session once) and returns the resident memory of the distinct
// server processes behind them and their number.
func serversRSS(ctx context.Context, procs []local, file string, sessions int) (int64, int, error) {
	var pids []int
	for _, p := range procs {
		for range sessions {
			rep, err := p.Diagnostics(ctx, []string{file}, lsp.DiagnosticsOptions{})
			if err != nil {
				return 0, 0, err
			}
			if v := rep.Files[0].Verdict; v != lsp.Fresh {
				return 0, 0, fmt.Errorf("diagnostics of %s: %s (%s)", file, v, rep.Files[0].Detail)
			}
		}
		for _, st := range p.Servers() {
			if st.PID > 0 && !slices.Contains(pids, st.PID) {
				pids = append(pids, st.PID)
			}
		}
	}
	var rss int64
	for _, pid := range pids {
		rss += procfs.RSS(pid)
	}
	return rss, len(pids), nil
}

// markdown writes the shared-servers rows.
func (s *SharedResult) markdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### Shared language servers (issue 21)\n\n")
	p("`local.shared`: one server host per user, one server per root, server configuration and environment. ")
	p("Memory: %d acp-lsp processes x %d sessions, each session asking the diagnostics of one file of the bench workspace; resident memory of the distinct server processes behind them (`internal/test/bench/shared.go`).\n\n", s.Procs, s.Sessions)
	p("| | servers | servers' RSS (MiB) | x one session's |\n|---|---:|---:|---:|\n")
	p("| one session | 1 | %s | 1.00x |\n", fmtMiB(s.OneRSS))
	p("| %dx%d, shared | %d | %s | %.2fx |\n", s.Procs, s.Sessions, s.SharedServers, fmtMiB(s.SharedRSS), ratio(s.SharedRSS, s.OneRSS))
	p("| %dx%d, not shared | %d | %s | %.2fx |\n", s.Procs, s.Sessions, s.OwnServers, fmtMiB(s.OwnRSS), ratio(s.OwnRSS, s.OneRSS))
	p("\nPrewarm on `%s` (%d .go files): the first question (the diagnostics of a file with an error the run wrote) comes %s after `session/new`; its wait is from the question to the right answer.\n\n", s.LoadModule, s.LoadFiles, s.Delay)
	p("| | time | x the server's load |\n|---|---:|---:|\n")
	p("| the server's own load (asked at once, no prewarm) | %s | 1.00x |\n", fmtSec(s.Load))
	p("| first question's wait, no prewarm | %s | %.2fx |\n", fmtSec(s.WaitCold), ratio(int64(s.WaitCold), int64(s.Load)))
	p("| first question's wait, prewarm | %s | %.2fx |\n", fmtSec(s.WaitWarm), ratio(int64(s.WaitWarm), int64(s.Load)))
	if !s.Right {
		p("\n**A prewarm answer was not right (see the log).**\n")
	}
	p("\nWarm hover, median of %d, in process and through the host, call for call:\n\n", s.Calls)
	p("| | median | x in process |\n|---|---:|---:|\n")
	p("| in process (`lsp.Manager`) | %d µs | 1.00x |\n", s.InProcess.Microseconds())
	p("| through the host (`serverhost.Client`) | %d µs | %.2fx |\n", s.ThroughHost.Microseconds(), ratio(int64(s.ThroughHost), int64(s.InProcess)))
	p("\nWarm hover as the agent asks it, median of %d: the `lsp` tool over MCP (%s client, HTTP) through the whole chain, `local.shared` off and on, call for call:\n\n", s.Calls, cmp.Or(s.MCPClient, ClientSDK))
	if s.ToolErr != "" {
		p("**Not measured: %s**\n", s.ToolErr)
		return
	}
	p("| | median | x shared off |\n|---|---:|---:|\n")
	p("| `local.shared = false` | %d µs | 1.00x |\n", s.ToolOwn.Microseconds())
	p("| `local.shared = true` | %d µs | %.2fx |\n", s.ToolShared.Microseconds(), ratio(int64(s.ToolShared), int64(s.ToolOwn)))
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
