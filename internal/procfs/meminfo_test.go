package procfs

import (
	"strings"
	"testing"
)

func TestParseMemTotal(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"MemTotal:       16318436 kB\nMemFree:         1234 kB\n", 16318436 * 1024, true},
		{"MemFree:         1234 kB\nMemTotal: 2048 kB\n", 2048 * 1024, true},
		{"MemFree:         1234 kB\n", 0, false},
		{"MemTotal: 12 MB\n", 0, false},
		{"MemTotal: -5 kB\n", 0, false},
		{"MemTotal: 99999999999999999999 kB\n", 0, false},
		{"MemTotal:\n", 0, false},
	} {
		got, ok := parseMemTotal([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseMemTotal(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if n := MemTotal(); n <= 0 {
		t.Errorf("MemTotal() = %d on this machine", n)
	}
}

func FuzzParseMemTotal(f *testing.F) {
	f.Add([]byte("MemTotal:       16318436 kB\n"))
	f.Add([]byte("MemFree: 1 kB\nMemTotal: 2 kB"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, ok := parseMemTotal(b)
		if n < 0 || (!ok && n != 0) {
			t.Errorf("parseMemTotal(%q) = %d, %v", b, n, ok)
		}
		if ok && !strings.Contains(string(b), "MemTotal:") {
			t.Errorf("parseMemTotal(%q) found a total without the line", b)
		}
	})
}
