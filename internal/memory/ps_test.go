package memory

import (
	"maps"
	"testing"
)

// TestParsePS reads ps's "pid rss" lines (macOS' format: right-aligned,
// KiB) and skips what is not one.
func TestParsePS(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want map[int]int64
	}{
		{"none", "", map[int]int64{}},
		{"two", "  501 15724\n24201  4072\n", map[int]int64{501: 15724 << 10, 24201: 4072 << 10}},
		{"no final newline", "7 1", map[int]int64{7: 1024}},
		{"zero", "7 0\n", map[int]int64{7: 0}},
		{"a header", "  PID    RSS\n  7 2\n", map[int]int64{7: 2048}},
		{"tabs and CRLF", "7\t3\r\n", map[int]int64{7: 3072}},
		{"three fields", "7 2 x\n8 1\n", map[int]int64{8: 1024}},
		{"negative rss", "7 -2\n", map[int]int64{}},
		{"pid 0", "0 2\n", map[int]int64{}},
		{"overflow", "7 9007199254740993\n8 99999999999999999999\n", map[int]int64{}},
		{"largest", "7 9007199254740991\n", map[int]int64{7: 9007199254740991 << 10}},
		{"units", "7 12M\n", map[int]int64{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := parsePS([]byte(tt.in)); !maps.Equal(got, tt.want) {
				t.Errorf("parsePS(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParsePS(f *testing.F) {
	f.Add([]byte("  501 15724\n24201  4072\n"))
	f.Add([]byte("  PID    RSS\n7 -1\n0 3\n8 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for pid, n := range parsePS(b) {
			if pid < 1 || n < 0 || n%1024 != 0 {
				t.Errorf("parsePS(%q) gave pid %d %d bytes", b, pid, n)
			}
		}
	})
}
