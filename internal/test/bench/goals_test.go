package bench

import (
	"strings"
	"testing"
	"time"
)

// TestGoalsWarmRatioNeedsRightAnswers: the warm rows' goal, (b) ≤ 1.3×
// (a), is not met by fast answers that are wrong (a tool error comes back
// quickly), as the diagnostics goal already requires (b) to be right.
func TestGoalsWarmRatioNeedsRightAnswers(t *testing.T) {
	cell := func(ms float64, right bool) *Cell {
		return &Cell{Samples: []Sample{{D: time.Duration(ms * float64(time.Millisecond)), Right: right, Why: "wrong"}}}
	}
	r := &Report{LSP: &LSPResult{Columns: []string{"(a) bare", "(b) acp-lsp"}, Keys: []string{"bare", "acp-lsp"}}}
	for range LSPRows {
		r.LSP.Cells = append(r.LSP.Cells, []*Cell{cell(1, true), cell(1.1, true)})
	}
	r.LSP.Cells[1][1] = cell(0.5, false) // hover: fast and wrong
	var hover string
	for _, g := range r.goals() {
		if strings.HasPrefix(g, "hover (warm): (b) ≤ 1.3× (a)") {
			hover = g
		}
	}
	if !strings.HasSuffix(hover, "**not met**") {
		t.Errorf("hover goal with (b) 0/1 right: %q, want not met", hover)
	}
	for _, g := range r.goals() {
		if strings.HasPrefix(g, "definition (warm): (b) ≤ 1.3× (a)") && !strings.HasSuffix(g, "**met**") {
			t.Errorf("definition goal with (b) right at 1.1×: %q, want met", g)
		}
	}
}
