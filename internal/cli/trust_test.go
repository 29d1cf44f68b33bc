package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustPrintsWhatItSets checks that 'acp-lsp trust' lists the settings
// the file now applies, wherever the project is; projects usually live in
// the home folder.
func TestTrustPrintsWhatItSets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inHome  bool
		wantOut []string
	}{
		{"project outside home", false, []string{"it sets:", "[tool]", "allow_raw_request = true", "[servers.gopls]", `command = ["gopls", "-remote=auto"]`}},
		{"project in home", true, []string{"it sets:", "[tool]", "allow_raw_request = true", "[servers.gopls]", `command = ["gopls", "-remote=auto"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			ws := filepath.Join(t.TempDir(), "p")
			if tc.inHome {
				ws = filepath.Join(home, "src", "p")
			}
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			pf := filepath.Join(ws, ".acp-lsp.toml")
			if err := os.WriteFile(pf, []byte("[tool]\nallow_raw_request = true\n\n[servers.gopls]\ncommand = [\"gopls\", \"-remote=auto\"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("XDG_STATE_HOME", "")
			t.Setenv("ACP_LSP_CONFIG", "")
			var out, errb bytes.Buffer
			code := Main(context.Background(), []string{"trust", ws}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
