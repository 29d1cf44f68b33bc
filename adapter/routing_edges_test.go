package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestWorkspaceRequestAfterBadFile: workspace-wide requests (no uri) reach
// a language's server through a file of the workspace. A file asked about
// that no server can be asked about (outside every root, not on disk), or
// a file deleted since it was used, must not become that file: afterwards
// workspace/symbol still reaches gopls through a file that is there.
func TestWorkspaceRequestAfterBadFile(t *testing.T) {
	peers.Require(t, "gopls")
	hover := func(t *testing.T, tc *testChain, id int, path string) msg {
		uri := edit.URIFromPath(path)
		return tc.call(t, id, "_lsp/request", fmt.Sprintf(`{"uri":%q,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}}`, uri, uri), nil)
	}
	symbols := func(t *testing.T, tc *testChain, id int) msg {
		return tc.call(t, id, "_lsp/request", `{"method":"workspace/symbol","params":{"query":"add"}}`, nil)
	}
	for _, tt := range []struct {
		name string
		// before runs before the workspace-wide request; root is the
		// session folder (main.go declares add), outside is a folder
		// outside every root.
		before func(t *testing.T, tc *testChain, root, outside string)
	}{
		{"asked about a file outside every root", func(t *testing.T, tc *testChain, _, outside string) {
			if m := hover(t, tc, 1, filepath.Join(outside, "x.go")); m.Error == nil {
				t.Fatalf("hover outside every root answered %s", m.Raw)
			}
		}},
		{"asked about a file not on disk", func(t *testing.T, tc *testChain, root, _ string) {
			if m := hover(t, tc, 1, filepath.Join(root, "gone.go")); m.Error == nil {
				t.Fatalf("hover on a missing file answered %s", m.Raw)
			}
		}},
		{"asked about a file deleted since", func(t *testing.T, tc *testChain, root, _ string) {
			b := filepath.Join(root, "b.go")
			must(t, os.WriteFile(b, []byte("package main\n"), 0o644))
			if m := hover(t, tc, 1, b); m.Error != nil {
				t.Fatalf("hover on b.go answered %s", m.Raw)
			}
			must(t, os.Remove(b))
		}},
		{"asked about the folder's file, moved since", func(t *testing.T, tc *testChain, root, _ string) {
			if m := hover(t, tc, 1, filepath.Join(root, "main.go")); m.Error != nil {
				t.Fatalf("hover on main.go answered %s", m.Raw)
			}
			if m := symbols(t, tc, 3); m.Error != nil {
				t.Fatalf("first workspace/symbol answered %s", m.Raw)
			}
			must(t, os.Rename(filepath.Join(root, "main.go"), filepath.Join(root, "moved.go")))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, _ := goWorkspace(t)
			outside, err := filepath.EvalSymlinks(t.TempDir())
			must(t, err)
			tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, false)
			tc.initialize(t, "", "")
			tc.newSession(t, root)
			tt.before(t, tc, root, outside)
			if m := symbols(t, tc, 2); m.Error != nil || !strings.Contains(string(m.Result), `"name":"add"`) {
				t.Errorf("workspace/symbol answered %s", m.Raw)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
		})
	}
}

// TestSpellingNotConfirmedByNull: the spelling used for every later call
// is one that gave a non-null answer (docs/protocol.md §5). An editor
// that refuses one method with -32601 and, like old Rust SDKs, answers
// null for the other spelling it does not know has not shown that spelling
// to work: its next request still goes out in the spelling it answers.
func TestSpellingNotConfirmedByNull(t *testing.T) {
	for _, tt := range []struct {
		name string
		// answer is the editor's answer per method name.
		answer map[string]reply
		want   []string
	}{
		{"underscore editor, null for unknown methods",
			map[string]reply{"_lsp/codeActions": {code: -32601, msg: "not implemented"}, "_lsp/hover": {result: `{"contents":"h"}`}},
			[]string{"_lsp/codeActions", "lsp/codeActions", "_lsp/hover"}},
		{"bare editor, confirmed by its answer",
			map[string]reply{"lsp/codeActions": {result: `[]`}, "lsp/hover": {result: `{"contents":"h"}`}},
			[]string{"_lsp/codeActions", "lsp/codeActions", "lsp/hover"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tc := startChain(t, Config{NoLocal: true}, false)
				tc.initialize(t, `{"lsp":true}`, "")
				se := tc.runEditor(func(m msg) reply {
					if r, ok := tt.answer[m.Method]; ok {
						return r
					}
					if strings.HasPrefix(m.Method, "lsp/") {
						return reply{result: "null"} // unknown to an old Rust SDK
					}
					return reply{code: -32601, msg: "Method not found"}
				})
				tc.call(t, 1, "_lsp/codeActions", `{"uri":"file:///w/a.go","range":{"start":{"line":1,"character":1},"end":{"line":1,"character":1}},"diagnostics":[]}`, nil)
				if m := tc.call(t, 2, "_lsp/hover", `{"uri":"file:///w/a.go","line":1,"character":1}`, nil); m.Error != nil || string(m.Result) != `{"contents":"h"}` {
					t.Errorf("hover answered %s", m.Raw)
				}
				synctest.Wait()
				if got := se.methods(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("editor was sent %v, want %v", got, tt.want)
				}
				tc.cancel()
				<-se.done
			})
		})
	}
}

