package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/peers"
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
	if _, err := m.Hover(ctx, file, pos); err != nil {
		t.Fatal(err)
	}
	_, s, _ := m.resolve(file)
	s.mu.Lock()
	p := s.cur
	s.mu.Unlock()
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.done
	if st := m.Servers(); st[0].State != StateCrashed || !strings.Contains(st[0].LastError, "exited unexpectedly") {
		t.Fatalf("status after kill: %s %s", st[0].State, st[0].LastError)
	}
	raw, err := m.Hover(ctx, file, pos)
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
	_, err = m.Hover(context.Background(), filepath.Join(root, "a.go"), Position{})
	var me *MissingServerError
	if !errors.As(err, &me) || me.Command != "gopls" || !strings.Contains(err.Error(), "go install golang.org/x/tools/gopls") {
		t.Fatalf("err = %v", err)
	}
	if _, err := m.Hover(context.Background(), "/elsewhere/a.go", Position{}); !errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("outside: %v", err)
	}
	rep, _ := m.Diagnostics(context.Background(), []string{filepath.Join(root, "README")}, DiagnosticsOptions{})
	if rep.Files[0].Verdict != Unsupported {
		t.Fatalf("verdict %+v", rep.Files[0])
	}
}
