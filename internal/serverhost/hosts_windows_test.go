package serverhost

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"golang.org/x/sys/windows"
)

// hostDir is a test's private folder for its hosts: at the end every host
// of it is stopped (StopHost; there is no SIGTERM to send) and proved
// gone with its servers.
func hostDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	must(t, err)
	t.Cleanup(func() {
		for _, id := range hostIDs(t, dir) {
			st, err := StopHost(context.Background(), Config{Dir: dir, Identity: id})
			if errors.Is(err, ErrNoHost) {
				continue
			}
			if err != nil {
				t.Errorf("stop host %s: %v", id, err)
				continue
			}
			pids := []int{st.PID}
			for _, s := range st.Servers {
				pids = append(pids, s.PID)
			}
			proctest.AwaitGone(t, pids, 20*time.Second)
		}
		os.RemoveAll(dir)
	})
	return dir
}

// hostIDs are the build identities of the hosts ever started in dir
// (their start locks).
func hostIDs(t testing.TB, dir string) []string {
	t.Helper()
	locks, err := filepath.Glob(filepath.Join(dir, "h-*.lock"))
	must(t, err)
	var ids []string
	for _, l := range locks {
		ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(l), "h-"), ".lock"))
	}
	return ids
}

// hostPIDs lists the host processes of dir: those answering on the pipe
// of a build identity started there.
func hostPIDs(t *testing.T, dir string) []int {
	t.Helper()
	var out []int
	for _, id := range hostIDs(t, dir) {
		st, err := Inspect(t.Context(), Config{Dir: dir, Identity: id})
		if errors.Is(err, ErrNoHost) {
			continue
		}
		must(t, err)
		out = append(out, st.PID)
	}
	return out
}

