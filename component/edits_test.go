package component

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

func TestFormatRenameFileCodeAction(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	path := filepath.Join(s.Root, "main.go")
	uri := edit.URIFromPath(path)

	// format: preview, then apply.
	fb.set("textDocument/formatting", `[{"range":{"start":{"line":4,"character":24},"end":{"line":4,"character":25}},"newText":"\n\t"}]`)
	text, isErr := callTool(t, cs, map[string]any{"action": "format", "file": "main.go"})
	if isErr || !strings.Contains(text, "preview") {
		t.Errorf("format preview: %s", text)
	}
	if b, _ := os.ReadFile(path); string(b) != mainGo {
		t.Fatal("preview wrote")
	}
	text, isErr = callTool(t, cs, map[string]any{"action": "format", "file": "main.go", "apply": true})
	if b, _ := os.ReadFile(path); isErr || !strings.Contains(string(b), "int {\n\treturn a + b }") {
		t.Errorf("format apply: %s\n%s", text, b)
	}

	// rename_file: the server's edit plus the move, then didRenameFiles.
	os.WriteFile(filepath.Join(s.Root, "util.go"), []byte("package main\n"), 0o644)
	fb.set("workspace/willRenameFiles", fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"// moved\n"}]}}`, uri))
	fb.set("workspace/didRenameFiles", `null`)
	text, isErr = callTool(t, cs, map[string]any{"action": "rename_file", "file": "util.go", "new_name": "pkg/helpers.go", "apply": true})
	if isErr {
		t.Fatalf("rename_file: %s", text)
	}
	if _, err := os.Stat(filepath.Join(s.Root, "pkg", "helpers.go")); err != nil {
		t.Errorf("file not moved: %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "// moved\n") {
		t.Errorf("willRenameFiles edit not applied:\n%s", b)
	}
	if last := fb.requests[len(fb.requests)-1]; !strings.HasPrefix(last, "workspace/didRenameFiles ") {
		t.Errorf("last request %s", last)
	}
	// A failing willRenameFiles stops the move.
	delete(fb.results, "workspace/willRenameFiles")
	text, isErr = callTool(t, cs, map[string]any{"action": "rename_file", "file": "pkg/helpers.go", "new_name": "x.go", "apply": true})
	if !isErr || !strings.Contains(text, "nothing changed") {
		t.Errorf("rename_file with failing server: %s", text)
	}
	if _, err := os.Stat(filepath.Join(s.Root, "pkg", "helpers.go")); err != nil {
		t.Errorf("moved despite failure: %v", err)
	}

	// code_actions apply: resolve, edit, command.
	fb.set("textDocument/codeAction", `[{"title":"Add comment","kind":"refactor.rewrite","data":{"id":7}}]`)
	fb.set("codeAction/resolve", fmt.Sprintf(`{"title":"Add comment","kind":"refactor.rewrite","edit":{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"// hello\n"}]}},"command":{"title":"t","command":"gopls.tidy","arguments":[]}}`, uri))
	fb.set("workspace/executeCommand", `null`)
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1})
	if isErr {
		t.Fatalf("code action apply: %s", text)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "// hello\n") {
		t.Errorf("code action edit not applied:\n%s", b)
	}
	var sawResolve, sawCommand bool
	for _, r := range fb.requests {
		sawResolve = sawResolve || strings.HasPrefix(r, "codeAction/resolve ")
		sawCommand = sawCommand || strings.HasPrefix(r, `workspace/executeCommand {"title":"t","command":"gopls.tidy"`)
	}
	if !sawResolve || !sawCommand {
		t.Errorf("resolve %v, command %v: %q", sawResolve, sawCommand, fb.requests)
	}
}

func TestMutatingGates(t *testing.T) {
	_, _, fb, cs := setup(t, Config{AllowMutating: map[string]bool{"rename": false, "request": true}})
	fb.set("textDocument/rename", `{"changes":{}}`)
	text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "x", "apply": true})
	if !isErr || !strings.Contains(text, "turned off") {
		t.Errorf("gated rename: %s", text)
	}
	fb.set("textDocument/foldingRange", `[{"startLine":6,"endLine":8}]`)
	text, isErr = callTool(t, cs, map[string]any{"action": "request", "file": "main.go", "method": "textDocument/foldingRange", "params": map[string]any{"textDocument": map[string]string{"uri": "x"}}})
	if isErr || !strings.Contains(text, `"startLine":6`) {
		t.Errorf("allowed raw request: %s", text)
	}
}

// TestFormatRangeAndCommandActions: range formatting sends the range the
// line/end_line arguments name; a code action that is only a command runs
// it after permission (declined: not run); a disabled action is refused
// with its reason.
func TestFormatRangeAndCommandActions(t *testing.T) {
	var asks int
	allow := false
	_, s, fb, cs := setup(t, Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
		asks++
		return allow, nil
	}})
	path := filepath.Join(s.Root, "main.go")
	fb.set("textDocument/rangeFormatting", `[{"range":{"start":{"line":6,"character":13},"end":{"line":6,"character":13}},"newText":" "}]`)
	text, isErr := callTool(t, cs, map[string]any{"action": "format", "file": "main.go", "line": 7, "end_line": 9})
	if isErr || !strings.Contains(text, "preview") {
		t.Errorf("range format: %s", text)
	}
	last := fb.requests[len(fb.requests)-1]
	if !strings.HasPrefix(last, "textDocument/rangeFormatting ") || !strings.Contains(last, `"range":{"start":{"line":6,"character":0},"end":{"line":8,"character":1}}`) {
		t.Errorf("range format sent %s", last)
	}

	fb.set("textDocument/codeAction", `[{"title":"Run tidy","command":"gopls.tidy","arguments":[{"uri":"x"}]},{"title":"Not here","kind":"refactor","disabled":{"reason":"no selection"}}]`)
	fb.set("workspace/executeCommand", "null")
	ran := func() bool {
		return slices.ContainsFunc(fb.requests, func(r string) bool { return strings.HasPrefix(r, "workspace/executeCommand ") })
	}
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1})
	if isErr || !strings.Contains(text, "1. Run tidy") || !strings.Contains(text, "2. Not here [refactor] (disabled: no selection)") {
		t.Errorf("list: %s", text)
	}
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1})
	if !isErr || !strings.Contains(text, "declined") || ran() || asks != 1 {
		t.Errorf("declined command: %v %s (ran %v, asked %d)", isErr, text, ran(), asks)
	}
	allow = true
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 1})
	if isErr || !strings.Contains(text, "command run by the server") || !ran() {
		t.Errorf("command: %v %s", isErr, text)
	}
	if last := fb.requests[len(fb.requests)-1]; !strings.Contains(last, `"command":"gopls.tidy"`) {
		t.Errorf("executeCommand sent %s", last)
	}
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 2})
	if !isErr || !strings.Contains(text, "disabled: no selection") {
		t.Errorf("disabled: %s", text)
	}
	text, isErr = callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 1, "apply": true, "index": 3})
	if !isErr || !strings.Contains(text, "index must be 1..2") {
		t.Errorf("bad index: %s", text)
	}
	if b, _ := os.ReadFile(path); string(b) != mainGo {
		t.Errorf("file changed:\n%s", b)
	}
}

// TestCodeActionsSendDiagnosticsWhole: the diagnostics a code-action
// request carries in its context are the server's own, data and all
// (servers that were told of dataSupport find their quick fixes by it).
func TestCodeActionsSendDiagnosticsWhole(t *testing.T) {
	c, s, fb, cs := setup(t, Config{})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	diag := `{"range":{"start":{"line":4,"character":1},"end":{"line":4,"character":4}},"severity":1,"code":"UndeclaredName","codeDescription":{"href":"https://pkg.go.dev/x"},"source":"compiler","message":"undefined: sq","tags":[1],"relatedInformation":[{"location":{"uri":"` + uri + `","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}},"message":"here"}],"data":{"fix":"stub","n":[1,2]}}`
	p, _ := json.Marshal(lspext.PublishDiagnosticsParams{URI: uri, Diagnostics: json.RawMessage("[" + diag + "]"), Native: true})
	if !c.HandleNotification(context.Background(), "lsp/publishDiagnostics", p) {
		t.Fatal("publishDiagnostics not consumed")
	}
	fb.set("textDocument/codeAction", `[]`)
	if text, isErr := callTool(t, cs, map[string]any{"action": "code_actions", "file": "main.go", "line": 5}); isErr {
		t.Fatalf("code_actions: %s", text)
	}
	var sent string
	for _, r := range fb.requests {
		if m, ok := strings.CutPrefix(r, "textDocument/codeAction "); ok {
			sent = m
		}
	}
	var req struct {
		Context struct {
			Diagnostics []json.RawMessage `json:"diagnostics"`
		} `json:"context"`
	}
	if err := json.Unmarshal([]byte(sent), &req); err != nil || len(req.Context.Diagnostics) != 1 {
		t.Fatalf("code action request %s: %v", sent, err)
	}
	var got, want any
	json.Unmarshal(req.Context.Diagnostics[0], &got)
	json.Unmarshal([]byte(diag), &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostic sent back (-published +sent):\n%s", diff)
	}
}

func TestRenamePermission(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprint(allow), func(t *testing.T) {
			var asked []string
			cfg := Config{AskPermission: func(ctx context.Context, sid, title, diff string) (bool, error) {
				asked = append(asked, sid+"|"+title+"|"+diff)
				return allow, nil
			}}
			c, s, fb, cs := setup(t, cfg)
			c.Bind(s, "sess-1")
			path := filepath.Join(s.Root, "main.go")
			uri := edit.URIFromPath(path)
			e := func(l, ch int) string {
				return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"newText":"sum"}`, l, ch, l, ch+3)
			}
			fb.set("textDocument/rename", fmt.Sprintf(`{"changes":{%q:[%s,%s,%s]}}`, uri, e(4, 5), e(7, 13), e(7, 25)))
			preview, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum"})
			if isErr || !strings.Contains(preview, "+func sum(a, b int)") || len(asked) != 0 {
				t.Fatalf("preview: %v %s (asked %d)", isErr, preview, len(asked))
			}
			text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true})
			if len(asked) != 1 || !strings.HasPrefix(asked[0], "sess-1|rename add to sum|") || !strings.Contains(asked[0], "+func sum") {
				t.Errorf("permission asks: %q", asked)
			}
			b, _ := os.ReadFile(path)
			if allow {
				if isErr || !strings.Contains(string(b), "func sum(a, b int)") || strings.Contains(string(b), "add(") {
					t.Errorf("allowed rename: %v %s\n%s", isErr, text, b)
				}
				if len(fb.changed) != 1 || fb.changed[0][0].URI != uri {
					t.Errorf("filesChanged: %+v", fb.changed)
				}
			} else {
				if !isErr || !strings.Contains(text, "declined") || string(b) != mainGo {
					t.Errorf("denied rename: %v %s\n%s", isErr, text, b)
				}
				if len(fb.changed) != 0 {
					t.Errorf("filesChanged after denial: %+v", fb.changed)
				}
			}
		})
	}
}
