package bench

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		line string
		want procStat
		ok   bool
	}{
		{"4242 (gopls) S 17 4242 17 0 -1 4194560 9 0 0 0 120 35 0 0 20 0 12 0 100 1226113024 98304 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0", procStat{pid: 4242, ppid: 17, cpu: 155, rss: 98304}, true},
		{"7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 2", procStat{pid: 7, ppid: 1, cpu: 7, rss: 2}, true},
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192", procStat{}, false}, // no rss
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 many", procStat{}, false},
		{"8 (x) S 1 8", procStat{}, false},
		{"garbage", procStat{}, false},
		{"", procStat{}, false},
	} {
		got, ok := parseStat(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("parseStat(%q) = %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseStat: any line parses or is refused without a panic, and a
// line taken names the pid it starts with.
func FuzzParseStat(f *testing.F) {
	f.Add("4242 (gopls) S 17 4242 17 0 -1 4194560 9 0 0 0 120 35 0 0 20 0 12 0 100 1226113024 98304 18446744073709551615")
	f.Add("7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 2")
	f.Add("8 (x) S 1 8")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, line string) {
		p, ok := parseStat(line)
		if !ok {
			if p != (procStat{}) {
				t.Errorf("refused %q but returned %+v", line, p)
			}
			return
		}
		head, _, _ := strings.Cut(line, "(")
		if pid, err := strconv.Atoi(strings.TrimSpace(head)); err != nil || pid != p.pid {
			t.Errorf("parseStat(%q).pid = %d, the line starts with %q", line, p.pid, head)
		}
	})
}
