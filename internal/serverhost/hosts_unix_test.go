//go:build unix

package serverhost

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// hostDir is a test's private folder for its hosts (proctest.RuntimeDir):
// at the end every host there is stopped and proved gone with its servers.
func hostDir(t testing.TB) string {
	t.Helper()
	return proctest.RuntimeDir(t)
}

// hostPIDs lists the host processes of dir.
func hostPIDs(t *testing.T, dir string) []int {
	t.Helper()
	procs, err := proctest.Matching(filepath.Join(dir, "h-"))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range procs {
		if strings.Contains(p.Cmdline, " host ") {
			out = append(out, p.Pid)
		}
	}
	return out
}
