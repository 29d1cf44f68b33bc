package procfs

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestParseStat: the fields are read whatever the command name holds, and
// a line short of the resident set, or with a field that is not a number
// where one is read, is refused.
func TestParseStat(t *testing.T) {
	// tail completes a line from field 11 (cminflt) to field 24 (rss):
	// start 100, rss 2 pages.
	const tail = " 0 0 0 0 0 0 0 20 0 1 0 100 8192 2"
	for _, c := range []struct {
		line string
		want Stat
		ok   bool
	}{
		{"4242 (gopls) S 17 4242 17 0 -1 4194560 9 0 0 0 120 35 0 0 20 0 12 0 100 1226113024 98304 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0",
			Stat{Pid: 4242, Comm: "gopls", State: 'S', PPid: 17, Pgrp: 4242, Flags: 4194560, CPU: 155, Start: 100, RSSPages: 98304}, true},
		{"7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 2",
			Stat{Pid: 7, Comm: "a (b) c", State: 'R', PPid: 1, Pgrp: 7, CPU: 7, Start: 100, RSSPages: 2}, true},
		{"12 (fakelsp) S 1 12 12 0 -1 4194560 0" + tail,
			Stat{Pid: 12, Comm: "fakelsp", State: 'S', PPid: 1, Pgrp: 12, Flags: 4194560, Start: 100, RSSPages: 2}, true},
		{"13 (a) b (c) R 1 7 7 0 -1 4 0" + tail,
			Stat{Pid: 13, Comm: "a) b (c", State: 'R', PPid: 1, Pgrp: 7, Flags: 4, Start: 100, RSSPages: 2}, true},
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192", Stat{}, false}, // no rss
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 many", Stat{}, false},
		{"7 (x) RS 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 100 8192 2", Stat{}, false}, // a state of two letters
		{"8 (x) S 1 8", Stat{}, false},
		{"14 (truncated", Stat{}, false},
		{"garbage", Stat{}, false},
		{"", Stat{}, false},
	} {
		got, ok := ParseStat([]byte(c.line))
		if got != c.want || ok != c.ok {
			t.Errorf("ParseStat(%q) = %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
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
		p, ok := ParseStat([]byte(line))
		if !ok {
			if p != (Stat{}) {
				t.Errorf("refused %q but returned %+v", line, p)
			}
			return
		}
		head, _, _ := strings.Cut(line, "(")
		if pid, err := strconv.Atoi(strings.TrimSpace(head)); err != nil || pid != p.Pid {
			t.Errorf("ParseStat(%q).Pid = %d, the line starts with %q", line, p.Pid, head)
		}
	})
}

// FuzzParseStatComm: the fields after the command name are found whatever
// the name holds (a process chooses it: parentheses, spaces, newlines).
func FuzzParseStatComm(f *testing.F) {
	f.Add("sleep", 12, 34, uint64(56))
	f.Add(") 1 2 (", 1, 0, uint64(0))
	f.Add("a b\n) S 9", 7, 8, uint64(1<<40))
	f.Fuzz(func(t *testing.T, comm string, pid, ppid int, start uint64) {
		if pid < 0 || ppid < 0 {
			return
		}
		line := fmt.Sprintf("%d (%s) S %d 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %d 1000 100\n", pid, comm, ppid, start)
		want := Stat{Pid: pid, Comm: comm, State: 'S', PPid: ppid, Pgrp: 1, Flags: 4194560, Start: start, RSSPages: 100}
		if p, ok := ParseStat([]byte(line)); !ok || p != want {
			t.Fatalf("ParseStat(%q) = %+v, %v", line, p, ok)
		}
	})
}

// TestParseStatm: the resident pages are statm's second field.
func TestParseStatm(t *testing.T) {
	for _, c := range []struct {
		line string
		want int64
		ok   bool
	}{
		{"299652 24064 11008 3444 0 36548 0\n", 24064, true},
		{"1 2", 2, true},
		{"1", 0, false},
		{"1 x 3", 0, false},
		{"", 0, false},
	} {
		if got, ok := parseStatm([]byte(c.line)); got != c.want || ok != c.ok {
			t.Errorf("parseStatm(%q) = %d %v, want %d %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseStatm: any line parses or is refused without a panic, and a
// line taken gives its second field.
func FuzzParseStatm(f *testing.F) {
	f.Add("299652 24064 11008 3444 0 36548 0\n")
	f.Add("1")
	f.Add(" \t7\n")
	f.Fuzz(func(t *testing.T, line string) {
		pages, ok := parseStatm([]byte(line))
		if !ok {
			if pages != 0 {
				t.Errorf("refused %q but returned %d", line, pages)
			}
			return
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("parseStatm(%q) took a line of %d fields", line, len(f))
		}
		if n, err := strconv.ParseInt(f[1], 10, 64); err != nil || n != pages {
			t.Errorf("parseStatm(%q) = %d, its second field is %q", line, pages, f[1])
		}
	})
}
