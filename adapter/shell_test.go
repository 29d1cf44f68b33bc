package adapter

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestShellEditThroughChain: an agent changes a.go's function signature
// by shell (nothing goes through ACP) and at once asks, through the chain,
// for the diagnostics of b.go, which calls it: gopls's error is there,
// fresh; undone the same way, it is gone.
func TestShellEditThroughChain(t *testing.T) {
	peers.Require(t, "gopls")
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	const oldA = "package main\n\nfunc twice(x int) int { return 2 * x }\n"
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/shell\n\ngo 1.22\n"), 0o644))
	must(t, os.WriteFile(a, []byte(oldA), 0o644))
	must(t, os.WriteFile(b, []byte("package main\n\nfunc main() { println(twice(2)) }\n"), 0o644))
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	report := func(id int) lspext.DiagnosticReportResult {
		t.Helper()
		m := tc.call(t, id, "_lsp/diagnosticReport", fmt.Sprintf(`{"uris":[%q],"wait":180000}`, edit.URIFromPath(b)), nil)
		if m.Error != nil {
			t.Fatalf("diagnostics: %s", m.Raw)
		}
		var rep lspext.DiagnosticReportResult
		must(t, json.Unmarshal(m.Result, &rep))
		if len(rep.Servers) != 1 || rep.Servers[0].Verdict != lspext.VerdictFresh {
			t.Fatalf("diagnostics not fresh: %s", m.Raw)
		}
		return rep
	}
	if rep := report(1); string(rep.Files[0].Diagnostics) != "[]" {
		t.Fatalf("b.go before: %s", rep.Files[0].Diagnostics)
	}
	must(t, os.WriteFile(a, []byte("package main\n\nfunc twice(x, y int) int { return 2 * x * y }\n"), 0o644))
	if rep := report(2); !strings.Contains(string(rep.Files[0].Diagnostics), "not enough arguments in call to twice") {
		t.Fatalf("b.go after a.go changed by shell: %s", rep.Files[0].Diagnostics)
	}
	must(t, os.WriteFile(a, []byte(oldA), 0o644))
	if rep := report(3); string(rep.Files[0].Diagnostics) != "[]" {
		t.Fatalf("b.go after a.go was restored by shell: %s", rep.Files[0].Diagnostics)
	}
}
