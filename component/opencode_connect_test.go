package component

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// closerFunc is an io.Closer of a function.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// TestOpencodeOpensTheServer runs the Stage between a scripted editor and
// the real opencode (`opencode acp`, a fake model) over each transport:
// opencode opens the session's MCP server before its first turn ends (so
// the unopened-server warning can never fire for it), the turn carries no
// line of acp-lsp's, and the log no warning. It logs how long after
// session/new's answer the server was opened (the measurement behind
// mcp.connect_warning's rule).
func TestOpencodeOpensTheServer(t *testing.T) {
	exe := peerrun.BuildACPLSP(t)
	for _, transport := range []Transport{TransportAuto, TransportStdio} {
		t.Run(fmt.Sprintf("transport=%q", transport), func(t *testing.T) {
			model, err := fakemodel.Start(fakemodel.Script{Reply: "hello from the model"})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			oc := peerrun.NewOpencode(t, model)
			root := filepath.Join(oc.Dir, "work")
			os.MkdirAll(root, 0o755)
			os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644)
			p := oc.Start(t, root)
			var logs syncbuf.Buffer
			st, err := NewStage(Config{Executable: exe, Transport: transport, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			editor, cep := pipeEnd()
			aep := proxy.NewStream(p.Stdout, p.Stdin, proxy.StreamOptions{Name: "agent"})
			runChain(t, editor, closerFunc(p.Stdin.Close), cep, aep, nil, st)

			wait := 2 * time.Minute // opencode's first start installs its provider package
			recv := func() map[string]any {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				m, err := editor.Recv(ctx)
				if err != nil {
					t.Fatalf("%v; opencode's stderr:\n%s", err, p.Stderr())
				}
				var out map[string]any
				if err := json.Unmarshal([]byte(m.Raw), &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
			editor.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
			recv()
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
			var sid string
			for {
				m := recv()
				if m["id"] == float64(1) {
					res, _ := m["result"].(map[string]any)
					sid, _ = res["sessionId"].(string)
					break
				}
			}
			answered := time.Now()
			s := st.Tool().SessionByACP(sid)
			if s == nil {
				t.Fatalf("session %q not bound", sid)
			}
			editor.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, sid))
			for {
				m := recv()
				if strings.Contains(fmt.Sprint(m), "acp-lsp:") {
					t.Errorf("acp-lsp's line reached the editor: %v", m)
				}
				if m["id"] == float64(2) {
					break
				}
			}
			select {
			case <-s.watch.openedCh:
				s.watch.mu.Lock()
				at := s.watch.openedAt
				s.watch.mu.Unlock()
				t.Logf("opencode opened the %s server %v after session/new's answer passed (negative: before)", transportName(st, transport), at.Sub(answered))
			default:
				t.Errorf("opencode's first turn ended without opening the MCP server; stderr:\n%s", p.Stderr())
			}
			if strings.Contains(logs.String(), "has not opened") {
				t.Errorf("warning logged:\n%s", logs.String())
			}
		})
	}
}

// transportName says which transport the stage gave the agent.
func transportName(st *Stage, configured Transport) Transport {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.agent.transport(configured)
}
