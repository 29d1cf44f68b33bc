package bench

import (
	"maps"
	"os/exec"
	"slices"
	"testing"
)

// TestTreeRSS sums a tree's resident pages per server: grandchildren
// count toward their server, processes outside the tree and the root
// itself do not, and a parent cycle (pids reused while the table was
// read) ends the walk.
func TestTreeRSS(t *testing.T) {
	procs := map[int]procStat{}
	for _, p := range []procStat{
		{pid: 1, ppid: 0, rss: 1000},
		{pid: 10, ppid: 1, rss: 500},  // the bench
		{pid: 11, ppid: 10, rss: 100}, // gopls
		{pid: 13, ppid: 11, rss: 7},   // its go list
		{pid: 12, ppid: 10, rss: 40},  // typescript-language-server
		{pid: 14, ppid: 12, rss: 30},  // tsserver
		{pid: 15, ppid: 14, rss: 2},   // npm
		{pid: 20, ppid: 1, rss: 900},  // someone else's
		{pid: 30, ppid: 31, rss: 50},  // a cycle
		{pid: 31, ppid: 30, rss: 50},
		{pid: 40, ppid: 99, rss: 60}, // parent gone
	} {
		procs[p.pid] = p
	}
	total, by := treeRSS(procs, 10)
	if total != 179 {
		t.Errorf("total = %d, want 179", total)
	}
	if want := map[int]int64{11: 107, 12: 72}; !maps.Equal(by, want) {
		t.Errorf("per server = %v, want %v", by, want)
	}
	if total, by := treeRSS(procs, 12345); total != 0 || len(by) != 0 {
		t.Errorf("a pid with no descendants: %d %v", total, by)
	}
}

func TestServerName(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"/work/.cache/bin/gopls"}, "gopls"},
		{[]string{"gopls", "-rpc.trace"}, "gopls"},
		{[]string{"node", "/x/node_modules/.bin/typescript-language-server", "--stdio"}, "typescript-language-server"},
		{[]string{"/usr/bin/node", "--max-old-space-size=3072", "/x/typescript/lib/tsserver.js"}, "tsserver.js"},
		{[]string{"/usr/bin/python3", "-m"}, "python3"},
		{[]string{"clangd", "--background-index"}, "clangd"},
		{nil, "?"},
	} {
		if got := serverName(c.argv); got != c.want {
			t.Errorf("serverName(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

// TestSampleMemory samples a real child: it is named, its resident set
// counted in the servers' peak, and the bench's own level recorded.
func TestSampleMemory(t *testing.T) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	m := sampleMemory().Stop()
	if m.ByServer["cat"] <= 0 || m.Servers < m.ByServer["cat"] {
		t.Errorf("peaks %+v: want cat's resident set counted", m)
	}
	if !slices.Contains(m.Names(), "cat") || m.Base <= 0 || m.Self < 0 {
		t.Errorf("peaks %+v: want cat named and the bench's own level", m)
	}
}
