package component

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestSessionCwdNotAFolder: a session whose cwd is not a folder (a
// regular file, a symlink to one, a missing path, a relative one, a
// symlink loop) gets no lsp tool: its setup request reaches the agent
// byte for byte, and a warning says why. A file cwd used to get a tool
// whose workspace was the file.
func TestSessionCwdNotAFolder(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	linkToFile, loop := filepath.Join(dir, "file-link"), filepath.Join(dir, "loop")
	if err := os.Symlink(file, linkToFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, cwd, why string
	}{
		{"a regular file", file, "not a folder"},
		{"a symlink to a file", linkToFile, "not a folder"},
		{"a missing path", filepath.Join(dir, "missing"), "no such file or directory"},
		{"a relative path", "rel/dir", "not an absolute path"},
		{"a symlink loop", loop, "too many links"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := NewStage(Config{Executable: "/bin/acp-lsp"})
			if err != nil {
				t.Fatal(err)
			}
			var logs syncbuf.Buffer
			editor, cep := pipeEnd()
			agent, aep := pipeEnd()
			runChainConfig(t, editor, agent, proxy.Config{Client: cep, Agent: aep, Stages: []proxy.Stage{st},
				Logger: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
			agent.recv(t)
			agent.send(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}}`)
			editor.recv(t)
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, tt.cwd)
			editor.send(t, line)
			ctx, cancel := context.WithTimeout(context.Background(), chainWait)
			defer cancel()
			m, err := agent.Recv(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimRight(m.Raw, "\n"); got != line {
				t.Errorf("agent got %s, want %s", got, line)
			}
			var warned bool
			for l := range strings.Lines(logs.String()) {
				warned = warned || strings.Contains(l, "level=WARN") && strings.Contains(l, "lsp tool not injected") && strings.Contains(l, tt.why)
			}
			if !warned {
				t.Errorf("no warning saying %q in the logs:\n%s", tt.why, logs.String())
			}
		})
	}
}
