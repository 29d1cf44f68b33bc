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
		got := NearestRank(lat(tc.n), tc.q)
		if tc.q == 0.5 {
			got = Median(lat(tc.n))
		}
		if got != tc.want {
			t.Errorf("quantile %v of 1..%d µs = %v, want %v", tc.q, tc.n, got, tc.want)
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

// TestMedianEven: BenchmarkPaired's and the table's medians are the mean
// of the two middle samples of an even count.
func TestMedianEven(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		ds   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{ms}, ms},
		{[]time.Duration{ms, 3 * ms}, 2 * ms},
		{[]time.Duration{ms, 2 * ms, 4 * ms, 9 * ms}, 3 * ms},
		{[]time.Duration{ms, 2 * ms, 9 * ms}, 2 * ms},
	} {
		if got := Median(tc.ds); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.ds, got, tc.want)
		}
	}
	if got := NearestRank(nil, 0.99); got != 0 {
		t.Errorf("NearestRank(nil) = %v, want 0", got)
	}
}
