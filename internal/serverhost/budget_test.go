package serverhost

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestBudgetAcrossProfiles: the host holds local.max_running for all its
// servers, whatever profile started them: a second client with other
// settings (another profile, another Manager) starting a server stops the
// first client's idle one.
func TestBudgetAcrossProfiles(t *testing.T) {
	dir := hostDir(t)
	id := "budget0000000000"
	servers := fakeServers(t, fakelsp.Script{})
	// The host goes first at the cleanup: its servers hold their
	// record files open, which Windows does not delete.
	serveHere(t, dir, id)
	var files []string
	var clients []*Client
	for i := range 2 {
		root := t.TempDir()
		f := filepath.Join(root, "a.go")
		must(t, os.WriteFile(f, []byte("package a\n"), 0o644))
		// A different MaxFileSize is a different profile.
		c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: servers, MaxRunning: 1, MaxFileSize: int64(1<<20 + i)}, Config{Dir: dir, Identity: id})
		must(t, err)
		t.Cleanup(func() { c.Close(context.Background()) })
		files, clients = append(files, f), append(clients, c)
	}
	must(t, clients[0].Prewarm(t.Context(), files[0]))
	must(t, clients[1].Prewarm(t.Context(), files[1]))
	if st, err := clients[0].Status(t.Context(), 0); err != nil || st.Profiles != 4 {
		t.Fatalf("host status %+v, %v; want four Managers (each client's fake server and its no-server one)", st, err)
	}
	for i, want := range []lsp.State{lsp.StateStopped, lsp.StateRunning} {
		if st := clients[i].Servers(); len(st) != 1 || st[0].State != want {
			t.Errorf("client %d's servers %+v, want one %s", i, st, want)
		}
	}
}
