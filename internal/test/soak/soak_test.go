// Package soak holds acp-lsp's reliability suite: a soak test of the whole
// chain with real gopls (short in CI, -soak=10m for the long run) and fault
// scenarios not covered by the packages' own tests (see docs/testing.md).
package soak

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/bench"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// soakRenames adds a rename applied and reverted to worker 0's rounds (on
// by default; -soak.renames=false leaves edits to plain file writes).
var soakRenames = flag.Bool("soak.renames", true, "also apply and revert a rename every other round")

var soakFor = flag.Duration("soak", 30*time.Second, "how long TestSoak runs (CI: 30s; the long run: go test -timeout 20m ./internal/test/soak -soak=10m)")

func TestMain(m *testing.M) {
	peerrun.MaybeServeMCP()
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if binary.dir != "" {
			os.RemoveAll(binary.dir)
		}
		os.Exit(code)
	}))
}

// workers run side by side, each in its own ACP sessions, with its own
// files to edit and its own symbol to rename, so every answer has one
// right content.
const workers = 2

// soakWorkspace writes a small Go module: main uses lib; lib has Add,
// Counter, one HelperN and one editN.go per worker, and filler files so
// gopls has a package of some size to type-check.
func soakWorkspace(t *testing.T) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/soak\n\ngo 1.22\n",
		"main.go": `package main

import (
	"fmt"

	"example.com/soak/lib"
)

func main() {
	c := &lib.Counter{}
	c.Inc()
	fmt.Println(lib.Add(1, 2), c.N)
	fmt.Println(lib.Helper0(1), lib.Helper1(2))
}
`,
		"lib/lib.go": `// Package lib is the soak workspace's library.
package lib

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Counter counts.
type Counter struct{ N int }

// Inc adds one.
func (c *Counter) Inc() { c.N = Add(c.N, 1) }
`,
	}
	for w := 0; w < workers; w++ {
		files[fmt.Sprintf("lib/w%d.go", w)] = fmt.Sprintf("package lib\n\n// Helper%d doubles x.\nfunc Helper%d(x int) int { return x * 2 }\n", w, w)
		files[fmt.Sprintf("lib/edit%d.go", w)] = "package lib\n"
	}
	for i := 0; i < 30; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package lib\n\n")
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "// Filler%02d_%d is filler.\nfunc Filler%02d_%d(s []int) (n int) {\n\tfor _, v := range s {\n\t\tn += Add(v, %d)\n\t}\n\treturn n\n}\n\n", i, j, i, j, j)
		}
		files[fmt.Sprintf("lib/filler%02d.go", i)] = b.String()
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// check is one tool call and what its answer must contain (and must not).
type check struct {
	args    map[string]any
	want    []string
	notWant []string
}

func call(ctx context.Context, cs *mcp.ClientSession, c check) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: c.args})
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%v: %w", c.args, err)
	}
	var b strings.Builder
	for _, x := range res.Content {
		if tc, ok := x.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	text := b.String()
	if res.IsError {
		return d, fmt.Errorf("%v: tool error: %s", c.args, text)
	}
	for _, w := range c.want {
		if !strings.Contains(text, w) {
			return d, fmt.Errorf("%v: answer lacks %q:\n%s", c.args, w, text)
		}
	}
	for _, w := range c.notWant {
		if strings.Contains(text, w) {
			return d, fmt.Errorf("%v: answer still has %q:\n%s", c.args, w, text)
		}
	}
	return d, nil
}

