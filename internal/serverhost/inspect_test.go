package serverhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestInspectAndStopHost: Inspect lists every server of the host (root,
// command, pid, RSS, the clients using it, state, last use) without
// joining it; StopHost ends the host and its servers, after which no host
// runs.
func TestInspectAndStopHost(t *testing.T) {
	dir := hostDir(t)
	id := "inspect000000000"
	cfg := Config{Dir: dir, Identity: id}
	if _, err := Inspect(t.Context(), cfg); !errors.Is(err, ErrNoHost) {
		t.Fatalf("inspect with no host: %v, want ErrNoHost", err)
	}
	pl := place{dir: dir, id: id}
	ln, err := listen(pl.socket())
	must(t, err)
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), HostConfig{Listener: ln, Socket: pl.socket(), Identity: id})
	}()

	servers := fakeServers(t, fakelsp.Script{})
	root := t.TempDir()
	file := filepath.Join(root, "a.go")
	must(t, os.WriteFile(file, []byte("package a\n"), 0o644))
	c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers}, cfg)
	must(t, err)
	defer c.Close(context.Background())
	must(t, c.Prewarm(t.Context(), file))

	st, err := Inspect(t.Context(), cfg)
	must(t, err)
	if st.Clients != 1 || len(st.Servers) != 1 {
		t.Fatalf("status %+v, want one client and one server", st)
	}
	s := st.Servers[0]
	if s.Name != "fake" || s.Root != root || s.State != lsp.StateRunning || s.PID == 0 || s.RSSBytes == 0 ||
		s.LastUsed.IsZero() || !slices.Equal(s.Clients, []int{os.Getpid()}) || len(s.Command) == 0 || s.Command[0] != servers[0].Command {
		t.Errorf("server %+v", s)
	}

	stopped, err := StopHost(t.Context(), cfg)
	must(t, err)
	if len(stopped.Servers) != 1 {
		t.Errorf("stop reported %+v, want the server it held", stopped)
	}
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	proctest.AwaitGone(t, []int{s.PID}, 20*time.Second)
	if _, err := Inspect(t.Context(), cfg); !errors.Is(err, ErrNoHost) {
		t.Errorf("inspect after stop: %v, want ErrNoHost", err)
	}
}
