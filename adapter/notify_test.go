package adapter

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestEditorNotificationsDown checks that the editor's notifications, in
// both spellings, travel down unchanged, and carry the forward marker
// only when the agent advertised them or ForwardToAgent is set.
func TestEditorNotificationsDown(t *testing.T) {
	const (
		publish = `{"jsonrpc":"2.0","method":"lsp/publishDiagnostics","params":{"uri":"file:///w/a.go","diagnostics":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"severity":1,"message":"pushed"}]}}`
		save    = `{"jsonrpc":"2.0","method":"_lsp/didSave","params":{"uri":"file:///w/a.go"}}`
	)
	for _, tt := range []struct {
		name                     string
		agentMeta                string
		forward                  bool
		markPublish, markDidSave bool
	}{
		{"agent did not advertise", "", false, false, false},
		{"agent advertised publishDiagnostics", `{"lsp":{"notifications":["lsp/publishDiagnostics"]}}`, false, true, false},
		{"agent advertised true", `{"lsp":true}`, false, true, true},
		{"forward configured", "", true, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, Config{ForwardToAgent: tt.forward, NoLocal: true}, false)
			tc.initialize(t, "", tt.agentMeta)
			for _, c := range []struct {
				line string
				mark bool
			}{{publish, tt.markPublish}, {save, tt.markDidSave}} {
				tc.Editor.Sendf(t, "%s", c.line)
				m := tc.Agent.Next(t)
				got := strings.TrimRight(m.Raw, "\n")
				if !c.mark && got != c.line {
					t.Errorf("agent got %s, want it unchanged", got)
				}
				if c.mark {
					if !strings.Contains(got, `"_meta":{"acp-lsp/forwardToAgent":true}`) || !strings.Contains(got, `"uri":"file:///w/a.go"`) {
						t.Errorf("agent got %s, want it marked for the agent", got)
					}
				}
			}
		})
	}
}

// TestLocalResync shows local servers kept fresh by what happens outside
// the tool: after gopls is running, the file is fixed on disk and the
// editor says lsp/didSave, then broken again through the agent's
// fs/write_text_file confirmed by the editor. Each time gopls's new
// diagnostics arrive downstream as native _lsp/publishDiagnostics without
// any request.
func TestLocalResync(t *testing.T) {
	peers.Require(t, "gopls")
	root, main := goWorkspace(t)
	uri := edit.URIFromPath(main)
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	var notes []msg
	if m := tc.call(t, 10, "_lsp/diagnosticReport", fmt.Sprintf(`{"uris":[%q],"wait":90000}`, uri), &notes); !strings.Contains(string(m.Result), "not enough arguments") {
		t.Fatalf("report: %s", m.Raw)
	}
	// awaitPublish waits for gopls's publish for main.go whose
	// diagnostics satisfy ok, and for the response with id (if any).
	awaitPublish := func(id string, ok func(diags string) bool) {
		t.Helper()
		published, answered := false, id == ""
		for !published || !answered {
			m := tc.Agent.Next(t)
			if m.Method == "" && string(m.ID) == id {
				answered = true
				continue
			}
			if lspext.Is(m.Method, lspext.DidSave) {
				continue // the editor's, passed down (a component consumes it)
			}
			if m.Method != lspext.PublishDiagnostics {
				t.Fatalf("agent got %s", m.Raw)
			}
			var p lspext.PublishDiagnosticsParams
			must(t, json.Unmarshal(m.Params, &p))
			if p.URI == uri && p.Native && p.Server == "gopls" && ok(string(p.Diagnostics)) {
				published = true
			}
		}
	}

	fixed := strings.Replace(brokenGo, "add(3)", "add(3, 4)", 1)
	must(t, os.WriteFile(main, []byte(fixed), 0o644))
	tc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"lsp/didSave","params":{"uri":%q}}`, uri)
	awaitPublish("", func(d string) bool { return d == "[]" })

	// The agent writes the broken text back through the editor, which
	// confirms; local servers resync.
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":20,"method":"fs/write_text_file","params":{"sessionId":"S1","path":%q,"content":%s}}`, main, mustJSON(brokenGo))
	w, _ := tc.Editor.NextMethod(t, "fs/write_text_file")
	must(t, os.WriteFile(main, []byte(brokenGo), 0o644))
	tc.Editor.Sendf(t, `{"jsonrpc":"2.0","id":%s,"result":null}`, w.ID)
	awaitPublish("20", func(d string) bool { return strings.Contains(d, "not enough arguments") })
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}

// TestEditorDiagnosticsReachComponent: diagnostics the editor pushes (bare
// spelling, 1-based) travel through the adapter into the component's
// cache: after the agent wrote the file, the next prompt carries them.
func TestEditorDiagnosticsReachComponent(t *testing.T) {
	root, main := goWorkspace(t)
	uri := edit.URIFromPath(main)
	tc := startChain(t, Config{NoLocal: true}, true)
	tc.initialize(t, `{"lsp":{"notifications":["lsp/publishDiagnostics"]}}`, "")
	tc.newSession(t, root)
	tc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[{"range":{"start":{"line":8,"character":25},"end":{"line":8,"character":31}},"severity":1,"message":"EDITOR pushed"}]}}`, uri)
	tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":30,"method":"fs/write_text_file","params":{"sessionId":"S1","path":%q,"content":%s}}`, main, mustJSON(brokenGo))
	w := tc.Editor.Next(t)
	if w.Method != "fs/write_text_file" {
		t.Fatalf("editor got %s", w.Raw)
	}
	tc.Editor.Sendf(t, `{"jsonrpc":"2.0","id":%s,"result":null}`, w.ID)
	if r := tc.Agent.Next(t); string(r.ID) != "30" {
		t.Fatalf("agent got %s", r.Raw)
	}
	tc.Editor.Sendf(t, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"go on"}]}}`)
	p := tc.Agent.Next(t)
	if p.Method != "session/prompt" || !strings.Contains(string(p.Params), "main.go:8:25: error: EDITOR pushed") {
		t.Errorf("agent got %s", p.Raw)
	}
}
