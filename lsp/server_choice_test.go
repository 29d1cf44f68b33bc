package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestServerChoice: of the built-in servers of one language (Python:
// pyright, pylsp, ruff), a file goes to the installed one of lowest
// priority: the first choice when installed, the next one when it is not,
// the one the user's priority puts first; with none installed the error
// names the first choice and this platform's install command.
func TestServerChoice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		installed []string // commands on PATH
		overrides []ServerConfig
		want      string // server chosen, "" for a MissingServerError
	}{
		{"the first choice when installed", []string{"pyright-langserver", "pylsp"}, nil, "pyright"},
		{"the next one when it is not", []string{"pylsp", "ruff"}, nil, "pylsp"},
		{"the user's priority first", []string{"pyright-langserver", "pylsp"}, []ServerConfig{{Name: "pylsp", Priority: -1}}, "pylsp"},
		{"the first choice disabled", []string{"pyright-langserver", "pylsp", "ruff"}, []ServerConfig{{Name: "pyright", Disabled: true}}, "pylsp"},
		{"none installed", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := disk.Tree(t, map[string]string{"pyproject.toml": "", "a.py": fakeText})
			script := filepath.Join(t.TempDir(), "script.json")
			if err := fakelsp.WriteScript(script, fakelsp.Script{}); err != nil {
				t.Fatal(err)
			}
			bin := t.TempDir()
			for _, cmd := range tc.installed {
				if err := os.Symlink(fakeBinary(t), filepath.Join(bin, cmd)); err != nil {
					t.Fatal(err)
				}
			}
			servers, err := MergeServers(DefaultServers(), tc.overrides)
			if err != nil {
				t.Fatal(err)
			}
			for i := range servers {
				servers[i].Args = fakelsp.Args(script, filepath.Join(t.TempDir(), "record.jsonl"))
			}
			m, err := NewManager(Options{Roots: []string{ws}, Servers: servers, Env: []string{"PATH=" + bin},
				Timeouts: Timeouts{Request: Duration(time.Minute), Shutdown: Duration(300 * time.Millisecond), Idle: Duration(-1)}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(t.Context())
			_, err = documentSymbols(t.Context(), m, filepath.Join(ws, "a.py"))
			if tc.want == "" {
				var me *MissingServerError
				i := slices.IndexFunc(servers, func(s ServerConfig) bool { return s.Name == "pyright" })
				if !errors.As(err, &me) || me.Server != "pyright" || me.InstallHint != servers[i].InstallCommand(runtime.GOOS) {
					t.Fatalf("error %v (%+v), want pyright missing with its install command", err, me)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st := m.Servers(); len(st) != 1 || st[0].Name != tc.want {
				t.Fatalf("servers %+v, want %s", st, tc.want)
			}
		})
	}
}