// TestChainOfferThroughPassthrough: without local servers, the reference
// methods an editor answers through its raw passthrough (all but
// _lsp/diagnostics, which the adapter answers from the editor's own
// method or local servers only) are offered to the agent, since the
// adapter does answer them there; without either source they are not.
func TestChainOfferThroughPassthrough(t *testing.T) {
	for _, tt := range []struct {
		name, meta   string
		want, absent []string
	}{
		{"passthrough only", `{"lsp":{"methods":["_lsp/request"]}}`,
			[]string{"_lsp/hover", "_lsp/definition", "_lsp/references", "_lsp/documentSymbols", "_lsp/workspaceSymbol", "_lsp/codeActions"}, []string{"_lsp/diagnostics"}},
		{"bare passthrough and diagnostics", `{"lsp":{"methods":["lsp/request","lsp/diagnostics"]}}`,
			[]string{"_lsp/hover", "_lsp/codeActions", "_lsp/diagnostics"}, nil},
		{"nothing", "", nil, []string{"_lsp/hover", "_lsp/diagnostics"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, Config{NoLocal: true}, false)
			atAgent, _ := tc.initialize(t, tt.meta, "")
			offered := agentOffer(t, atAgent.Params).Methods
			for _, m := range tt.want {
				if !slices.Contains(offered, m) {
					t.Errorf("agent not offered %s: %v", m, offered)
				}
			}
			for _, m := range tt.absent {
				if slices.Contains(offered, m) {
					t.Errorf("agent offered %s with nobody to answer it: %v", m, offered)
				}
			}
		})
	}
}

// TestRestartFallsBackOnMethodNotFound: an editor that answers files
// through its passthrough but refuses _lsp/restart with -32601 in both
// spellings has that restart fall back to the local server handling the
// file, for that very call, as every method the editor refuses does
// (docs/adapter.md); a server named as the editor's is still refused.
func TestRestartFallsBackOnMethodNotFound(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{})
	uri := edit.URIFromPath(file)
	for _, tt := range []struct {
		name, params string
		// wantCode is the error code expected, 0 for the result null.
		wantCode int
	}{
		{"by file", fmt.Sprintf(`{"uri":%q}`, uri), 0},
		{"the editor's server", `{"server":"editor:fake"}`, proxy.CodeMethodNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
			tc.initialize(t, `{"lsp":{"methods":["_lsp/request","_lsp/restart"]}}`, "")
			tc.newSession(t, root)
			se := tc.runEditor(func(m msg) reply { return reply{code: -32601, msg: "Method not found"} })
			m := tc.call(t, 1, "_lsp/restart", tt.params, nil)
			switch {
			case tt.wantCode == 0 && (m.Error != nil || string(m.Result) != "null"):
				t.Errorf("restart answered %s, want null", m.Raw)
			case tt.wantCode != 0 && (m.Error == nil || m.Error.Code != tt.wantCode):
				t.Errorf("restart answered %s, want error %d", m.Raw, tt.wantCode)
			}
			if got := se.methods(); fmt.Sprint(got) != "[_lsp/restart lsp/restart]" {
				t.Errorf("editor was sent %v", got)
			}
			tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
			<-se.done
		})
	}
}
