package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestReferenceDiagnosticsStaleEmptyFails: the reference shape's
// _lsp/diagnostics cannot say "not checked", so an empty list there is a
// clean bill of health, given only by the rule every answer follows
// (lspext.Clean). The empty list a server published while loading, its
// settle window not passed (typescript-language-server publishes its real
// errors a moment later), is stale: the answer is an error saying so, not
// [].
func TestReferenceDiagnosticsStaleEmptyFails(t *testing.T) {
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(script, fakelsp.Script{
		Indexing:     &fakelsp.Indexing{Eager: true, EndAfter: "textDocument/hover", PublishEmpty: true},
		PublishDelay: fakelsp.Duration(time.Hour), // the real errors never come in this test
	}))
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	file := filepath.Join(root, "a.fk")
	must(t, os.WriteFile(file, []byte("func Foo() {}\nvar x = ERROR\n"), 0o644))
	opts := lsp.Options{
		Servers:           []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(script, filepath.Join(dir, "record")), Extensions: []string{"fk"}}},
		DiagnosticsSettle: time.Hour,
	}
	opts.Timeouts.Diagnostics = lsp.Duration(time.Second) // the wait the settle window outlasts
	tc := startChain(t, Config{LSP: opts}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	uri := edit.URIFromPath(file)
	// Opens the file while the server loads (an empty list is published
	// for it); the fake ends the load after answering.
	tc.call(t, 1, "_lsp/hover", fmt.Sprintf(`{"uri":%q,"line":1,"character":6}`, uri), nil)
	m := tc.call(t, 2, "_lsp/diagnostics", fmt.Sprintf(`{"uri":%q}`, uri), nil)
	if m.Error == nil || !strings.Contains(m.Error.Message, "fake: stale") {
		t.Errorf("want an error saying fake's answer is stale, got %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}
