package cli

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestDoctor runs doctor with PATH holding only the pinned gopls and the
// go tool: Go is served (path, version, a live initialize), Python's
// servers are missing with their install hints and make the exit code 1,
// and every registered server is listed, found or not.
func TestDoctor(t *testing.T) {
	peers.Require(t, "gopls")
	gopls, err := peers.Find("gopls")
	if err != nil {
		t.Fatal(err)
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin")
	// gopls alone in a folder: the peers' folder holds other servers too.
	bin := t.TempDir()
	if err := os.Symlink(gopls, filepath.Join(bin, filepath.Base(gopls))); err != nil {
		t.Fatal(err)
	}
	gopls = filepath.Join(bin, filepath.Base(gopls))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+goBin)
	// The user's configuration adds a server for *.fk whose program is
	// not installed; nothing else of the real user's setup leaks in.
	cfgDir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	t.Setenv("ACP_LSP_CONFIG", "")
	if err := os.MkdirAll(filepath.Join(cfgDir, "acp-lsp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "acp-lsp", "config.toml"), []byte("[servers.fakels]\ncommand = [\"fakels-not-installed\", \"--stdio\"]\nextensions = [\"fk\"]\nlanguage_id = \"fake\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	write := func(dir string, files map[string]string) {
		for name, text := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	goFiles := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n",
		"node_modules/x/skip.py": "skipped\n", ".hidden/skip.py": "skipped\n"}
	for _, tc := range []struct {
		name   string
		files  map[string]string
		fail   bool     // exit code 1
		want   []string // lines (substrings) in the output
		reject []string
	}{
		{"go only", goFiles, false, []string{
			"go: 2 files", // main.go and go.mod
			"gopls " + strings.Repeat(" ", 23) + gopls + " (golang.org/x/tools/gopls v0.23.0",
			"initialize ok",
			"position encoding utf-",
			"file watching: inotify over 2 folders (limit 10000)", // the folder and .hidden; node_modules is skipped
		}, []string{"python:"}},
		{"go and python", merge(goFiles, map[string]string{"tool/a.py": "x = 1\n", "tool/b.py": "y = 2\n"}), true, []string{
			"go: 2 files", // main.go and go.mod
			"python: 2 files",
			"pyright                      not installed (pyright-langserver); install: npm install -g pyright",
			"pylsp                        not installed (pylsp); install: ",
		}, nil},
		{"nothing known", map[string]string{"README": "hello\n"}, false, []string{"no file any known language server handles"}, []string{"initialize"}},
		{"configured server", merge(goFiles, map[string]string{"a.fk": "x\n"}), true, []string{
			"fake: 1 files",
			"fakels                       not installed (fakels-not-installed); install it and put it on PATH",
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(dir, tc.files)
			var out, errOut bytes.Buffer
			cmd := &doctorCmd{maxFiles: 1000, timeout: 2 * time.Minute}
			err := cmd.Run(t.Context(), Stdio{Out: &out, Err: &errOut}, []string{dir})
			var ee exitError
			if tc.fail != (err != nil) || (tc.fail && (!errors.As(err, &ee) || ee.code != ExitFailure || !strings.Contains(err.Error(), "no working language server for"))) {
				t.Fatalf("doctor: %v, want failure %v\n%s", err, tc.fail, out.String())
			}
			text := out.String()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			for _, r := range tc.reject {
				if strings.Contains(text, r) {
					t.Errorf("output has %q:\n%s", r, text)
				}
			}
			// Every registered server is listed once in the registry part.
			_, reg, ok := strings.Cut(text, "\nregistered servers:\n")
			if !ok {
				t.Fatalf("no registry listing:\n%s", text)
			}
			for _, s := range append(lsp.DefaultServers(), lsp.ServerConfig{Name: "fakels", InstallHint: "install it and put it on PATH"}) {
				line := ""
				for l := range strings.Lines(reg) {
					if strings.HasPrefix(strings.TrimSpace(l), s.Name+" ") {
						line = l
					}
				}
				switch {
				case s.Name == "gopls":
					if !strings.Contains(line, gopls) {
						t.Errorf("registry line for gopls %q lacks its path", line)
					}
				case !strings.Contains(line, "not installed") || !strings.Contains(line, s.InstallCommand(runtime.GOOS)):
					t.Errorf("registry line for %s %q lacks 'not installed' and the hint %q", s.Name, line, s.InstallCommand(runtime.GOOS))
				}
			}
		})
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}
