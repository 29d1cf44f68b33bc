package lsp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// memEnv is a Manager whose servers are in-process fakes reached through
// Options.Connect, so that a test can run the whole client (start,
// restart delays, idle teardown) in fake time under testing/synctest.
// File watching is off: a goroutine blocked on inotify is not durably
// blocked, which would keep fake time from advancing.
type memEnv struct {
	t    *testing.T
	m    *Manager
	root string
	file string

	mu      sync.Mutex
	servers []*fakelsp.Server
	conns   []*memConn
	script  fakelsp.Script
}

// memConn is a fakelsp server on an in-memory pipe.
type memConn struct {
	io.ReadWriteCloser
	done   chan struct{}
	cancel context.CancelFunc
}

func (c *memConn) Done() <-chan struct{} { return c.done }
func (c *memConn) Kill()                 { c.cancel() }

// newMemEnv must be called inside the synctest bubble.
func newMemEnv(t *testing.T, script fakelsp.Script, tweak func(*Options)) *memEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &memEnv{t: t, root: root, file: filepath.Join(root, "a.fk"), script: script}
	if err := os.WriteFile(e.file, []byte(fakeText), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{
		Roots: []string{root},
		Servers: []ServerConfig{{
			Name: "fakelsp", Command: "fakelsp-in-process", Extensions: []string{"fk"}, Language: "fake",
			InstallHint: "in process",
		}},
		Timeouts: Timeouts{
			Initialize: Duration(time.Minute), Request: Duration(time.Minute), Diagnostics: Duration(time.Minute),
			Shutdown: Duration(time.Second), Write: Duration(10 * time.Second), Idle: Duration(-1),
		},
		DiagnosticsSettle: 50 * time.Millisecond,
		MaxWatchedDirs:    -1,
		Connect:           e.connect,
	}
	if tweak != nil {
		tweak(&opts)
	}
	e.m, err = NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.m.Close(context.Background()) })
	return e
}

func (e *memEnv) connect(cfg ServerConfig, root string) (ServerConn, error) {
	e.mu.Lock()
	srv := fakelsp.New(e.script, nil)
	e.servers = append(e.servers, srv)
	e.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	rwc, served := srv.Pipe(ctx)
	c := &memConn{ReadWriteCloser: rwc, done: make(chan struct{}), cancel: cancel}
	e.mu.Lock()
	e.conns = append(e.conns, c)
	e.mu.Unlock()
	go func() {
		<-served
		cancel()
		close(c.done)
	}()
	return c, nil
}

// started is how many servers were connected so far.
func (e *memEnv) started() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.servers)
}

// crash ends the newest server as a crash would.
func (e *memEnv) crash() {
	e.mu.Lock()
	c := e.conns[len(e.conns)-1]
	e.mu.Unlock()
	c.Kill()
	<-c.done
}

// TestChangesBeforeRegistration (fake time): changes seen before the
// server registered its file watchers (gopls registers them only after
// loading the workspace, which takes seconds in a large one) are kept and
// told once the registration is in, at the next request; a server that
// never registers is never told.
func TestChangesBeforeRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{}, nil)
		hover := func() {
			t.Helper()
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
				t.Fatal(err)
			}
		}
		hover()
		early := filepath.Join(e.root, "early.fk")
		if err := os.WriteFile(early, []byte("package fake\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := e.m.FileChanged(t.Context(), early); err != nil {
			t.Fatal(err)
		}
		hover()
		watched := func() []string {
			synctest.Wait()
			e.mu.Lock()
			srv := e.servers[0]
			e.mu.Unlock()
			var out []string
			for _, m := range srv.Received() {
				if m.Method == "workspace/didChangeWatchedFiles" {
					out = append(out, string(m.Params))
				}
			}
			return out
		}
		if got := watched(); len(got) != 0 {
			t.Fatalf("told %q before registering watchers", got)
		}
		// The server registers now, as its handler would record it.
		e.m.mu.Lock()
		var p *proc
		for _, s := range e.m.servers {
			p = s.cur
		}
		e.m.mu.Unlock()
		if _, rerr := p.serverRequest("client/registerCapability", json.RawMessage(`{"registrations":[{"id":"w","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.fk"}]}}]}`)); rerr != nil {
			t.Fatal(rerr)
		}
		hover()
		got := watched()
		if len(got) != 1 || !strings.Contains(got[0], `early.fk","type":2`) {
			t.Fatalf("told %q after registering, want early.fk's change once", got)
		}
		hover()
		if got := watched(); len(got) != 1 {
			t.Fatalf("told %q, want the change once", got)
		}
	})
}

// TestChangesDuringStart (fake time): a change told while the server is
// still starting (it may have read the file already) reaches it once it
// runs and has registered its watchers; one told while no server runs or
// starts is not kept (a later start reads the disk).
func TestChangesDuringStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := watcherScript
		script.Methods = map[string]fakelsp.Behavior{"initialize": {Delay: fakelsp.Duration(10 * time.Second)}}
		e := newMemEnv(t, script, nil)
		before := filepath.Join(e.root, "before.fk")
		during := filepath.Join(e.root, "during.fk")
		for _, f := range []string{before, during} {
			if err := os.WriteFile(f, []byte("package fake\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.m.FileChanged(t.Context(), before); err != nil { // no server yet
			t.Fatal(err)
		}
		rep, _ := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: time.Second})
		if fd := rep.Files[0]; fd.Verdict != Starting {
			t.Fatalf("diagnostics during the start: %s", fd.Verdict)
		}
		if err := e.m.FileChanged(t.Context(), during); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second once the registration is surely in
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		e.mu.Lock()
		srv := e.servers[0]
		e.mu.Unlock()
		var got []string
		for _, m := range srv.Received() {
			if m.Method == "workspace/didChangeWatchedFiles" {
				got = append(got, string(m.Params))
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], "during.fk") || strings.Contains(got[0], "before.fk") {
			t.Fatalf("told %q, want during.fk's change once, not before.fk's", got)
		}
	})
}
