package peerrun

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// BuildACPLSP builds cmd/acp-lsp from this checkout into a folder of the
// test and returns the binary's path. It costs one link (the build cache
// makes the rest cheap); build once per test that needs a real acp-lsp
// process.
func BuildACPLSP(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "acp-lsp")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/acp-lsp")
	cmd.Dir = peers.ModuleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/acp-lsp: %v\n%s", err, b)
	}
	return out
}
