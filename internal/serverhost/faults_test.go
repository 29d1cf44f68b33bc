package serverhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestCheckUID: only the host's own user is let in.
func TestCheckUID(t *testing.T) {
	for _, tc := range []struct {
		peer, own int
		ok        bool
	}{
		{1000, 1000, true},
		{0, 0, true},
		{1001, 1000, false},
		{0, 1000, false}, // not even root
		{1000, 0, false},
	} {
		if err := checkUID(tc.peer, tc.own); (err == nil) != tc.ok {
			t.Errorf("checkUID(%d, %d) = %v, want ok %v", tc.peer, tc.own, err, tc.ok)
		}
	}
}

// TestStartRace: ten processes asking at once start one host.
func TestStartRace(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	root, file := goWorkspace(t)
	var procs []*clientProc
	for range 10 {
		procs = append(procs, startClient(t, hoverSpec(dir, root, file)))
	}
	pids := map[int]bool{}
	for _, p := range procs {
		a := p.answer(t)
		if a.Err != "" || !strings.Contains(string(a.Result), "var Answer int") {
			t.Errorf("hover: %s %s", a.Result, a.Err)
		}
		for _, pid := range a.PIDs {
			pids[pid] = true
		}
	}
	if h := hostPIDs(t, dir); len(h) != 1 {
		t.Errorf("hosts %v, want one", h)
	}
	if len(pids) != 1 {
		t.Errorf("gopls processes %d, want one", len(pids))
	}
}

// TestUpgradeGetsItsOwnHost: two builds (identities) never share a host.
func TestUpgradeGetsItsOwnHost(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	root, file := goWorkspace(t)
	for _, id := range []string{"build00000000old", "build00000000new"} {
		spec := hoverSpec(dir, root, file)
		spec.Identity = id
		p := startClient(t, spec)
		if a := p.answer(t); a.Err != "" {
			t.Errorf("%s: %s", id, a.Err)
		}
	}
	if h := hostPIDs(t, dir); len(h) != 2 {
		t.Errorf("hosts %v, want one per build", h)
	}
}

// fakeServers is a registry of one fake server for .go files whose
// behaviour script sets.
func fakeServers(t *testing.T, script fakelsp.Script) []lsp.ServerConfig {
	t.Helper()
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	sp := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(sp, script))
	return []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(sp, filepath.Join(dir, "record")), Extensions: []string{"go"}}}
}

// TestHostKilledMidCall: the host SIGKILLed while a call is open. A call
// that may write files (a command whose edits the server applies) fails
// with ErrHostGone, saying to ask again; a read is asked once more of a
// new host and answered. The old host's servers die with it (reap guard;
// on Windows their job objects).
func TestHostKilledMidCall(t *testing.T) {
	for _, tc := range []struct {
		method string
		params string
		gone   bool
	}{
		{"workspace/executeCommand", `{"command":"x"}`, true},
		{"textDocument/hover", `{"textDocument":{"uri":"URI"},"position":{"line":3,"character":5}}`, false},
	} {
		t.Run(tc.method, func(t *testing.T) {
			dir := hostDir(t)
			root, file := goWorkspace(t)
			// The first process never answers it, so the call is open
			// when the host is killed; the next one answers. It stays
			// when its input closes: only the reap guard (Linux) or the
			// job object (Windows) ends it with its host.
			script := fakelsp.Script{RefuseExit: true, Methods: map[string]fakelsp.Behavior{tc.method: {NeverAnswer: true}}}
			servers := fakeServers(t, script)
			c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Executable: os.Args[0], Idle: -1})
			must(t, err)
			defer c.Close(context.Background())
			must(t, c.Prewarm(t.Context(), file))
			var old []int
			for _, st := range c.Servers() {
				old = append(old, st.PID)
			}
			hosts := hostPIDs(t, dir)
			if len(hosts) != 1 || len(old) != 1 {
				t.Fatalf("hosts %v, servers %v; want one each", hosts, old)
			}
			// Once the host runs, the script is changed: the servers of
			// the next host answer.
			must(t, fakelsp.WriteScript(servers[0].Args[1], fakelsp.Script{}))
			done := make(chan error, 1)
			go func() {
				_, err := c.Request(t.Context(), file, tc.method, json.RawMessage(strings.ReplaceAll(tc.params, "URI", edit.URIFromPath(file))))
				done <- err
			}()
			// A second client sees the call open in the host (its own
			// status call is the second).
			watch, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Executable: os.Args[0], Idle: -1})
			must(t, err)
			defer watch.Close(context.Background())
			if _, err := watch.Status(t.Context(), 2); err != nil {
				t.Fatal(err)
			}
			if p, err := os.FindProcess(hosts[0]); err == nil {
				p.Kill()
			}
			err = <-done
			if tc.gone != errors.Is(err, ErrHostGone) {
				t.Errorf("%s: %v; want ErrHostGone %v", tc.method, err, tc.gone)
			}
			if !tc.gone && err != nil {
				t.Errorf("%s asked again of a new host: %v", tc.method, err)
			}
			proctest.AwaitGone(t, append(old, hosts[0]), 20*time.Second)
			// The next call starts a new host.
			if _, err := c.Request(t.Context(), file, "textDocument/definition",
				json.RawMessage(`{"textDocument":{"uri":"`+edit.URIFromPath(file)+`"},"position":{"line":5,"character":20}}`)); err != nil {
				t.Errorf("next call: %v", err)
			}
			if h := hostPIDs(t, dir); len(h) != 1 || h[0] == hosts[0] {
				t.Errorf("hosts %v after the kill of %d, want one new", h, hosts[0])
			}
		})
	}
}

