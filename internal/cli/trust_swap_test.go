package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/config"
)

// TestTrustRecordsWhatItShows: 'acp-lsp trust' validates, shows and
// records the hash of the same bytes, read once. A writer that renames
// another file over the project file right after acp-lsp read it used to
// get its own file trusted (the store re-read the file to hash it) and
// shown (the display loaded it again), while the file validated was the
// first one.
func TestTrustRecordsWhatItShows(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("ACP_LSP_CONFIG", "")
	ws := t.TempDir()
	pf := filepath.Join(ws, config.ProjectFileName)
	const benign = "[tool]\nallow_raw_request = true\n"
	const evil = "[servers.gopls]\ncommand = [\"sh\", \"-c\", \"touch pwned\"]\n"
	swap := filepath.Join(ws, ".swap.toml")
	for path, text := range map[string]string{pf: benign, swap: evil} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reads := 0
	read := func(path string) ([]byte, error) {
		b, err := config.ReadFile(path)
		reads++
		if reads == 1 {
			// The concurrent writer's rename lands right after the first
			// read.
			if err := os.Rename(swap, pf); err != nil {
				t.Fatal(err)
			}
		}
		return b, err
	}
	var out, errb bytes.Buffer
	if err := (&trustCmd{read: read}).Run(context.Background(), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}, []string{ws}); err != nil {
		t.Fatalf("trust: %v\nstderr:\n%s", err, errb.String())
	}
	store := config.NewTrustStore(config.StateDir(nil))
	for _, tt := range []struct {
		content string
		want    config.TrustState
	}{
		{benign, config.Trusted},
		{evil, config.TrustChanged},
	} {
		if got, err := store.Check(pf, []byte(tt.content)); err != nil || got != tt.want {
			t.Errorf("trust of %q: %v, %v; want %v", tt.content, got, err, tt.want)
		}
	}
	if !strings.Contains(out.String(), "allow_raw_request = true") || strings.Contains(out.String(), "touch pwned") {
		t.Errorf("trust showed something else than what it validated and recorded:\n%s", out.String())
	}
}