// iteration is one session's life for worker w: open, mixed questions,
// an edit and its diagnostics, the edit undone, sometimes a rename applied
// and reverted, close.
func iteration(ctx context.Context, st *bench.Stack, root string, w, n int) ([]time.Duration, error) {
	id, cs, err := st.OpenSession(ctx, root)
	if err != nil {
		return nil, err
	}
	defer func() {
		cs.Close()
		st.CloseSession(ctx, id)
	}()
	helper := fmt.Sprintf("Helper%d", w)
	editFile := fmt.Sprintf("lib/edit%d.go", w)
	token := fmt.Sprintf("soak-%d-%d", w, n)
	checks := []check{
		{args: map[string]any{"action": "hover", "file": "lib/lib.go", "line": 5, "symbol": "Add"}, want: []string{"func Add(a int, b int) int"}},
		{args: map[string]any{"action": "definition", "file": "main.go", "line": 12, "symbol": "Add"}, want: []string{"lib/lib.go:5:6"}},
		{args: map[string]any{"action": "references", "file": "lib/lib.go", "line": 5, "symbol": "Add", "limit": 500}, want: []string{"main.go:12:", "lib/lib.go:11:"}},
		{args: map[string]any{"action": "symbols", "query": "Counter"}, want: []string{"lib/lib.go:8:6"}},
		{args: map[string]any{"action": "symbols", "file": "lib/lib.go"}, want: []string{"function Add", "method (*Counter).Inc"}},
		{args: map[string]any{"action": "diagnostics", "file": editFile}, notWant: []string{"error:"}, want: []string{"gopls: fresh"}},
	}
	var ds []time.Duration
	do := func(c check) error {
		d, err := call(ctx, cs, c)
		ds = append(ds, d)
		return err
	}
	for _, c := range checks {
		if err := do(c); err != nil {
			return ds, err
		}
	}
	// An agent's edit: a new type error, seen fresh; then undone, gone.
	path := filepath.Join(root, editFile)
	if err := os.WriteFile(path, []byte(fmt.Sprintf("package lib\n\nvar soak%d int = %q\n", w, token)), 0o644); err != nil {
		return ds, err
	}
	if err := do(check{args: map[string]any{"action": "diagnostics", "file": editFile}, want: []string{token, "gopls: fresh"}}); err != nil {
		return ds, err
	}
	if err := os.WriteFile(path, []byte("package lib\n"), 0o644); err != nil {
		return ds, err
	}
	if err := do(check{args: map[string]any{"action": "diagnostics", "file": editFile}, notWant: []string{token}, want: []string{"gopls: fresh"}}); err != nil {
		return ds, err
	}
	if *soakRenames && w == 0 && n%2 == 0 {
		// A rename applied through the editor's permission, then reverted.
		// Only worker 0 renames, so each worker's checks know what the
		// files hold (concurrent renames: TestFaultConcurrentRenames).
		renamed := helper + "x"
		if err := do(check{args: map[string]any{"action": "rename", "file": fmt.Sprintf("lib/w%d.go", w), "line": 4, "symbol": helper, "new_name": renamed, "apply": true}, want: []string{"applied"}}); err != nil {
			return ds, err
		}
		if b, _ := os.ReadFile(filepath.Join(root, "main.go")); !strings.Contains(string(b), "lib."+renamed+"(") {
			return ds, fmt.Errorf("rename %s → %s not applied to main.go:\n%s", helper, renamed, b)
		}
		// As an agent checks its edit: the renamed uses compile.
		if err := do(check{args: map[string]any{"action": "diagnostics", "file": "main.go"}, notWant: []string{"error:"}, want: []string{"gopls: fresh"}}); err != nil {
			return ds, err
		}
		if err := do(check{args: map[string]any{"action": "rename", "file": fmt.Sprintf("lib/w%d.go", w), "line": 4, "symbol": renamed, "new_name": helper, "apply": true}, want: []string{"applied"}}); err != nil {
			return ds, err
		}
		if b, _ := os.ReadFile(filepath.Join(root, "main.go")); !strings.Contains(string(b), "lib."+helper+"(") {
			return ds, fmt.Errorf("rename %s → %s not reverted in main.go:\n%s", renamed, helper, b)
		}
		if err := do(check{args: map[string]any{"action": "diagnostics", "file": "main.go"}, notWant: []string{"error:"}, want: []string{"gopls: fresh"}}); err != nil {
			return ds, err
		}
	}
	return ds, nil
}

// usage is what the soak watches for growth.
type usage struct {
	goroutines, fds int
	heap            uint64
	goplsRSS        int64
}

