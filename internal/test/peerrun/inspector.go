package peerrun

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// Inspector runs the real MCP Inspector CLI, `inspector --cli ARGS…`, in env
// and its own process group, and returns its stdout (JSON). ARGS name the
// server (a command line, or a URL) and the method, for example
//
//	Inspector(ctx, t, env, bin, "mcp", "--method", "tools/call", "--tool-name", "lsp", "--tool-arg", "action=hover")
//
// The server it spawns does not inherit env: pass "-e", "KEY=VALUE" (also
// "-e", MarkVar+"="+env.Mark for RequireNoLeftovers to see it). A
// non-zero exit is an error carrying stderr.
func Inspector(ctx context.Context, t testing.TB, env *Env, args ...string) ([]byte, error) {
	t.Helper()
	bin := peers.Require(t, "inspector")
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli"}, args...)...)
	cmd.Env, cmd.Dir = env.Vars, env.Dir
	reap.OwnGroup(cmd)
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("inspector --cli: %w\nstderr:\n%s", err, stderr.String())
	}
	return stdout.Bytes(), nil
}
