package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorFlagLimits checks that doctor refuses limits that cannot work
// as a wrong command line (exit 2), as demo does for -timeout, instead of
// reporting every installed server as failing its initialize (-timeout 0)
// or the folder as empty (-max-files 0).
func TestDoctorFlagLimits(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("ACP_LSP_CONFIG", "")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"zero timeout", []string{"doctor", "-timeout", "0", dir}, ExitUsage, "-timeout must be positive"},
		{"negative timeout", []string{"doctor", "-timeout", "-1s", dir}, ExitUsage, "-timeout must be positive"},
		{"zero max files", []string{"doctor", "-max-files", "0", dir}, ExitUsage, "-max-files must be at least 1"},
		{"valid limits", []string{"doctor", "-timeout", "5s", "-max-files", "10", dir}, ExitFailure, "no working language server for go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.stderr, out.String(), errb.String())
			}
		})
	}
}
