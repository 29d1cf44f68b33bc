package procfs

import (
	"slices"
	"testing"
)

// TestDescendants: a process's children, theirs and so on, parents before
// children, zombies included; not the root, not a process whose parent is
// gone from the table, and each once in a cycle of reused pids.
func TestDescendants(t *testing.T) {
	procs := map[int]Stat{}
	for _, p := range []Stat{
		{Pid: 1, PPid: 0},
		{Pid: 10, PPid: 1},
		{Pid: 11, PPid: 10},
		{Pid: 13, PPid: 11, State: 'Z'},
		{Pid: 16, PPid: 10},
		{Pid: 17, PPid: 16},
		{Pid: 20, PPid: 1},
		{Pid: 30, PPid: 31},
		{Pid: 31, PPid: 30},
		{Pid: 40, PPid: 99},
	} {
		procs[p.Pid] = p
	}
	for _, c := range []struct {
		root int
		want []int
	}{
		{10, []int{11, 13, 16, 17}},
		{1, []int{10, 11, 13, 16, 17, 20}},
		{30, []int{31}},
		{99, []int{40}},
		{17, nil},
		{12345, nil},
	} {
		got := Descendants(procs, c.root)
		var pids []int
		at := map[int]int{}
		for i, p := range got {
			pids = append(pids, p.Pid)
			at[p.Pid] = i
		}
		for _, p := range got {
			if i, ok := at[p.PPid]; ok && i > at[p.Pid] {
				t.Errorf("Descendants(%d): %d listed after its child %d", c.root, p.PPid, p.Pid)
			}
		}
		slices.Sort(pids)
		if !slices.Equal(pids, c.want) {
			t.Errorf("Descendants(%d) = %v, want %v", c.root, pids, c.want)
		}
	}
}
