package config_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/cli"
)

// run runs acp-lsp in-process with HOME and the XDG folders under home.
func run(t *testing.T, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ACP_LSP_") {
			t.Setenv(k, "")
		}
	}
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func TestTrustAndConfigCommands(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	pf := filepath.Join(ws, ".acp-lsp.toml")
	if err := os.WriteFile(pf, []byte("[diagnostics]\ncache_files = 99\n\n[servers.gopls]\ncommand = [\"gopls\", \"-remote=auto\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings
		stderr     []string
		notStdout  []string
		beforeStep func()
	}{
		{name: "untrusted", args: []string{"config", ws}, code: 0,
			stdout:    []string{"(untrusted)", "cache_files = 99", "# " + pf + ":2"},
			notStdout: []string{"[servers.gopls]"},
			stderr:    []string{"acp-lsp config: warning: project config " + pf + " is not trusted", "(servers.gopls)", "'acp-lsp trust " + ws + "'"}},
		{name: "trust", args: []string{"trust", ws}, code: 0,
			stdout: []string{"trusted " + pf + " (sha256 ", "it sets:", `command = ["gopls", "-remote=auto"]`}},
		{name: "trusted", args: []string{"config", ws}, code: 0,
			stdout: []string{"(trusted)", "[servers.gopls]", "# " + pf + ":5"}},
		{name: "list", args: []string{"trust", "-list"}, code: 0, stdout: []string{pf + "\ttrusted\t"}},
		{name: "changed", args: []string{"config", ws}, code: 0,
			beforeStep: func() { appendFile(t, pf, "# edited\n") },
			stdout:     []string{"(changed since trusted)"}, notStdout: []string{"[servers.gopls]"},
			stderr: []string{"changed since it was trusted"}},
		{name: "revoke", args: []string{"trust", "-revoke", ws}, code: 0, stdout: []string{"no longer trusted: " + pf}},
		{name: "broken file refused", args: []string{"trust", ws}, code: 2,
			beforeStep: func() { appendFile(t, pf, "[tool]\npage_sise = 3\n") },
			stderr:     []string{"acp-lsp trust: not trusted, fix the file first:\n" + pf + `:8: unknown key "tool.page_sise" (did you mean "page_size"?)`}},
		{name: "broken file config", args: []string{"config", ws}, code: 2,
			stderr: []string{"acp-lsp config: " + pf + `:8: unknown key "tool.page_sise" (did you mean "page_size"?)`}},
		{name: "flag error", args: []string{"config", "-set", "tool.page_size=0", t.TempDir()}, code: 2,
			stderr: []string{"acp-lsp config: -set tool.page_size: tool.page_size: must be at least 1, got 0"}},
		{name: "keys", args: []string{"config", "-keys"}, code: 0,
			stdout: []string{"diagnostics.settle_window", "ACP_LSP_DIAGNOSTICS_SETTLE_WINDOW"}},
		{name: "no project file", args: []string{"trust", t.TempDir()}, code: 2, stderr: []string{"no .acp-lsp.toml in "}},
		{name: "help", args: []string{"trust", "-h"}, code: 0, stdout: []string{"Examples:", "-revoke"}},
	}
	for _, s := range steps {
		if s.beforeStep != nil {
			s.beforeStep()
		}
		stdout, stderr, code := run(t, home, s.args...)
		if code != s.code {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", s.name, code, s.code, stdout, stderr)
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, w, stdout)
			}
		}
		for _, w := range s.notStdout {
			if strings.Contains(stdout, w) {
				t.Errorf("%s: stdout has %q:\n%s", s.name, w, stdout)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", s.name, w, stderr)
			}
		}
	}
	info, err := os.Stat(filepath.Join(home, ".local", "state", "acp-lsp", "trusted.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("trusted.json: %v %v", info, err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
