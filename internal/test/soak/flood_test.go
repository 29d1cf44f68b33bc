package soak

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestFloodThroughBinary pipes initialize and 100,000 requests into the
// acp-lsp binary in front of testdata/agents/flood.py, a single-threaded
// Python agent that never reads while its write blocks and sends a request
// of its own toward the editor for each one: every answer must come back
// both ways and acp-lsp must exit 0 at the end of input (issue 18, item 1:
// 1 to 56 answers came back, then acp-lsp hung until killed, with and
// without -no-lsp).
func TestFloodThroughBinary(t *testing.T) {
	const n = 100000
	exe := acpLSPBinary(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("the flood agent needs python3: %v", err)
	}
	agent := filepath.Join(peers.ModuleRoot(), "testdata", "agents", "flood.py")
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"plain proxy", []string{"-no-lsp"}},
		{"with the lsp stack", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := peerrun.NewEnv(t)
			args := append(append([]string{}, tc.flags...), "--", py, agent)
			cmd := exec.Command(exe, args...)
			cmd.Dir = t.TempDir()
			cmd.Env = env.Vars
			reap.OwnGroup(cmd)
			stderr := &lockedBuf{}
			cmd.Stderr = stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res, err := acptest.Flood(ctx, in, out, n)
			if err != nil {
				_ = reap.KillGroup(cmd.Process)
				cmd.Wait()
				t.Fatalf("%+v: %v\nstderr:\n%s", res, err, stderr)
			}
			if res.AgentAnswers != n {
				t.Errorf("the agent received %d answers to its %d requests", res.AgentAnswers, n)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("acp-lsp at the end of input: %v\nstderr:\n%s", err, stderr)
			}
		})
	}
}
