package opencodetest

import (
	"context"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/fakemodel"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	MaybeServeMCP()
	goleak.VerifyTestMain(m)
}

// TestOpencodeCallsStdioMCPToolThroughACPX drives real acpx → real opencode
// → fake model → a stdio MCP server that acpx passed in session/new.
func TestOpencodeCallsStdioMCPToolThroughACPX(t *testing.T) {
	model, err := fakemodel.Start(fakemodel.Script{Calls: []fakemodel.Call{
		{Tool: `^tools_echo$`, Arguments: `{"text":"hello from the model"}`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	oc := NewOpencode(t, model)
	x := ACPX{Env: oc.Env, Agent: oc.CommandLine(), MCPServers: []any{MCPStdioServer(t, "tools")}}
	tr, err := x.Exec(context.Background(), t, "please echo something")
	if err != nil {
		t.Fatal(err)
	}
	want := EchoPrefix + "hello from the model"

	calls, order := tr.ToolCalls()
	if len(order) != 1 {
		t.Fatalf("tool calls in transcript: %v, want 1\n%s", order, tr.AgentText())
	}
	c := calls[order[0]]
	if c.Status != "completed" || !strings.Contains(string(c.RawOutput)+c.Text(), want) {
		t.Errorf("tool call %s: status %q, output %s %q; want completed with %q", c.ToolCallID, c.Status, c.RawOutput, c.Text(), want)
	}
	if got := tr.AgentText(); !strings.Contains(got, fakemodel.FinalPrefix+want) {
		t.Errorf("agent text %q does not quote the tool result %q", got, want)
	}
	if tr.StopReason() != "end_turn" {
		t.Errorf("stop reason %q", tr.StopReason())
	}

	var sawOffer, sawResult bool
	for _, r := range model.Requests() {
		sawOffer = sawOffer || r.Offers("tools_echo")
		for _, res := range r.ToolResults() {
			sawResult = sawResult || strings.Contains(res, want)
		}
	}
	if !sawOffer || !sawResult {
		t.Errorf("model saw the tool offered: %v, its result: %v", sawOffer, sawResult)
	}
	oc.RequireNoLeftovers(t)
}
