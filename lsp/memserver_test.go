package lsp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
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