// TestClientKilledMidCall: a client process SIGKILLed while its call is
// open leaves nothing in the host (run in this process, to see it
// release the client): its connection and its call are gone, and the
// servers serve the other client.
func TestClientKilledMidCall(t *testing.T) {
	dir := hostDir(t)
	root, file := goWorkspace(t)
	servers := fakeServers(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/hover": {NeverAnswer: true}}})
	id := "inproc0000000000"
	pl := place{dir: dir, id: id}
	ln, err := listen(pl.socket())
	must(t, err)
	left := make(chan int, 4)
	served := make(chan error, 1)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		served <- Serve(ctx, HostConfig{Listener: ln, Socket: pl.socket(), Identity: id, OnLeave: func(pid int) { left <- pid }})
	}()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Identity: id})
	must(t, err)
	defer c.Close(context.Background())
	must(t, c.Prewarm(t.Context(), file))

	spec := hoverSpec(dir, root, file)
	spec.Servers, spec.Identity = servers, id
	p := startClient(t, spec)
	// Its hover is never answered: once the host holds two calls (the
	// hover and this status), it is open.
	if st, err := c.Status(t.Context(), 2); err != nil || st.Clients != 2 {
		t.Fatalf("status %+v, %v; want two clients", st, err)
	}
	p.cmd.Process.Kill()
	p.cmd.Wait()
	if pid := <-left; pid != p.cmd.Process.Pid {
		t.Errorf("client %d left, want %d", pid, p.cmd.Process.Pid)
	}
	st, err := c.Status(t.Context(), 0)
	must(t, err)
	if st.Clients != 1 || st.Calls != 1 {
		t.Errorf("host after the kill: %+v, want this client and its status call only", st)
	}
	if _, err := c.Request(t.Context(), file, "textDocument/definition",
		json.RawMessage(`{"textDocument":{"uri":"`+edit.URIFromPath(file)+`"},"position":{"line":5,"character":20}}`)); err != nil {
		t.Errorf("the servers after a client was killed: %v", err)
	}
}

// TestHostEndsWithItsLastClient: a host ends (with its servers) once its
// last client left and its grace ran out (none here), and the next call
// starts a new one.
func TestHostEndsWithItsLastClient(t *testing.T) {
	dir := hostDir(t)
	root, file := goWorkspace(t)
	servers := fakeServers(t, fakelsp.Script{})
	open := func() *Client {
		c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, Config{Dir: dir, Executable: os.Args[0], Idle: -1})
		must(t, err)
		must(t, c.Prewarm(t.Context(), file))
		return c
	}
	c := open()
	hosts := hostPIDs(t, dir)
	var procs []int
	for _, st := range c.Servers() {
		procs = append(procs, st.PID)
	}
	if len(hosts) != 1 || len(procs) != 1 {
		t.Fatalf("hosts %v, servers %v; want one each", hosts, procs)
	}
	must(t, c.Close(t.Context()))
	proctest.AwaitGone(t, append(procs, hosts...), 20*time.Second)
	c = open()
	defer c.Close(context.Background())
	if h := hostPIDs(t, dir); len(h) != 1 || h[0] == hosts[0] {
		t.Errorf("hosts %v after %d ended, want one new", h, hosts[0])
	}
}
