package demo_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestDemoShRelativePaths runs scripts/demo.sh from outside the checkout
// with relative -workspace and -script: they name files where it was run,
// as they do for acp-lsp demo itself, not in the checkout the script
// builds in.
func TestDemoShRelativePaths(t *testing.T) {
	peers.Require(t, "gopls")
	here := t.TempDir()
	if err := os.Mkdir(filepath.Join(here, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(here, "calls.txt"), []byte("lsp {\"action\":\"status\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(filepath.Join(here, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(peers.ModuleRoot(), "scripts", "demo.sh"), "-workspace", "ws", "-script", "calls.txt")
	cmd.Dir = here
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/demo.sh: %v\n%s", err, out)
	}
	if want := "  workspace  " + ws + " (used in place"; !strings.Contains(string(out), want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}
