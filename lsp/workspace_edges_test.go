package lsp

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
)

// TestWorkspaceDiagnosticsIDRegisteredTwice: a server that offers
// workspace diagnostics statically and registers the same identifier
// again (as pyright registers "Pyright" twice) is asked once per
// identifier: asked twice, the second answer is "unchanged" against the
// first, and the items reused from it doubled every error.
func TestWorkspaceDiagnosticsIDRegisteredTwice(t *testing.T) {
	s := fakelsp.Script{WorkspaceDiagnostics: true, ClientRequests: []fakelsp.ClientRequest{
		{Method: "client/registerCapability", Params: json.RawMessage(`{"registrations":[{"id":"d1","method":"textDocument/diagnostic","registerOptions":{"identifier":"fakelsp","interFileDependencies":false,"workspaceDiagnostics":true}}]}`)},
	}}
	e := newFaultEnv(t, s, nil)
	e.wantHover() // started, registration in
	rep, err := e.m.WorkspaceDiagnostics(t.Context(), e.root, DiagnosticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || rep.Files[0].Verdict != Fresh || len(messages(t, rep.Files[0].Diagnostics)) != 1 {
		t.Fatalf("report %+v, want a.fk fresh with its one error", rep.Files)
	}
	e.close()
	if reqs := fakelsp.Requests(e.messages(), "workspace/diagnostic"); len(reqs) != 1 {
		t.Fatalf("%d workspace/diagnostic requests, want 1", len(reqs))
	}
}