// TestCheckSID: only the host's own user is let in, whoever else asks
// (another user, SYSTEM, the Administrators group); a client of another
// user cannot be made under Wine, so the comparison is tested alone.
func TestCheckSID(t *testing.T) {
	sid := func(s string) *windows.SID {
		v, err := windows.StringToSid(s)
		must(t, err)
		return v
	}
	user := "S-1-5-21-1004336348-1177238915-682003330-1001"
	for _, tc := range []struct {
		name      string
		peer, own *windows.SID
		ok        bool
	}{
		{"the same user", sid(user), sid(user), true},
		{"another user of the domain", sid("S-1-5-21-1004336348-1177238915-682003330-1002"), sid(user), false},
		{"SYSTEM", sid("S-1-5-18"), sid(user), false},
		{"the Administrators group", sid("S-1-5-32-544"), sid(user), false},
		{"unknown peer", nil, sid(user), false},
	} {
		if err := checkSID(tc.peer, tc.own); (err == nil) != tc.ok {
			t.Errorf("%s: checkSID = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestPipeIsTheUsers: the host's pipe carries the user's SID in its name
// and lets the user alone open it, and a real connection's client is read
// as this process's user (GetNamedPipeClientProcessId and its token) and
// admitted, while a host of another user refuses it.
func TestPipeIsTheUsers(t *testing.T) {
	dir := hostDir(t)
	pl := place{dir: dir, id: "pipe000000000000"}
	ln, err := listen(pl.socket())
	must(t, err)
	defer ln.Close()
	own, err := userSID()
	must(t, err)
	if name := ln.Addr().String(); !strings.HasPrefix(name, `\\.\pipe\acp-lsp-`+own.String()+"-") {
		t.Errorf("pipe %s, want it named for %s", name, own)
	}
	if sddl := ln.(*pipeListener).sa.SecurityDescriptor.String(); !strings.HasPrefix(sddl, "D:P(A;;GA;;;"+own.String()+")") || strings.Count(sddl, "(") != 1 {
		t.Errorf("the pipe's access list %s, want the user alone", sddl)
	}
	accepted := make(chan error, 1)
	var sc net.Conn
	go func() {
		c, err := ln.Accept()
		sc = c
		accepted <- err
	}()
	c, err := dial(t.Context(), pl.socket())
	must(t, err)
	defer c.Close()
	must(t, <-accepted)
	defer sc.Close()
	peer, err := pipePeer(sc, false)
	must(t, err)
	if !peer.Equals(own) {
		t.Errorf("client user %s, want %s", peer, own)
	}
	if err := (&host{}).admit(sc); err != nil {
		t.Errorf("own user refused: %v", err)
	}
	system, err := windows.StringToSid("S-1-5-18")
	must(t, err)
	if err := checkSID(peer, system); err == nil {
		t.Error("a host of another user admitted this peer")
	}
}

// TestTwoClientsShareOneServerOnWindows: two acp-lsp processes (client
// processes of the test binary) share one host and one fake server; the
// host, detached, outlives the process that started it.
func TestTwoClientsShareOneServerOnWindows(t *testing.T) {
	dir := hostDir(t)
	root, file := goWorkspace(t)
	servers := fakeServers(t, fakelsp.Script{})
	spec := hoverSpec(dir, root, file)
	spec.Servers = servers
	answer := func(p *clientProc) int {
		t.Helper()
		a := p.answer(t)
		if a.Err != "" || !strings.Contains(string(a.Result), fakelsp.HoverPrefix+"Answer") || len(a.PIDs) != 1 {
			t.Fatalf("client: %+v", a)
		}
		return a.PIDs[0]
	}
	// The first starts the host.
	first := startClient(t, spec)
	server := answer(first)
	hosts := hostPIDs(t, dir)
	if len(hosts) != 1 {
		t.Fatalf("hosts %v, want one", hosts)
	}
	// This process stays in it (as the same build) while the first goes.
	exe, err := os.Executable()
	must(t, err)
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Executable: exe, Idle: -1})
	must(t, err)
	defer c.Close(context.Background())
	must(t, c.Prewarm(t.Context(), file))
	own := c.Servers() // its environment is not the client processes': a server of its own
	if got := answer(startClient(t, spec)); got != server {
		t.Errorf("the second client's server %d, want the first's %d", got, server)
	}
	first.end()
	if st := c.Servers(); len(own) != 1 || len(st) != 1 || st[0].PID != own[0].PID {
		t.Errorf("servers %+v once the host's starter ended, want %+v still", st, own)
	}
	if h := hostPIDs(t, dir); !slices.Equal(h, hosts) {
		t.Errorf("hosts %v once their starter ended, want %v", h, hosts)
	}
}

// TestStartRaceOnWindows: clients starting at once make one host (the
// start lock, LockFileEx), and each is answered.
func TestStartRaceOnWindows(t *testing.T) {
	dir := hostDir(t)
	root, file := goWorkspace(t)
	servers := fakeServers(t, fakelsp.Script{})
	exe, err := os.Executable()
	must(t, err)
	id, err := identityOf(exe)
	must(t, err)
	const n = 6
	var wg sync.WaitGroup
	clients := make([]*Client, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Executable: exe, Identity: id, Idle: -1})
			if err != nil {
				errs[i] = err
				return
			}
			clients[i] = c
			errs[i] = c.Prewarm(t.Context(), file)
		})
	}
	wg.Wait()
	for i, c := range clients {
		if c != nil {
			t.Cleanup(func() { c.Close(context.Background()) })
		}
		if errs[i] != nil {
			t.Errorf("client %d: %v", i, errs[i])
		}
	}
	if h := hostPIDs(t, dir); len(h) != 1 {
		t.Fatalf("hosts %v, want one", h)
	}
	st, err := Inspect(t.Context(), Config{Dir: dir, Identity: id})
	must(t, err)
	if st.Clients != n || len(st.Servers) != 1 {
		t.Errorf("host status %+v, want one server for the %d clients", st, n)
	}
}
