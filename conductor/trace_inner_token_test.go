package conductor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestTraceHidesInnerProxyToken: acp-lsp as the conductor of a chain
// holding another acp-lsp (`acp-lsp proxy`) before the scripted agent,
// trace on. The inner proxy hands the agent an http MCP entry with a bearer
// token of its own making, which the outer acp-lsp never registered: the
// outer trace must still write it "[redacted]", while the agent gets it
// whole (it connects with it: session/new succeeds only if the token
// works).
func TestTraceHidesInnerProxyToken(t *testing.T) {
	t.Parallel()
	b := linkBins(t)
	tracePath := filepath.Join(t.TempDir(), "trace.ndjson")
	p := startPiped(t, b.acplsp, "conductor", "-trace", tracePath,
		"--proxy", b.acplsp+" proxy",
		"--", b.acplsp, "agent")
	defer p.stop()
	untilResponse := func(send, id string) *proxy.Message {
		t.Helper()
		p.send(send)
		for {
			if m, _ := p.recv(); m.Kind == proxy.KindResponse && string(m.ID) == id {
				return m
			}
		}
	}
	untilResponse(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`, "0")
	root, _ := json.Marshal(t.TempDir())
	r := untilResponse(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":`+string(root)+`,"mcpServers":[]}}`, "1")
	if _, ok := proxy.GetPath(r.Result(), "sessionId"); !ok {
		t.Fatalf("session/new failed (the agent could not use the token it got?): %s\nstderr: %s", r.Raw, p.stderr.String())
	}
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("acp-lsp conductor: %v\n%s", err, p.stderr.String())
	}

	trace, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(trace), "Bearer ") {
		t.Errorf("a bearer token is in the trace")
	}
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<20)
	entries := 0
	for sc.Scan() {
		var line struct {
			Hop, Dir string
			Msg      struct {
				Method string
				Params struct {
					McpServers []struct {
						Name    string
						Headers []struct{ Name, Value string }
					}
				}
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("trace line is not JSON: %v\n%s", err, sc.Bytes())
		}
		if line.Msg.Method != "session/new" {
			continue
		}
		for _, e := range line.Msg.Params.McpServers {
			for _, h := range e.Headers {
				if strings.EqualFold(h.Name, "Authorization") {
					entries++
					if h.Value != "[redacted]" {
						t.Errorf("hop %s (%s): the inner proxy's %q entry is traced with Authorization %q", line.Hop, line.Dir, e.Name, h.Value)
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if entries == 0 {
		t.Fatal("no session/new in the trace carries the inner proxy's Authorization header")
	}
}
