package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes checks the exit codes README.md documents: 0 success, 1 a
// command that ran and failed, 2 a wrong command line or configuration.
func TestExitCodes(t *testing.T) {
	emptyBin := t.TempDir()
	goDir := t.TempDir()
	os.WriteFile(filepath.Join(goDir, "main.go"), []byte("package main\n"), 0o644)
	brokenCfg := t.TempDir()
	os.MkdirAll(filepath.Join(brokenCfg, "acp-lsp"), 0o755)
	os.WriteFile(filepath.Join(brokenCfg, "acp-lsp", "config.toml"), []byte("[log]\nlevel = \"loud\"\n"), 0o644)

	for _, tc := range []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr string
	}{
		{"no command", nil, nil, ExitUsage, "Usage:"},
		{"help", []string{"--help"}, nil, ExitOK, ""},
		{"command help", []string{"demo", "-h"}, nil, ExitOK, ""},
		{"version", []string{"--version"}, nil, ExitOK, ""},
		{"unknown command", []string{"frobnicate"}, nil, ExitUsage, `unknown command "frobnicate"`},
		{"unknown flag", []string{"demo", "-nope"}, nil, ExitUsage, "flag provided but not defined: -nope"},
		{"wrapper without agent", []string{"run"}, nil, ExitUsage, "missing the agent command"},
		{"message limit zero", []string{"-max-message-mib", "0", "--", "cat"}, nil, ExitUsage, "-max-message-mib must be between 1 and 4096"},
		{"message limit huge", []string{"-max-message-mib", "99999999999999", "--", "cat"}, nil, ExitUsage, "-max-message-mib must be between 1 and 4096"},
		{"broken config", []string{"config", t.TempDir()}, map[string]string{"XDG_CONFIG_HOME": brokenCfg}, ExitUsage, `log.level: invalid value "loud"`},
		{"agent binary missing", []string{"--", filepath.Join(emptyBin, "no-such-agent")}, nil, ExitFailure, "no-such-agent"},
		{"demo without gopls", []string{"demo"}, map[string]string{"PATH": emptyBin}, ExitFailure, "gopls, the Go language server the demo's workspace needs, is not installed (not found on PATH); install it with:\n  go install golang.org/x/tools/gopls@v0.23.0\n"},
		{"doctor with a server missing", []string{"doctor", goDir}, map[string]string{"PATH": emptyBin}, ExitFailure, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			code := Main(context.Background(), tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}
