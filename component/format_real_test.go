package component

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestFormatKeepsIndentation formats TypeScript files through the tool
// and a real typescript-language-server, which indents to the tabSize and
// insertSpaces it is sent: a file indented by 2 spaces stays so (the
// options read from the file), one under an .editorconfig asking for 3
// gets 3, and a tab-indented file keeps its tabs; in each the missing
// spaces around the operators are put in.
func TestFormatKeepsIndentation(t *testing.T) {
	const two = "export function add(a: number, b: number): number {\n  if (a > b) {\n    return a+b;\n  }\n  return b-a;\n}\n"
	const tabs = "export function sub(a: number, b: number): number {\n\tif (a > b) {\n\t\treturn a-b;\n\t}\n\treturn b-a;\n}\n"
	root, cs := realTool(t, "typescript-language-server", map[string]string{
		// root = true: no .editorconfig above the test's folder counts.
		".editorconfig":       "root = true\n",
		"tsconfig.json":       `{"compilerOptions":{"strict":true,"target":"es2020"}}`,
		"two.ts":              two,
		"tabs.ts":             tabs,
		"three/.editorconfig": "[*.ts]\nindent_style = space\nindent_size = 3\n",
		"three/three.ts":      two,
	}, Config{})
	for _, tc := range []struct{ file, want string }{
		{"two.ts", "export function add(a: number, b: number): number {\n  if (a > b) {\n    return a + b;\n  }\n  return b - a;\n}\n"},
		{"three/three.ts", "export function add(a: number, b: number): number {\n   if (a > b) {\n      return a + b;\n   }\n   return b - a;\n}\n"},
		{"tabs.ts", "export function sub(a: number, b: number): number {\n\tif (a > b) {\n\t\treturn a - b;\n\t}\n\treturn b - a;\n}\n"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text, isErr := callTool(t, cs, map[string]any{"action": "format", "file": tc.file, "apply": true})
			if isErr {
				t.Fatalf("format: %s", text)
			}
			b, err := os.ReadFile(filepath.Join(root, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("format gave\n%s\nwant\n%s\n(tool said: %s)", b, tc.want, text)
			}
		})
	}
}

// realTool starts the tool on a new folder holding files (slash paths to
// contents), answered by a Manager running the real server peer: it
// returns the folder and an MCP client session on the tool configured
// by cfg (all closed with t).
func realTool(t *testing.T, peer string, files map[string]string, cfg Config) (string, *mcp.ClientSession) {
	t.Helper()
	peers.Require(t, peer)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	anyFile := ""
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		anyFile = p
	}
	// Generous bounds: the machine running the tests may be loaded many
	// times over, and this is about answers, not speed.
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: peers.Env(),
		Timeouts: lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(3 * time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	_, s := startSession(t, cfg, &managerBackend{m: m, anyFile: anyFile}, root)
	return root, connect(t, s)
}
