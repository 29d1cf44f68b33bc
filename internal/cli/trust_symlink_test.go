package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustSymlinkedProjectFile: 'acp-lsp config' calls a repository's
// .acp-lsp.toml that is a symlink to a trusted project's file untrusted
// (its relative command would run the repository's own script), and
// 'acp-lsp trust' in the repository records and shows the repository's
// file, not the one it links to.
func TestTrustSymlinkedProjectFile(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	projA, projB := filepath.Join(root, "projA"), filepath.Join(root, "projB")
	fileA, fileB := filepath.Join(projA, ".acp-lsp.toml"), filepath.Join(projB, ".acp-lsp.toml")
	for _, d := range []string{projA, projB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "lsp-wrap.sh"), []byte("echo "+filepath.Base(d)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(fileA, []byte("[servers.wrap]\ncommand = [\"sh\", \"lsp-wrap.sh\"]\nextensions = [\"wrap\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../projA/.acp-lsp.toml", fileB); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("ACP_LSP_CONFIG", "")

	steps := []struct {
		name           string
		args           []string
		stdout, stderr []string // substrings
		notStdout      []string
	}{
		{name: "trust A", args: []string{"trust", projA}, stdout: []string{"trusted " + fileA + " ("}},
		{name: "config A", args: []string{"config", projA}, stdout: []string{"# project file: " + fileA + " (trusted)", "[servers.wrap]"}},
		{name: "config B", args: []string{"config", projB},
			stdout:    []string{"# project file: " + fileB + " (untrusted)"},
			notStdout: []string{"[servers.wrap]"},
			stderr:    []string{"project config " + fileB + " is not trusted", "'acp-lsp trust " + projB + "'"}},
		{name: "trust B", args: []string{"trust", projB}, stdout: []string{"trusted " + fileB + " ("}},
		{name: "list", args: []string{"trust", "-list"}, stdout: []string{fileA + "\ttrusted\t", fileB + "\ttrusted\t"}},
		{name: "config B trusted", args: []string{"config", projB}, stdout: []string{"# project file: " + fileB + " (trusted)", "[servers.wrap]"}},
		{name: "revoke B", args: []string{"trust", "-revoke", projB}, stdout: []string{"no longer trusted: " + fileB}},
		{name: "config A after revoking B", args: []string{"config", projA}, stdout: []string{"# project file: " + fileA + " (trusted)"}},
	}
	for _, s := range steps {
		var out, errb bytes.Buffer
		code := Main(context.Background(), s.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != ExitOK {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", s.name, code, out.String(), errb.String())
		}
		for _, w := range s.stdout {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, w, out.String())
			}
		}
		for _, w := range s.notStdout {
			if strings.Contains(out.String(), w) {
				t.Errorf("%s: stdout has %q:\n%s", s.name, w, out.String())
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", s.name, w, errb.String())
			}
		}
	}
}
