package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestInspector lists and calls the tool with the real MCP Inspector CLI
// (--strict) over stdio (the real acp-lsp mcp-bridge subcommand on the
// private socket) and over streamable HTTP with the bearer token, the entries
// being exactly what PatchSessionSetup hands an agent. Over HTTP the call
// takes the fast path, so a third-party client (the TypeScript SDK) reads
// its answers too.
func TestInspector(t *testing.T) {
	exe := peerrun.BuildACPLSP(t)
	env := peerrun.NewEnv(t)
	fb := newFake()
	c, err := New(Config{Executable: exe}, fb)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "main.go"), []byte(mainGo), 0o644)
	s, err := c.NewSession(root)
	if err != nil {
		t.Fatal(err)
	}
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	// Under the fake's lock: the Inspector's calls reach the fake through
	// another process, an order the race detector cannot see.
	fb.mu.Lock()
	fb.report = &lspext.DiagnosticReportResult{
		Files:   []lspext.FileDiagnostics{{URI: uri, Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}},"severity":1,"message":"not enough arguments in call to add"}]`)}},
		Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}},
	}
	fb.mu.Unlock()

	var stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal(c.Entry(s, TransportStdio), &stdio); err != nil {
		t.Fatal(err)
	}
	var web struct {
		URL     string `json:"url"`
		Headers []struct{ Name, Value string }
	}
	if err := json.Unmarshal(c.Entry(s, TransportHTTP), &web); err != nil {
		t.Fatal(err)
	}
	servers := map[string][]string{
		"stdio": append([]string{stdio.Command, "-e", peerrun.MarkVar + "=" + env.Mark}, stdio.Args...),
		"http":  {web.URL, "--transport", "http", "--header", web.Headers[0].Name + ": " + web.Headers[0].Value},
	}
	for name, server := range servers {
		out, err := peerrun.Inspector(ctx, t, env, append(server, "--method", "tools/list", "--strict")...)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(out, &list); err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "lsp" {
			t.Fatalf("%s: tools/list answered %s (%v)", name, out, err)
		}
		for _, field := range []string{"action", "symbol", "new_name", "severity", "offset"} {
			if !strings.Contains(string(list.Tools[0].InputSchema), `"`+field+`"`) {
				t.Errorf("%s: input schema lacks %s", name, field)
			}
		}
		hits := c.fastHits.Load()
		out, err = peerrun.Inspector(ctx, t, env, append(server, "--method", "tools/call", "--tool-name", "lsp", "--tool-arg", "action=diagnostics", "--tool-arg", "file=main.go")...)
		if err != nil {
			t.Fatalf("%s: tools/call: %v", name, err)
		}
		// The Inspector's call over HTTP is one the fast path answers
		// (and --strict took its answer); stdio always goes to the SDK.
		if want := map[string]int64{"http": 1, "stdio": 0}[name]; c.fastHits.Load()-hits != want {
			t.Errorf("%s: the fast path answered %d calls, want %d", name, c.fastHits.Load()-hits, want)
		}
		if !strings.Contains(string(out), `main.go:8:14 error: not enough arguments in call to add`) || !strings.Contains(string(out), "gopls: fresh") {
			t.Errorf("%s: diagnostics answered %s", name, out)
		}
		// The result is the text alone (TestResultIsTheText): a client
		// finding structuredContent may give the model that instead.
		var res map[string]json.RawMessage
		if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 || res["content"] == nil {
			t.Errorf("%s: result %s, want content alone", name, out)
		}
	}
	env.RequireNoLeftovers(t)
}
