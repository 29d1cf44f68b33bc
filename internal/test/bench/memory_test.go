package bench

import (
	"maps"
	"os/exec"
	"slices"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/reap"
)

// TestServerRSS sums a tree's resident pages per server: a server's
// children count toward it, also through acp-lsp's guard, which counts as
// itself; processes outside the tree and the root do not, and a parent
// cycle (pids reused while the table was read) ends the walk.
func TestServerRSS(t *testing.T) {
	procs := map[int]procStat{}
	names := map[int]string{}
	for _, p := range []struct {
		procStat
		name string
	}{
		{procStat{pid: 1, ppid: 0, rss: 1000}, "init"},
		{procStat{pid: 10, ppid: 1, rss: 500}, "bench"},
		{procStat{pid: 11, ppid: 10, rss: 100}, "gopls"}, // the bare client's
		{procStat{pid: 13, ppid: 11, rss: 7}, "go"},      // its go list
		{procStat{pid: 16, ppid: 10, rss: 3}, reap.GuardName},
		{procStat{pid: 17, ppid: 16, rss: 200}, "gopls"}, // acp-lsp's, guarded
		{procStat{pid: 18, ppid: 17, rss: 9}, "go"},
		{procStat{pid: 19, ppid: 10, rss: 4}, reap.GuardName},
		{procStat{pid: 12, ppid: 19, rss: 40}, "typescript-language-server"},
		{procStat{pid: 14, ppid: 12, rss: 30}, "tsserver.js"},
		{procStat{pid: 15, ppid: 14, rss: 2}, "npm-cli.js"},
		{procStat{pid: 20, ppid: 1, rss: 900}, "someone else's"},
		{procStat{pid: 30, ppid: 31, rss: 50}, "cycle"},
		{procStat{pid: 31, ppid: 30, rss: 50}, "cycle"},
		{procStat{pid: 40, ppid: 99, rss: 60}, "parent gone"},
	} {
		procs[p.pid], names[p.pid] = p.procStat, p.name
	}
	name := func(pid int) string { return names[pid] }
	total, by := serverRSS(procs, 10, name)
	if total != 395 {
		t.Errorf("total = %d, want 395", total)
	}
	if want := map[string]int64{"gopls": 316, reap.GuardName: 7, "typescript-language-server": 72}; !maps.Equal(by, want) {
		t.Errorf("per server = %v, want %v", by, want)
	}
	if total, by := serverRSS(procs, 12345, name); total != 0 || len(by) != 0 {
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
