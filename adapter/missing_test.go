package adapter

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestMissingServerNamed: with a PATH lacking gopls, every answer about a
// Go file names the server, the program and how to install it: the
// diagnostics verdict of the file and of the whole workspace (never an
// empty report, which would read as "no problems"), a request's error,
// a workspace-wide request's error, and the status.
func TestMissingServerNamed(t *testing.T) {
	root, main := goWorkspace(t)
	env := []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	tc := startChain(t, Config{LSP: lsp.Options{Env: env}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	uri := edit.URIFromPath(main)
	wants := []string{"gopls", `program "gopls" not found`, "go install golang.org/x/tools/gopls"}
	has := func(t *testing.T, what, s string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(s, w) {
				t.Errorf("%s lacks %q: %s", what, w, s)
			}
		}
	}
	for i, c := range []struct{ name, params string }{
		{"file", fmt.Sprintf(`{"uris":[%q],"wait":5000}`, uri)},
		{"workspace", `{"wait":5000}`},
	} {
		t.Run("diagnostics of the "+c.name, func(t *testing.T) {
			m := tc.call(t, 10+i, "_lsp/diagnosticReport", c.params, nil)
			if m.Error != nil {
				t.Fatalf("error %+v", m.Error)
			}
			var rep lspext.DiagnosticReportResult
			must(t, json.Unmarshal(m.Result, &rep))
			found := false
			for _, v := range rep.Servers {
				if v.Server == "gopls" {
					found = true
					if v.Verdict != lspext.VerdictFailed {
						t.Errorf("gopls verdict %q, want failed", v.Verdict)
					}
					has(t, "gopls's detail", v.Detail)
				}
			}
			if !found {
				t.Fatalf("no verdict for gopls: %s", m.Result)
			}
		})
	}
	t.Run("request", func(t *testing.T) {
		m := tc.call(t, 20, "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":4,"character":5}}}`, uri, uri), nil)
		if m.Error == nil {
			t.Fatalf("hover answered %s", m.Result)
		}
		has(t, "hover's error", m.Error.Message)
	})
	t.Run("workspace symbols", func(t *testing.T) {
		m := tc.call(t, 22, "_lsp/request", `{"method":"workspace/symbol","params":{"query":"main"}}`, nil)
		if m.Error == nil {
			t.Fatalf("workspace symbols answered %s", m.Result)
		}
		has(t, "workspace symbols' error", m.Error.Message)
	})
	t.Run("status", func(t *testing.T) {
		m := tc.call(t, 21, "_lsp/servers", fmt.Sprintf(`{"uri":%q}`, uri), nil)
		var res lspext.ServersResult
		must(t, json.Unmarshal(m.Result, &res))
		if len(res.Servers) != 1 || res.Servers[0].State != "not_installed" {
			t.Fatalf("servers: %s, want gopls not_installed", m.Result)
		}
		has(t, "the status's last error", res.Servers[0].LastError)
	})
}
