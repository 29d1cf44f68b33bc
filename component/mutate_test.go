package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
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

func TestWire(t *testing.T) {
	var sent []string
	w := &Wire{
		Call: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			sent = append(sent, method+" "+string(params))
			switch method {
			case "_lsp/diagnosticReport":
				return json.RawMessage(`{"files":[],"servers":[{"server":"gopls","verdict":"fresh"}]}`), nil
			case "_lsp/servers", "_lsp/status":
				return json.RawMessage(`{"servers":[{"name":"gopls","source":"local"}]}`), nil
			case "_lsp/request":
				return json.RawMessage(`[1]`), nil
			}
			return nil, fmt.Errorf("no %s", method)
		},
		Notify: func(ctx context.Context, method string, params json.RawMessage) error {
			sent = append(sent, method+" "+string(params))
			return nil
		},
	}
	ctx := context.Background()
	if r, err := w.Request(ctx, "file:///a", "textDocument/hover", json.RawMessage(`{"x":1}`)); err != nil || string(r) != "[1]" {
		t.Errorf("Request: %s %v", r, err)
	}
	if rep, err := w.DiagnosticReport(ctx, []string{"file:///a"}, 1500*1e6); err != nil || rep.Servers[0].Verdict != "fresh" {
		t.Errorf("DiagnosticReport: %+v %v", rep, err)
	}
	if s, err := w.Status(ctx); err != nil || s[0].Name != "gopls" {
		t.Errorf("Status: %+v %v", s, err)
	}
	if err := w.Restart(ctx, "gopls", ""); err == nil {
		t.Error("Restart: error from upstream lost")
	}
	w.FilesChanged(ctx, nil)
	want := []string{
		`_lsp/request {"uri":"file:///a","method":"textDocument/hover","params":{"x":1}}`,
		`_lsp/diagnosticReport {"uris":["file:///a"],"wait":1500}`,
		`_lsp/status {}`,
		`_lsp/restart {"server":"gopls"}`,
		`_lsp/filesChanged {"changes":[]}`,
	}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}
	if _, err := (&Wire{Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage("null"), nil
	}}).Status(ctx); err == nil {
		t.Error("null status accepted")
	}
	// An error answer reads as upstream's words alone, the JSON-RPC
	// error still reachable for its code and data.
	_, err := (&Wire{Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return nil, &proxy.Error{Code: -32603, Message: "_lsp/request: gopls textDocument/hover: timeout", Data: json.RawMessage(`{"indexing":true,"server":"gopls"}`)}
	}}).Request(ctx, "", "textDocument/hover", nil)
	var pe *proxy.Error
	if wrapped := fmt.Errorf("hover: %w", err); wrapped.Error() != "hover: gopls textDocument/hover: timeout" || !errors.As(wrapped, &pe) || pe.Code != -32603 {
		t.Errorf("error answer read as %q", wrapped)
	}
	if d, ok := indexingOf(upstream(err)); !ok || d.Server != "gopls" {
		t.Errorf("indexing data lost: %+v", d)
	}
}

