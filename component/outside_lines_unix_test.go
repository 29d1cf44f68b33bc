//go:build unix

package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestOutsideLinesRefused: a server (here fakelsp, answering a definition
// with a place the test picks) that names a file outside the workspace gets
// its line shown only for a source file of the calling file's language in
// one of that language's dependency folders, and only for a regular file
// under the size cap. A secret-looking file in HOME, a source file beside
// it, a link from node_modules to it, a named pipe in node_modules and one
// in HOME, a file over the cap are shown by path alone, the answer saying
// why in a note, and nothing of their content reaches it.
func TestOutsideLinesRefused(t *testing.T) {
	bin := fakelsp.Build(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	deps := filepath.Join(base, "deps", "node_modules", "pkg")
	const secret = "SECRET-c2VjcmV0"
	write := func(p, text string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := write(filepath.Join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+secret+"\n")
	token := write(filepath.Join(home, ".config", "app", "token.ts"), "export const token = \""+secret+"\";\n")
	leak := filepath.Join(deps, "leak.d.ts")
	if err := os.MkdirAll(deps, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(token, leak); err != nil {
		t.Fatal(err)
	}
	const capBytes = 4096
	for _, tc := range []struct {
		name string
		path string
		// line is the line shown, "" for none; why is in the note then.
		line, why string
	}{
		{"dependency", write(filepath.Join(deps, "index.d.ts"), "// pkg\nexport declare function ok(): void;\n"), "export declare function ok(): void;", ""},
		{"private key in HOME", key, "", "outside the workspace, and not a TypeScript/JavaScript source file"},
		{"source file in HOME", token, "", "outside the workspace, and not in a node_modules folder"},
		{"link from node_modules to HOME", leak, "", "outside the workspace, and not in a node_modules folder"},
		{"named pipe in node_modules", fifo(filepath.Join(deps, "pipe.d.ts")), "", "not a regular file (a named pipe)"},
		{"named pipe in HOME", fifo(filepath.Join(home, "pipe.ts")), "", "outside the workspace, and not in a node_modules folder"},
		{"over the size cap", write(filepath.Join(deps, "big.d.ts"), "//\n"+strings.Repeat("x", capBytes)), "", "too large: 4.0 KiB (4099 bytes), over the cap of 4.0 KiB"},
		{"missing", filepath.Join(deps, "gone.d.ts"), "", "outside the workspace, and no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := []map[string]any{{"uri": edit.URIFromPath(tc.path), "range": map[string]any{
				"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 1, "character": 1}}}}
			res, err := json.Marshal(loc)
			if err != nil {
				t.Fatal(err)
			}
			cs := fakeTool(t, bin, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/definition": {Result: res}}},
				Config{MaxFileSize: capBytes, StructuredContent: true}, map[string]string{"a.ts": "ok();\n"})
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "definition", "file": "a.ts", "line": 1, "symbol": "ok"}})
			if err != nil {
				t.Fatal(err)
			}
			text := r.Content[0].(*mcp.TextContent).Text
			data, _ := json.Marshal(r.StructuredContent)
			if r.IsError {
				t.Fatalf("definition: %s", text)
			}
			if strings.Contains(text, secret) || strings.Contains(string(data), secret) {
				t.Fatalf("the answer shows the secret:\n%s\n%s", text, data)
			}
			if !strings.Contains(text, tc.path+outsideMark+"\n  "+tc.path+":2:1\n") {
				t.Errorf("want %s shown as outside the workspace:\n%s", tc.path, text)
			}
			var l listing
			if err := json.Unmarshal(data, &l); err != nil || len(l.Items) != 1 || !l.Items[0].Outside || l.Items[0].File != tc.path {
				t.Fatalf("structured content %s (%v): want one item outside, %s", data, err, tc.path)
			}
			if got := l.Items[0].Context; got != tc.line {
				t.Errorf("line shown %q, want %q:\n%s", got, tc.line, text)
			}
			note := "note: " + tc.path + ": line not shown: " + tc.why + "\n"
			if has := strings.Contains(text, note); has != (tc.why != "") {
				t.Errorf("note %q shown: %v, want %v:\n%s", note, has, tc.why != "", text)
			}
		})
	}
}
