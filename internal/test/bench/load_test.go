package bench

import (
	"strings"
	"testing"
	"time"
)

// loadResult is a load table of three runs per cell: each column's runs
// at the times and server memory given, right unless wrong says which.
func loadResult(bare, tool [2][3]time.Duration, bareMem, toolMem int64, wrong map[[2]int]string) *LoadResult {
	l := &LoadResult{Spec: LoadSpec, Files: 1249, Stray: "7 .js (typescript-language-server)", N: 3,
		Target: &Target{DeclFile: "go/analysis/analysis.go", DeclLine: 17, UseSymbol: "Analyzer", Query: "Unparen"},
		Ops:    loadOps, Truth: []int{267, 76}, Columns: []string{"(a) bare", "(b) acp-lsp"}, Keys: []string{"bare", "acp-lsp"}}
	for oi := range loadOps {
		var cols [][]LoadRun
		for ci, ds := range [][3]time.Duration{bare[oi], tool[oi]} {
			var runs []LoadRun
			for ri, d := range ds {
				r := LoadRun{D: d, Right: true, Asks: 1, Calls: 1 + 5*ci}
				r.Mem = MemPeak{Servers: bareMem, ByServer: map[string]int64{"gopls": bareMem}}
				if ci == 1 {
					r.Mem = MemPeak{Servers: toolMem, ByServer: map[string]int64{"gopls": bareMem, "clangd": toolMem - bareMem}}
				}
				if why, ok := wrong[[2]int{oi, ci}]; ok && ri == 0 {
					r.Right, r.Why, r.Asks = false, why, 40
				}
				runs = append(runs, r)
			}
			cols = append(cols, runs)
		}
		l.Runs = append(l.Runs, cols)
	}
	return l
}

func TestLoadGoals(t *testing.T) {
	s := time.Second
	same := [2][3]time.Duration{{2 * s, 1 * s, 3 * s}, {2 * s, 2 * s, 2 * s}}
	for _, c := range []struct {
		name       string
		tool       [2][3]time.Duration
		toolMem    int64
		wrong      map[[2]int]string
		want, lack []string
	}{
		{"as fast, as small", same, 100 << 20, nil,
			[]string{"references: (b) ≤ 1.1× (a): 2.00 s vs 2.00 s = 1.00× — **met**", "workspace symbols: (b) ≤ 1.1× (a): 2.00 s vs 2.00 s = 1.00× — **met**",
				"peak server memory, references runs: (b) ≤ 1.1× (a): 100 MiB vs 100 MiB = 1.00× — **met**"},
			[]string{"not met"}},
		{"slower by the median", [2][3]time.Duration{{3 * s, 3 * s, 1 * s}, {2 * s, 2 * s, 2 * s}}, 100 << 20, nil,
			[]string{"references: (b) ≤ 1.1× (a): 3.00 s vs 2.00 s = 1.50× — **not met**", "symbols: (b) ≤ 1.1× (a): 2.00 s vs 2.00 s = 1.00× — **met**"}, nil},
		{"extra servers", same, 300 << 20, nil,
			[]string{"peak server memory, workspace symbols runs: (b) ≤ 1.1× (a): 300 MiB vs 100 MiB = 3.00× — **not met**", "300 MiB: clangd 200 MiB, gopls 100 MiB"}, nil},
		// A run never right counts against (b) however fast the median.
		{"not right once", same, 100 << 20, map[[2]int]string{{0, 1}: "caveat: gopls is indexing"},
			[]string{"= 1.00×, but (b) was right in 2 of 3 runs — **not met**", "2/3 right [1]", "1. (b) acp-lsp, cold start to the right references of `Analyzer` (go/analysis/analysis.go:17, 267 places): first answer not right: caveat: gopls is indexing"}, nil},
		// Without a right bare answer there is nothing to hold (b) to.
		{"bare never right", same, 100 << 20, map[[2]int]string{{1, 0}: "3 of 76 missing"},
			[]string{"cold start to the right workspace symbols: (b) ≤ 1.1× (a): not measurable"}, nil},
	} {
		var b strings.Builder
		loadResult(same, c.tool, 100<<20, c.toolMem, c.wrong).markdown(&b)
		doc := b.String()
		for _, w := range c.want {
			if !strings.Contains(doc, w) {
				t.Errorf("%s: report lacks %q:\n%s", c.name, w, doc)
			}
		}
		for _, w := range c.lack {
			if strings.Contains(doc, w) {
				t.Errorf("%s: report has %q:\n%s", c.name, w, doc)
			}
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []int64
		want int64
	}{{nil, 0}, {[]int64{5}, 5}, {[]int64{9, 1, 5}, 5}, {[]int64{4, 1, 3, 2}, 2}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %d, want %d", c.xs, got, c.want)
		}
	}
}
