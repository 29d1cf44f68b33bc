package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
)

// TestDoctorAgent runs `acp-lsp doctor -agent` with real agents: opencode
// and acp-lsp's scripted agent open the lsp tool given in session/new
// (exit 0), the ACP Go SDK's example agent, which drops mcpServers as
// several agents do, never does (exit 1, and the report says what to
// try). No prompt is sent, so no model is asked.
func TestDoctorAgent(t *testing.T) {
	exe := peerrun.BuildACPLSP(t)
	sdkAgent := filepath.Join(t.TempDir(), "sdk-agent")
	if out, err := exec.Command("go", "build", "-o", sdkAgent, "github.com/coder/acp-go-sdk/example/agent").CombinedOutput(); err != nil {
		t.Fatalf("go build the SDK's example agent: %v\n%s", err, out)
	}
	model, err := fakemodel.Start(fakemodel.Script{Reply: "unused"})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	oc := peerrun.NewOpencode(t, model)
	work := filepath.Join(oc.Dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	// No file a language server serves: the report is about the agent.
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		agent  string
		code   int
		want   []string
		absent string
	}{
		{"opencode", strings.Join(oc.Argv(), " "), 0, []string{"Agent OpenCode ", "opened the lsp tool (an MCP server over http)"}, "has not opened"},
		{"scripted agent", exe + " agent", 0, []string{"Agent acp-lsp-scripted-agent", "opened the lsp tool (an MCP server over http)"}, "has not opened"},
		{"agent dropping mcpServers", sdkAgent, 1, []string{"has not opened the lsp tool (an MCP server over stdio) within 3s", `try mcp.transport = "http"`}, "\n  opened the lsp tool ("},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(exe, "doctor", "-agent-wait", "3s", "-agent", c.agent, work)
			cmd.Env = oc.Vars
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out.String(), errOut.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), c.absent) {
				t.Errorf("stdout has %q:\n%s", c.absent, out.String())
			}
			if t.Failed() {
				t.Logf("stderr:\n%s", errOut.String())
			}
		})
	}
	oc.RequireNoLeftovers(t)
}
