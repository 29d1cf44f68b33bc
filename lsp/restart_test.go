package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealCrashRestart kills gopls under the Manager: the next request
// starts a new process after backoff, reopens the documents, answers, and
// status counts the restart; a missing binary is named with its hint.
func TestRealCrashRestart(t *testing.T) {
	peers.Require(t, "gopls")
	root := copyDir(t, filepath.Join("testdata", "go"))
	file := filepath.Join(root, "main.go")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pos := at(t, file, "日本語", "greet", -1)
	if _, err := hover(ctx, m, file, pos); err != nil {
		t.Fatal(err)
	}
	_, s, _ := m.resolve(file)
	s.mu.Lock()
	p := s.cur
	s.mu.Unlock()
	if proc, err := os.FindProcess(p.pid); err == nil {
		_ = reap.KillGroup(proc)
	}
	<-p.done
	if st := m.Servers(); st[0].State != StateCrashed || !strings.Contains(st[0].LastError, "exited unexpectedly") {
		t.Fatalf("status after kill: %s %s", st[0].State, st[0].LastError)
	}
	raw, err := hover(ctx, m, file, pos)
	if err != nil || !strings.Contains(string(raw), "greet") {
		t.Fatalf("hover after restart: %s %v", raw, err)
	}
	st := m.Servers()
	if st[0].State != StateRunning || st[0].Restarts != 1 || st[0].PID == p.pid || st[0].OpenDocuments != 1 {
		t.Fatalf("status after restart: %s restarts %d pid %d docs %d", st[0].State, st[0].Restarts, st[0].PID, st[0].OpenDocuments)
	}
}

func TestMissingServer(t *testing.T) {
	root := t.TempDir()
	m, err := NewManager(Options{Roots: []string{root}, Env: []string{"PATH=" + root}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	_, err = hover(context.Background(), m, filepath.Join(root, "a.go"), Position{})
	var me *MissingServerError
	if !errors.As(err, &me) || me.Command != "gopls" || !strings.Contains(err.Error(), "go install golang.org/x/tools/gopls") {
		t.Fatalf("err = %v", err)
	}
	if _, err := hover(context.Background(), m, "/elsewhere/a.go", Position{}); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("outside: %v", err)
	}
	rep, _ := m.Diagnostics(context.Background(), []string{filepath.Join(root, "README"), filepath.Join(root, "a.go")}, DiagnosticsOptions{})
	if rep.Files[0].Verdict != Unsupported {
		t.Fatalf("verdict %+v", rep.Files[0])
	}
	// The missing server's verdict is its own, named, with the hint.
	if fd := rep.Files[1]; fd.Verdict != Failed || fd.Server != "gopls" || !strings.Contains(fd.Detail, "go install golang.org/x/tools/gopls") {
		t.Fatalf("diagnostics of a.go: %+v", fd)
	}
}

// TestRealIdleTeardown: an unused gopls is shut down after the idle
// timeout, leaves no process, and the next request starts it again.
func TestRealIdleTeardown(t *testing.T) {
	peers.Require(t, "gopls")
	root := copyDir(t, filepath.Join("testdata", "go"))
	file := filepath.Join(root, "main.go")
	m, err := NewManager(Options{Roots: []string{root}, Env: peers.Env(), Timeouts: Timeouts{Idle: Duration(200 * time.Millisecond)}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pos := at(t, file, "日本語", "greet", -1)
	if _, err := hover(ctx, m, file, pos); err != nil {
		t.Fatal(err)
	}
	_, s, _ := m.resolve(file)
	s.mu.Lock()
	p := s.cur
	s.mu.Unlock()
	<-p.done // the idle timer shuts it down
	if st := m.Servers(); st[0].State != StateStopped {
		t.Fatalf("state after idle: %s", st[0].State)
	}
	if left := groupMembers(p.pid); len(left) > 0 {
		t.Fatalf("left: %v", left)
	}
	if _, err := hover(ctx, m, file, pos); err != nil {
		t.Fatal(err)
	}
	if st := m.Servers(); st[0].State != StateRunning || st[0].Restarts != 0 {
		t.Fatalf("after reuse: %s %d", st[0].State, st[0].Restarts)
	}
}

// TestRealFileEvents: an external edit reported with FileChanged, a save
// and a rename reach gopls, and diagnostics follow the new content.
func TestRealFileEvents(t *testing.T) {
	peers.Require(t, "gopls")
	root := copyDir(t, filepath.Join("testdata", "go"))
	file := filepath.Join(root, "main.go")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(b), "undefinedVar", "otherUndefined", 1)), 0o644)
	if err := m.FileChanged(ctx, file); err != nil {
		t.Fatal(err)
	}
	if err := m.FileSaved(ctx, file); err != nil {
		t.Fatal(err)
	}
	rep, _ := m.Diagnostics(ctx, []string{file}, DiagnosticsOptions{})
	if fd := rep.Files[0]; fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), "undefined: otherUndefined") {
		t.Fatalf("after change: %s %s", fd.Verdict, fd.Diagnostics)
	}
	moved := filepath.Join(root, "moved.go")
	if _, err := m.WillRenameFile(ctx, file, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file, moved); err != nil {
		t.Fatal(err)
	}
	if err := m.FileRenamed(ctx, file, moved); err != nil {
		t.Fatal(err)
	}
	rep, _ = m.Diagnostics(ctx, []string{moved}, DiagnosticsOptions{})
	if fd := rep.Files[0]; fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), "undefined: otherUndefined") {
		t.Fatalf("after rename: %s %s", fd.Verdict, fd.Diagnostics)
	}
	if st := m.Servers(); st[0].OpenDocuments != 1 {
		t.Fatalf("open documents after rename: %d", st[0].OpenDocuments)
	}
}
