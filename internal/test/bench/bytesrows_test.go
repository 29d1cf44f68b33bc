package bench

import (
	"strings"
	"testing"
)

// TestWindowBytes: the grep column's reads count each line within
// grepWindow of a hit once, overlapping windows merged, clipped at the
// file's ends.
func TestWindowBytes(t *testing.T) {
	lines := strings.SplitAfter(strings.Repeat("abc\n", 100), "\n")[:100] // 4 bytes a line
	for _, c := range []struct {
		name string
		hits []int
		want int
	}{
		{"one in the middle", []int{50}, 4 * (2*grepWindow + 1)},
		{"at the start", []int{1}, 4 * (grepWindow + 1)},
		{"at the end", []int{100}, 4 * (grepWindow + 1)},
		{"overlapping", []int{50, 52}, 4 * (2*grepWindow + 3)},
		{"same line twice", []int{50, 50}, 4 * (2*grepWindow + 1)},
		{"apart, unsorted", []int{90, 20}, 2 * 4 * (2*grepWindow + 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := windowBytes(lines, append([]int(nil), c.hits...)); got != c.want {
				t.Fatalf("windowBytes(%v) = %d, want %d", c.hits, got, c.want)
			}
		})
	}
}
