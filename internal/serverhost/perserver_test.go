package serverhost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestSharingPerServer: two clients on one workspace whose registries
// differ only in gopls's settings (two sessions' trusted project files)
// get a gopls each but share the other server, configured alike; a third
// client configured as the first shares the first's gopls.
func TestSharingPerServer(t *testing.T) {
	peers.Require(t, "gopls")
	dir := hostDir(t)
	id := "perserver0000000"
	serveHere(t, dir, id)
	fake := fakeServers(t, fakelsp.Script{})[0]
	fake.Extensions = []string{"fk"}
	root, goFile := goWorkspace(t)
	fkFile := filepath.Join(root, "a.fk")
	must(t, os.WriteFile(fkFile, []byte("x\n"), 0o644))
	registry := func(hoverKind string) []lsp.ServerConfig {
		var out []lsp.ServerConfig
		for _, s := range lsp.DefaultServers() {
			if s.Name == "gopls" {
				s.Settings = map[string]json.RawMessage{"gopls": json.RawMessage(`{"hoverKind":"` + hoverKind + `"}`)}
				out = append(out, s)
			}
		}
		return append(out, fake)
	}
	pids := func(kind string) map[string]int {
		c, err := NewClient(lsp.Options{Roots: []string{root}, Servers: registry(kind), Env: peers.Env()}, Config{Dir: dir, Identity: id})
		must(t, err)
		t.Cleanup(func() { c.Close(context.Background()) })
		must(t, c.Prewarm(t.Context(), goFile))
		must(t, c.Prewarm(t.Context(), fkFile))
		out := map[string]int{}
		for _, st := range c.Servers() {
			out[st.Name] = st.PID
		}
		if out["gopls"] == 0 || out["fake"] == 0 {
			t.Fatalf("servers of a client with hoverKind %s: %v, want gopls and fake running", kind, out)
		}
		return out
	}
	a, b, a2 := pids("FullDocumentation"), pids("SynopsisDocumentation"), pids("FullDocumentation")
	if a["gopls"] == b["gopls"] {
		t.Errorf("one gopls (pid %d) for two gopls settings", a["gopls"])
	}
	if a["fake"] != b["fake"] {
		t.Errorf("the other server, configured alike, runs twice (pids %d, %d): one server's settings split every server", a["fake"], b["fake"])
	}
	if a2["gopls"] != a["gopls"] || a2["fake"] != a["fake"] {
		t.Errorf("a client configured as the first: %v, want the first's %v", a2, a)
	}
}
