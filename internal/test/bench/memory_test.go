package bench

import (
	"maps"
	"os/exec"
	"slices"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/reap"
)

// TestServerRSS sums a tree's resident pages per server: a server's
// children count toward it, also through acp-lsp's guard, which counts as
// itself; processes outside the tree and the root do not, and a parent
// cycle (pids reused while the table was read) ends the walk.
func TestServerRSS(t *testing.T) {
	procs := map[int]procfs.Stat{}
	names := map[int]string{}
	for _, p := range []struct {
		procfs.Stat
		name string
	}{
		{procfs.Stat{Pid: 1, PPid: 0, RSSPages: 1000}, "init"},
		{procfs.Stat{Pid: 10, PPid: 1, RSSPages: 500}, "bench"},
		{procfs.Stat{Pid: 11, PPid: 10, RSSPages: 100}, "gopls"}, // the bare client's
		{procfs.Stat{Pid: 13, PPid: 11, RSSPages: 7}, "go"},      // its go list
		{procfs.Stat{Pid: 16, PPid: 10, RSSPages: 3}, reap.GuardName},
		{procfs.Stat{Pid: 17, PPid: 16, RSSPages: 200}, "gopls"}, // acp-lsp's, guarded
		{procfs.Stat{Pid: 18, PPid: 17, RSSPages: 9}, "go"},
		{procfs.Stat{Pid: 19, PPid: 10, RSSPages: 4}, reap.GuardName},
		{procfs.Stat{Pid: 12, PPid: 19, RSSPages: 40}, "typescript-language-server"},
		{procfs.Stat{Pid: 14, PPid: 12, RSSPages: 30}, "tsserver.js"},
		{procfs.Stat{Pid: 15, PPid: 14, RSSPages: 2}, "npm-cli.js"},
		{procfs.Stat{Pid: 20, PPid: 1, RSSPages: 900}, "someone else's"},
		{procfs.Stat{Pid: 30, PPid: 31, RSSPages: 50}, "cycle"},
		{procfs.Stat{Pid: 31, PPid: 30, RSSPages: 50}, "cycle"},
		{procfs.Stat{Pid: 40, PPid: 99, RSSPages: 60}, "parent gone"},
	} {
		procs[p.Pid], names[p.Pid] = p.Stat, p.name
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
