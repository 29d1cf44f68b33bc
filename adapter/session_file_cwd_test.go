package adapter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestSessionFileCwdIsNoRoot: a session whose cwd, or one of whose
// additionalDirectories, is a regular file adds no workspace root, so it
// does not poison the folder's other sessions: a file there is served by
// a server rooted at the folder (the file as root used to be the deepest
// root, the server's working directory, and every start failed with
// "fork/exec …: not a directory").
func TestSessionFileCwdIsNoRoot(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{})
	for _, tt := range []struct {
		name string
		// setups are the params of the session/new requests, in order.
		setups []string
	}{
		{"a session with a file cwd, then one with its folder", []string{
			fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, file),
			fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, root),
		}},
		{"a file among additionalDirectories", []string{
			fmt.Sprintf(`{"cwd":%q,"additionalDirectories":[%q],"mcpServers":[]}`, root, file),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
			tc.initialize(t, "", "")
			for i, params := range tt.setups {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":%s}`, 10+i, params)
				tc.Editor.Sendf(t, "%s", line)
				if m := tc.Agent.Next(t); strings.TrimRight(m.Raw, "\n") != line {
					t.Errorf("agent got %s, want %s", m.Raw, line)
				}
			}
			uri := edit.URIFromPath(file)
			m := tc.call(t, 1, "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":6}}}`, uri, uri), nil)
			if m.Error != nil || !strings.Contains(string(m.Result), fakelsp.HoverPrefix) {
				t.Errorf("hover answered %s", m.Raw)
			}
			m = tc.call(t, 2, "_lsp/status", `{}`, nil)
			if !strings.Contains(string(m.Result), `"root":`+mustJSON(root)) || strings.Contains(string(m.Result), mustJSON(file)) {
				t.Errorf("status %s, want the server rooted at %s", m.Raw, root)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
		})
	}
}
