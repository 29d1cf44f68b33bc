package component

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestResultIsTheText: an answer is its text and nothing else, one text
// content block, unless Config.StructuredContent asks for structuredContent
// too. Agents that find structuredContent hand the model that instead of
// the text (claude-agent-acp, codex-acp) or beside it (qwen-code, copilot),
// so the text reaches every model once only when there is none. The raw
// JSON-RPC result is checked as a client reads it, over HTTP with the fast
// path on and off and in memory through the SDK; the text is the same
// either way, so structured output changes what is added, never what the
// model reads.
func TestResultIsTheText(t *testing.T) {
	calls := []struct {
		name  string
		args  map[string]any
		isErr bool
	}{
		{"diagnostics", map[string]any{"action": "diagnostics", "file": "main.go"}, false},
		{"definition", map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add"}, false},
		{"references", map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, false},
		{"hover", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, false},
		{"symbols", map[string]any{"action": "symbols", "file": "main.go"}, false},
		{"code_actions", map[string]any{"action": "code_actions", "file": "main.go", "line": 8}, false},
		{"status", map[string]any{"action": "status"}, false},
		{"error", map[string]any{"action": "compile"}, true},
	}
	texts := map[bool]map[string]string{}
	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprintf("structured_content=%v", structured), func(t *testing.T) {
			c, s, fb, cs := setup(t, Config{StructuredContent: structured})
			uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
			loc := func(line, char int) string {
				return fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}`, uri, line, char, line, char+3)
			}
			fb.set("textDocument/definition", "["+loc(4, 5)+"]")
			fb.set("textDocument/references", "["+loc(4, 5)+","+loc(7, 13)+","+loc(7, 25)+"]")
			fb.set("textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`)
			fb.set("textDocument/documentSymbol", `[{"name":"add","kind":12,"range":{"start":{"line":4,"character":0},"end":{"line":4,"character":39}},"selectionRange":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`)
			fb.set("textDocument/codeAction", `[{"title":"Inline call","kind":"refactor.inline"}]`)
			fb.report = &lspext.DiagnosticReportResult{
				Files:   []lspext.FileDiagnostics{{URI: uri, Server: "gopls", Diagnostics: json.RawMessage(`[{"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}},"severity":1,"message":"not enough arguments in call to add"}]`)}},
				Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}},
			}
			rc := dialRaw(t, c, s)
			texts[structured] = map[string]string{}
			for i, call := range calls {
				args, _ := json.Marshal(call.args)
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp","arguments":%s}}`, i+1, args)
				for _, noFast := range []bool{true, false} {
					c.noFast.Store(noFast)
					r := rc.post(t, body, nil)
					var resp struct {
						Result map[string]json.RawMessage `json:"result"`
					}
					if r.status != http.StatusOK || json.Unmarshal(r.body, &resp) != nil {
						t.Fatalf("%s: not a JSON-RPC answer: %d %s", call.name, r.status, r.body)
					}
					var keys []string
					for k := range resp.Result {
						keys = append(keys, k)
					}
					slices.Sort(keys)
					want := []string{"content"}
					switch {
					case call.isErr:
						want = []string{"content", "isError"}
					case structured:
						want = []string{"content", "structuredContent"}
					}
					if !slices.Equal(keys, want) {
						t.Errorf("%s (fast path %v): result has %v, want %v: %s", call.name, !noFast, keys, want, r.body)
					}
					var content []map[string]any
					if err := json.Unmarshal(resp.Result["content"], &content); err != nil || len(content) != 1 || len(content[0]) != 2 || content[0]["type"] != "text" {
						t.Errorf("%s (fast path %v): content %s, want one text block", call.name, !noFast, resp.Result["content"])
					}
				}
				c.noFast.Store(false)

				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: call.args})
				if err != nil {
					t.Fatalf("%s: %v", call.name, err)
				}
				if res.IsError != call.isErr || len(res.Content) != 1 {
					t.Fatalf("%s: isError %v, %d content blocks", call.name, res.IsError, len(res.Content))
				}
				tc, ok := res.Content[0].(*mcp.TextContent)
				if !ok {
					t.Fatalf("%s: content %T, want text", call.name, res.Content[0])
				}
				if has := res.StructuredContent != nil; has != (structured && !call.isErr) {
					t.Errorf("%s: structuredContent present %v, want %v", call.name, has, structured && !call.isErr)
				}
				texts[structured][call.name] = tc.Text
			}
		})
	}
	for _, call := range calls {
		if off, on := texts[false][call.name], texts[true][call.name]; off != on {
			t.Errorf("%s: the text depends on structured_content:\noff: %s\non:  %s", call.name, off, on)
		}
	}
}
