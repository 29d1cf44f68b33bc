package forwardbench

import (
	"testing"
	"time"
)

// TestPercentile: the round trips' p50 and p99 are nearest ranks (the p50
// of an even count the mean of the two middle ones): of 100 latencies
// 1..100 µs the p99 is the 99th, not the largest.
func TestPercentile(t *testing.T) {
	lat := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(i+1) * time.Microsecond
		}
		return d
	}
	us := time.Microsecond
	for _, tc := range []struct {
		n    int
		q    float64
		want time.Duration
	}{
		{100, 0.99, 99 * us},
		{20000, 0.99, 19800 * us},
		{1000, 0.99, 990 * us},
		{1, 0.99, 1 * us},
		{100, 0.5, 50*us + 500},
		{20000, 0.5, 10000*us + 500},
		{101, 0.5, 51 * us},
	} {
		if got := percentile(lat(tc.n), tc.q); got != tc.want {
			t.Errorf("percentile(1..%d µs, %v) = %v, want %v", tc.n, tc.q, got, tc.want)
		}
	}
}

// TestMedianOfRunsEven: with an even -repeat the figure is the mean of the
// two middle runs, not the upper one.
func TestMedianOfRunsEven(t *testing.T) {
	rs := []Result{{P50: 100, MsgsPerSec: 1000}, {P50: 300, MsgsPerSec: 3000}}
	m := median(rs)
	if m.P50 != 200 || m.MsgsPerSec != 2000 || m.Runs != 2 {
		t.Errorf("median of two runs: p50 %v, %v msg/s, %d runs; want 200ns, 2000, 2", m.P50, m.MsgsPerSec, m.Runs)
	}
}
