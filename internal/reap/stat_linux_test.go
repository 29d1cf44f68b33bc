package reap

import (
	"fmt"
	"testing"
)

// FuzzParseStat: the fields after the command name are found whatever the
// name holds (a process chooses it: parentheses, spaces, newlines).
func FuzzParseStat(f *testing.F) {
	f.Add("sleep", 12, 34, uint64(56))
	f.Add(") 1 2 (", 1, 0, uint64(0))
	f.Add("a b\n) S 9", 7, 8, uint64(1<<40))
	f.Fuzz(func(t *testing.T, comm string, pid, ppid int, start uint64) {
		if pid < 0 || ppid < 0 {
			return
		}
		line := fmt.Sprintf("%d (%s) S %d 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %d 1000 100\n", pid, comm, ppid, start)
		p, ok := parseStat([]byte(line))
		if !ok || p != (proc{pid: pid, ppid: ppid, state: 'S', start: start}) {
			t.Fatalf("parseStat(%q) = %+v, %v", line, p, ok)
		}
	})
}
