package stack

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestSymlinkedProjectFileRunsNothing: a repository whose .acp-lsp.toml is
// a symlink to a trusted project's file gets none of that file's trusted
// settings, neither the server acp-lsp would run when started in it nor the
// gates of a session in it; the trusted project, and the same folder
// reached through a symlink, keep them.
func TestSymlinkedProjectFileRunsNothing(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(rel, target string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	write("projA/"+config.ProjectFileName, "[tool]\nallow_raw_request = true\n\n[servers.wrap]\ncommand = [\"sh\", \"lsp-wrap.sh\"]\nextensions = [\"wrap\"]\n")
	write("projA/lsp-wrap.sh", "echo A\n")
	write("projB/lsp-wrap.sh", "echo B\n")
	link("projB/"+config.ProjectFileName, "../projA/"+config.ProjectFileName)
	link("linkA", "projA")
	if err := os.MkdirAll(filepath.Join(root, "start"), 0o755); err != nil {
		t.Fatal(err)
	}
	projA := filepath.Join(root, "projA", config.ProjectFileName)
	data, err := config.ReadFile(projA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.NewTrustStore(state).Trust(projA, data, time.Now()); err != nil {
		t.Fatal(err)
	}
	reload := projectLoader(root, state)
	p := &projectSettings{workspace: filepath.Join(root, "start"), reload: reload, log: discard, told: map[string]string{}}

	for _, tt := range []struct {
		ws   string
		wrap bool // the wrap server runs, and a session may send raw requests
	}{
		{"projA", true},
		{"linkA", true},
		{"projB", false},
	} {
		t.Run(tt.ws, func(t *testing.T) {
			ws := filepath.Join(root, tt.ws)
			loaded, err := reload(ws)
			if err != nil {
				t.Fatal(err)
			}
			ac, err := AdapterConfig(loaded.Config, discard, Options{Environ: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ac.LSP.Servers, func(s lsp.ServerConfig) bool { return s.Name == "wrap" })
			if (i >= 0) != tt.wrap {
				t.Errorf("started in %s, acp-lsp runs the wrap server: %v, want %v", tt.ws, i >= 0, tt.wrap)
			}
			got := p.forSession(ws, component.Config{AllowMutating: map[string]bool{}})
			if got.AllowMutating["request"] != tt.wrap {
				t.Errorf("a session in %s may send raw requests: %v, want %v", tt.ws, got.AllowMutating["request"], tt.wrap)
			}
		})
	}
}