// TestDecodeInput: arguments as clients send them, numbers and booleans as
// strings included; unknown arguments and wrong types are refused with a
// message that says what to send.
func TestDecodeInput(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		want    Input
		wantErr string
	}{
		{`{"action":"hover","file":"a.go","line":5,"symbol":"x"}`, Input{Action: "hover", File: "a.go", Line: 5, Symbol: "x"}, ""},
		{`{"action":"hover","line":"5","column":" 7 ","apply":"true"}`, Input{Action: "hover", Line: 5, Column: 7, Apply: true}, ""},
		{`null`, Input{}, ""},
		{`{"action":"hover","line":"five"}`, Input{}, "argument line must be a int, not a string"},
		{`{"action":"hover","lines":5}`, Input{}, `unknown argument "lines"; the lsp tool takes: action, file, line`},
		{`{"action":"hover"} {}`, Input{}, "trailing data"},
		{`[1]`, Input{}, "arguments:"},
	} {
		got, err := decodeInput(json.RawMessage(tc.raw))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.raw, err, tc.wantErr)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v %v, want %+v", tc.raw, got, err, tc.want)
		}
	}
	schema, err := inputSchema()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(schema)
	for _, f := range inputFields() {
		if !strings.Contains(string(b), `"`+f+`":{`) {
			t.Errorf("schema lacks %s: %s", f, b)
		}
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

// TestForSession: Config.ForSession gives each session its own settings;
// a session in another folder gets another gate and page size, the
// Component's own stay with the rest.
func TestForSession(t *testing.T) {
	strict := t.TempDir()
	var asked []string
	c, s, fb, cs := setup(t, Config{ForSession: func(root string, base Config) Config {
		asked = append(asked, root)
		if root == strict {
			base.AllowMutating = map[string]bool{"rename": false}
			base.PageSize = 1
		}
		return base
	}})
	if err := os.WriteFile(filepath.Join(strict, "main.go"), []byte(mainGo), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := c.NewSession(strict)
	if err != nil {
		t.Fatal(err)
	}
	cs2 := connect(t, s2)
	if want := []string{s.Root, strict}; !slices.Equal(asked, want) {
		t.Errorf("ForSession asked for %q, want %q", asked, want)
	}
	locs := func(root string) string {
		uri := edit.URIFromPath(filepath.Join(root, "main.go"))
		var l []string
		for _, line := range []int{4, 7, 7} {
			l = append(l, fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":8}}}`, uri, line, line))
		}
		return "[" + strings.Join(l, ",") + "]"
	}
	fb.set("textDocument/rename", `{"changes":{}}`)
	rename := map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "x", "apply": true}
	refs := map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}
	for _, tc := range []struct {
		name      string
		cs        *mcp.ClientSession
		root      string
		gated     bool
		shownRefs int
	}{
		{"the Component's settings", cs, s.Root, false, 3},
		{"the session's own", cs2, strict, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := callTool(t, tc.cs, rename)
			if gated := isErr && strings.Contains(text, "turned off"); gated != tc.gated {
				t.Errorf("rename gated %v, want %v: %s", gated, tc.gated, text)
			}
			fb.set("textDocument/references", locs(tc.root))
			text, _ = callTool(t, tc.cs, refs)
			if n := strings.Count(text, "main.go:"); n != tc.shownRefs {
				t.Errorf("references show %d locations, want %d:\n%s", n, tc.shownRefs, text)
			}
		})
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

// TestRawRequestPermission: with raw requests turned on, a request that may
// change files (a command, a server's own method) is sent only once the
// editor allows it; a known query is sent without asking.
func TestRawRequestPermission(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		allow        bool
		wantAsk      bool
		wantSent     bool
	}{
		{"query", "textDocument/foldingRange", false, false, true},
		{"command allowed", "workspace/executeCommand", true, true, true},
		{"command declined", "workspace/executeCommand", false, true, false},
		{"server method declined", "rust-analyzer/reloadWorkspace", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, _, fb, cs := setup(t, Config{AllowMutating: map[string]bool{"request": true}, AskPermission: func(ctx context.Context, sid, title, shown string) (bool, error) {
				asked = append(asked, title+"\n"+shown)
				return tc.allow, nil
			}})
			fb.set(tc.method, `{"ok":true}`)
			text, isErr := callTool(t, cs, map[string]any{"action": "request", "file": "main.go", "method": tc.method, "params": map[string]any{"command": "gopls.tidy", "arguments": []any{"é"}}})
			if (len(asked) > 0) != tc.wantAsk {
				t.Errorf("asked %q", asked)
			}
			if tc.wantAsk && len(asked) > 0 && (!strings.Contains(asked[0], tc.method) || !strings.Contains(asked[0], "main.go") || !strings.Contains(asked[0], `"gopls.tidy"`)) {
				t.Errorf("permission request does not show the request: %q", asked[0])
			}
			sent := slices.ContainsFunc(fb.requests, func(r string) bool { return strings.HasPrefix(r, tc.method+" ") })
			if sent != tc.wantSent {
				t.Errorf("sent %v, want %v: %q", sent, tc.wantSent, fb.requests)
			}
			if !tc.wantSent && (!isErr || !strings.Contains(text, "permission denied")) {
				t.Errorf("declined answer: %s", text)
			}
		})
	}
}

func TestHeadOf(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc…"},
		{"aéb", 2, "a…"}, // é is two bytes: not cut in half
		{"éé", 3, "é…"},
	} {
		if got := headOf(tc.s, tc.n); got != tc.want {
			t.Errorf("headOf(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