func measure(st *bench.Stack) usage {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	ents, _ := os.ReadDir("/proc/self/fd")
	u := usage{goroutines: runtime.NumGoroutine(), fds: len(ents), heap: m.HeapAlloc}
	for _, s := range st.Adapter.Manager().Servers() {
		u.goplsRSS += s.RSSBytes
	}
	return u
}

// TestSoak runs mixed tool calls and edits through the whole chain
// (editor ⇄ adapter ⇄ component ⇄ agent in process, MCP over HTTP, real
// gopls) for -soak (30s by default), two workers at a time, each in a
// fresh ACP session per round. Every answer is checked. After a warm-up it
// samples goroutines, open file descriptors and the live heap between
// rounds, and fails if the last sample grew beyond a margin over the
// first: leaks show as steady growth, which 30 s already exposes for
// per-session leaks (every round opens and closes sessions).
func TestSoak(t *testing.T) {
	peers.Require(t, "gopls")
	root := soakWorkspace(t)
	ctx := context.Background()
	allow := func(context.Context, string, string, string) (bool, error) { return true, nil }
	st, err := bench.StartStack(ctx, lsp.Options{Env: peers.Env()}, component.Config{AskPermission: allow, DiagnosticsWait: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(*soakFor)
	warm := time.Now().Add(min(*soakFor/5, 30*time.Second))
	var (
		base, last, peak usage
		haveBase         bool
		lat              []time.Duration
		rounds, calls    int
	)
	start := time.Now()
	for round := 0; time.Now().Before(deadline) || round < 3; round++ {
		var wg sync.WaitGroup
		errs := make([]error, workers)
		durs := make([][]time.Duration, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
				defer cancel()
				durs[w], errs[w] = iteration(cctx, st, root, w, round)
			}()
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d, worker %d: %v", round, w, err)
			}
			calls += len(durs[w])
			if haveBase {
				lat = append(lat, durs[w]...)
			}
		}
		rounds++
		u := measure(st)
		if !haveBase && round >= 2 && time.Now().After(warm) {
			base, peak, haveBase = u, u, true
		}
		if haveBase {
			last = u
			peak.goroutines, peak.fds = max(peak.goroutines, u.goroutines), max(peak.fds, u.fds)
			peak.heap, peak.goplsRSS = max(peak.heap, u.heap), max(peak.goplsRSS, u.goplsRSS)
		}
	}
	if !haveBase {
		base, peak = measure(st), measure(st)
		last = base
	}
	slices.Sort(lat)
	q := func(f float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(f*float64(len(lat)-1))]
	}
	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	summary := fmt.Sprintf("soak %s: %d rounds × %d workers, %d tool calls (all answers right), call p50 %s p99 %s; after warm-up → end (peak): goroutines %d → %d (%d), fds %d → %d (%d), Go heap %.1f → %.1f MiB (%.1f), gopls RSS %.0f → %.0f MiB (%.0f)",
		time.Since(start).Round(time.Second), rounds, workers, calls, q(0.5).Round(100*time.Microsecond), q(0.99).Round(100*time.Microsecond),
		base.goroutines, last.goroutines, peak.goroutines, base.fds, last.fds, peak.fds,
		mib(base.heap), mib(last.heap), mib(peak.heap), mib(uint64(base.goplsRSS)), mib(uint64(last.goplsRSS)), mib(uint64(peak.goplsRSS)))
	t.Log(summary)
	if p := os.Getenv("ACP_LSP_SOAK_REPORT"); p != "" {
		os.WriteFile(p, []byte(summary+"\n"), 0o644)
	}
	// Margins: a few goroutines and descriptors of connections being torn
	// down at the moment of the sample; the heap may move by GC noise and
	// caches reaching their steady size.
	if last.goroutines > base.goroutines+10 {
		t.Errorf("goroutines grew from %d to %d", base.goroutines, last.goroutines)
	}
	if last.fds > base.fds+10 {
		t.Errorf("open file descriptors grew from %d to %d", base.fds, last.fds)
	}
	if limit := base.heap + max(base.heap/4, 8<<20); last.heap > limit {
		t.Errorf("heap grew from %.1f MiB to %.1f MiB (limit %.1f)", mib(base.heap), mib(last.heap), mib(limit))
	}
}
