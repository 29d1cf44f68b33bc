package adapter

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestDiagnosticReportNoWait: `_lsp/diagnosticReport` with a negative wait
// answers from local servers without waiting (the component sends -1 for
// diagnostics.wait_budget = "0s"), each server with its verdict: -1 is
// not read as "absent", which would wait for the default.
func TestDiagnosticReportNoWait(t *testing.T) {
	for _, tt := range []struct {
		name    string
		script  fakelsp.Script
		before  string // a request sent first, or ""
		verdict string
	}{
		{"not running yet: starting", fakelsp.Script{}, "", lspext.VerdictStarting},
		{"reported: fresh", fakelsp.Script{}, `_lsp/diagnosticReport {"uris":[%q],"wait":60000}`, lspext.VerdictFresh},
		{"never reports: timeout", fakelsp.Script{Diagnostics: fakelsp.DiagNone},
			`_lsp/request {"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%[1]q},"position":{"line":0,"character":6}}}`, lspext.VerdictTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, file, servers := fakeWorkspace(t, tt.script)
			opts := lsp.Options{Servers: servers}
			// The default wait is short, so that reading -1 as "absent"
			// fails fast, on the verdict or its detail.
			opts.Timeouts.Diagnostics = lsp.Duration(2 * time.Second)
			opts.Timeouts.Shutdown = lsp.Duration(100 * time.Millisecond)
			tc := startChain(t, Config{LSP: opts}, false)
			tc.initialize(t, "", "")
			tc.newSession(t, root)
			uri := edit.URIFromPath(file)
			if tt.before != "" {
				method, params, _ := strings.Cut(tt.before, " ")
				if m := tc.call(t, 1, method, fmt.Sprintf(params, uri), nil); m.Error != nil {
					t.Fatalf("%s: %s", method, m.Raw)
				}
			}
			m := tc.call(t, 2, "_lsp/diagnosticReport", fmt.Sprintf(`{"uris":[%q],"wait":-1}`, uri), nil)
			var rep lspext.DiagnosticReportResult
			must(t, json.Unmarshal(m.Result, &rep))
			if len(rep.Servers) != 1 || rep.Servers[0].Verdict != tt.verdict {
				t.Fatalf("want one server with verdict %s: %s", tt.verdict, m.Raw)
			}
			if v := rep.Servers[0]; v.Verdict != lspext.VerdictFresh && !strings.Contains(v.Detail, "without waiting") {
				t.Errorf("detail %q does not say the answer did not wait", v.Detail)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
		})
	}
}
