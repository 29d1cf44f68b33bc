package bench

import (
	"testing"
	"time"
)

// TestCellQuantileEvenAndNearestRank: the median of an even number of
// samples is the mean of the two middle ones, and Quantile is the nearest
// rank (the smallest sample with at least q of the samples at or below
// it), as its comment says: with 60 samples (the scale rows' first row)
// the p99 is the largest, with 100 it is the 99th.
func TestCellQuantileEvenAndNearestRank(t *testing.T) {
	cell := func(n int) *Cell {
		c := &Cell{}
		for i := n; i >= 1; i-- { // unsorted on purpose
			c.Samples = append(c.Samples, Sample{D: time.Duration(i) * time.Millisecond})
		}
		return c
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		n    int
		q    float64
		want time.Duration
	}{
		{2, 0.5, 1500 * time.Microsecond},
		{4, 0.5, 2500 * time.Microsecond},
		{60, 0.5, 30500 * time.Microsecond},
		{200, 0.5, 100500 * time.Microsecond},
		{15, 0.5, 8 * ms},
		{3, 0.5, 2 * ms},
		{15, 0.9, 14 * ms},
		{3, 0.9, 3 * ms},
		{60, 0.99, 60 * ms},
		{100, 0.99, 99 * ms},
		{200, 0.99, 198 * ms},
		{10, 0.9, 9 * ms},
		{5, 0, 1 * ms},
		{5, 1, 5 * ms},
	} {
		c := cell(tc.n)
		got := c.Quantile(tc.q)
		if tc.q == 0.5 {
			got = c.Median()
		}
		if got != tc.want {
			t.Errorf("n=%d q=%v: got %v, want %v", tc.n, tc.q, got, tc.want)
		}
	}
}

// TestJudgeDiagnosticsHoldsServersErrors: a right diagnostics answer has
// the edit's token and, when the server's own errors are known
// (DiagWant), every one of them.
func TestJudgeDiagnosticsHoldsServersErrors(t *testing.T) {
	tg := &Target{DiagWant: []string{`"benchEdit1" is not defined`, `Import "x" could not be resolved`}}
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"both errors", `a.py:3 error: "benchEdit1" is not defined` + "\n" + `a.py:1 error: Import "x" could not be resolved`, true},
		{"only the edit's", `a.py:3 error: "benchEdit1" is not defined`, false},
		{"stale", `a.py:1 error: Import "x" could not be resolved`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, why := judge(OpDiagnostics, tg, c.text, "benchEdit1"); got != c.want {
				t.Fatalf("judge = %v (%s), want %v", got, why, c.want)
			}
		})
	}
}
