package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/forwardbench"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

var (
	pairedColumns = flag.String("paired.columns", "bare,acp-lsp,cclsp", "columns of BenchmarkPaired (bare, acp-lsp, cclsp, lsmcp; cclsp and lsmcp need scripts/bench.sh's install)")
	pairedClient  = flag.String("paired.mcp-client", ClientSDK, "MCP client of BenchmarkPaired's MCP columns ("+ClientSDK+" or "+ClientLean+")")
)

// BenchmarkPaired asks each warm row's question of every column in turn,
// one call each per iteration, with every column's servers alive at once
// and settled. Load that comes and goes on a shared machine then hits all
// columns alike, so the ratios hold where the sequential table's (one
// column after the other) move with the load. It reports each column's
// median (<column>-ms) and its ratio to the first column (<column>-x).
//
//	go test -run X -bench Paired -benchtime 100x ./internal/test/bench
//	go test -run X -bench Paired/symbols -benchtime 100x ./internal/test/bench -args -paired.columns bare,acp-lsp,cclsp,lsmcp
//	go test -run X -bench Paired/hover -benchtime 300x ./internal/test/bench -args -paired.columns bare,acp-lsp -paired.mcp-client lean
func BenchmarkPaired(b *testing.B) {
	ctx := context.Background()
	gopls, cache, w := benchWorkspace(b)
	env := &Env{Gopls: gopls, Base: peers.Env(), NodeModules: cache, Cache: cache, MCPClient: *pairedClient}
	var subs []Subject
	var keys []string
	var targets []*Target
	var roots []string
	for _, key := range strings.Split(*pairedColumns, ",") {
		i := slices.IndexFunc(AllColumns, func(c Column) bool { return c.Key == key })
		if i < 0 {
			b.Fatalf("unknown column %q", key)
		}
		root, err := w.Copy(filepath.Join(cache, "ws"), "paired-"+key)
		if err != nil {
			b.Fatal(err)
		}
		t, err := Locate(root, w.Spec)
		if err != nil {
			b.Fatal(err)
		}
		s, err := AllColumns[i].Start(ctx, env, root, w.Env)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		subs, keys, targets, roots = append(subs, s), append(keys, key), append(targets, t), append(roots, root)
	}
	for _, op := range warmOps {
		b.Run(strings.ReplaceAll(string(op), " ", "-"), func(b *testing.B) {
			for i, s := range subs {
				if _, err := s.Do(ctx, op, targets[i]); err != nil {
					b.Fatalf("%s: %v", keys[i], err)
				}
			}
			settle(ctx)
			ds := make([][]time.Duration, len(subs))
			b.ResetTimer()
			for b.Loop() {
				for i, s := range subs {
					start := time.Now()
					text, err := s.Do(ctx, op, targets[i])
					ds[i] = append(ds[i], time.Since(start))
					if ok, why := judge(op, targets[i], text, ""); err != nil || !ok {
						b.Fatalf("%s %s: wrong answer: %v %s", keys[i], op, err, why)
					}
				}
			}
			b.StopTimer()
			reportMedians(b, keys, ds)
		})
	}
	// Diagnostics after an edit, as the table's row: a new type error
	// written into each column's copy, then asked for at once. Every edit
	// is made on settled servers, so no column pays for the background
	// work (gopls analyses a package after publishing its type errors) of
	// the call before it.
	b.Run("diagnostics-after-edit", func(b *testing.B) {
		origs := make([][]byte, len(subs))
		for i := range subs {
			p := filepath.Join(roots[i], targets[i].EditFile)
			orig, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			origs[i] = orig
			defer os.WriteFile(p, orig, 0o644)
		}
		ds := make([][]time.Duration, len(subs))
		n := 0
		for b.Loop() {
			for i, s := range subs {
				b.StopTimer()
				settle(ctx)
				n++
				edited, token := typeErrorEdit(origs[i], n)
				if err := os.WriteFile(filepath.Join(roots[i], targets[i].EditFile), edited, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				text, err := s.Do(ctx, OpDiagnostics, targets[i])
				ds[i] = append(ds[i], time.Since(start))
				if ok, why := judge(OpDiagnostics, targets[i], text, token); err != nil || !ok {
					b.Fatalf("%s diagnostics: wrong answer: %v %s", keys[i], err, why)
				}
			}
		}
		reportMedians(b, keys, ds)
	})
}

// benchWorkspace finds gopls and fetches the bench's workspace module into
// .cache/bench, as scripts/bench.sh does, for the benchmarks that use it.
func benchWorkspace(b *testing.B) (gopls, cache string, w *Workspace) {
	b.Helper()
	gopls, err := peers.Find("gopls")
	if err != nil {
		b.Fatal(err)
	}
	cache = filepath.Join(peers.ModuleRoot(), ".cache", "bench")
	if w, err = Fetch(context.Background(), cache, DefaultSpec, peers.Env()); err != nil {
		b.Fatal(err)
	}
	return gopls, cache, w
}

// reportMedians reports each column's median in milliseconds (<name>-ms)
// and its ratio to the first column's (<name>-x); ds[i] are the times of
// names[i], sorted in place.
func reportMedians(b *testing.B, names []string, ds [][]time.Duration) {
	first := 0.0
	for i, d := range ds {
		slices.Sort(d)
		med := float64(forwardbench.Median(d).Microseconds()) / 1000
		if i == 0 {
			first = med
		}
		b.ReportMetric(med, names[i]+"-ms")
		if i > 0 && first > 0 {
			b.ReportMetric(med/first, names[i]+"-x")
		}
	}
}
