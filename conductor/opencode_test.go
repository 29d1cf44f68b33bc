package conductor

import (
	"context"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
)

// TestACPXOpencodeThroughACPLSP drives real acpx → acp-lsp (wrapper, and
// conductor with two proxies) → real opencode → fake model, which calls a
// tool of the stdio MCP server acpx passed in session/new.
func TestACPXOpencodeThroughACPLSP(t *testing.T) {
	t.Parallel()
	for name, front := range map[string]func(acplsp string) string{
		"wrapper": func(acplsp string) string { return acplsp + " --" },
		"conductor": func(acplsp string) string {
			return acplsp + " conductor --proxy '" + acplsp + " proxy' --proxy '" + acplsp + " proxy' --"
		},
	} {
		// Serial: opencode is CPU-bound, two at once on two cores only
		// slow each other down; the test as a whole runs in parallel with
		// the others, which mostly wait for their agents.
		t.Run(name, func(t *testing.T) {
			b := linkBins(t)
			model, err := fakemodel.Start(fakemodel.Script{Calls: []fakemodel.Call{
				{Tool: `^tools_echo$`, Arguments: `{"text":"through acp-lsp"}`},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			oc := peerrun.NewOpencode(t, model)
			x := peerrun.ACPX{Env: oc.Env, Agent: front(b.acplsp) + " " + oc.CommandLine(), MCPServers: []any{peerrun.MCPStdioServer(t, "tools")}}
			tr, err := x.Exec(context.Background(), t, "please echo something")
			if err != nil {
				t.Fatal(err)
			}
			want := peerrun.EchoPrefix + "through acp-lsp"
			calls, order := tr.ToolCalls()
			if len(order) != 1 {
				t.Fatalf("tool calls: %v, want 1\n%s", order, tr.AgentText())
			}
			if c := calls[order[0]]; c.Status != "completed" || !strings.Contains(string(c.RawOutput)+c.Text(), want) {
				t.Errorf("tool call: status %q output %s %q, want completed with %q", c.Status, c.RawOutput, c.Text(), want)
			}
			if tr.StopReason() != "end_turn" {
				t.Errorf("stop reason %q", tr.StopReason())
			}
			oc.RequireNoLeftovers(t)
		})
	}
}
