package component

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutsideDefinitionLines: a definition outside the workspace, in the
// language's standard library or the server's bundled declarations, is
// shown by its absolute path, marked as outside the workspace, with its
// source line, as a definition inside it is (issue 20, item 7): gopls's
// fmt.Println in GOROOT, typescript-language-server's
// document.getElementById in lib.dom.d.ts, pyright's os.path.join in the
// Python installation's posixpath.py (or, with no Python found, in its
// bundled typeshed stubs) and math.sqrt in those stubs.
func TestOutsideDefinitionLines(t *testing.T) {
	for _, tc := range []struct {
		name, peer string
		files      map[string]string
		call       map[string]any
		// line starts the definition's source line: the answer shows the
		// line of the file it names (pyright names the Python source of
		// the module when it finds an interpreter, else its typeshed stub).
		line string
	}{
		{"gopls fmt.Println", "gopls", map[string]string{
			"go.mod":  "module example.com/m\n\ngo 1.22\n",
			"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		}, map[string]any{"action": "definition", "file": "main.go", "line": 6, "symbol": "Println"},
			"func Println("},
		{"typescript-language-server document.getElementById", "typescript-language-server", map[string]string{
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2020","lib":["es2020","dom"]}}`,
			"a.ts":          "export const e = document.getElementById(\"x\");\n",
		}, map[string]any{"action": "definition", "file": "a.ts", "line": 1, "symbol": "getElementById"},
			"getElementById("},
		{"pyright os.path.join", "pyright-langserver", map[string]string{
			"pyrightconfig.json": "{}\n",
			"a.py":               "import os\n\nprint(os.path.join(\"a\", \"b\"))\n",
		}, map[string]any{"action": "definition", "file": "a.py", "line": 3, "symbol": "join"},
			"def join("},
		// A module written in C has no Python source: its stub it is.
		{"pyright math.sqrt", "pyright-langserver", map[string]string{
			"pyrightconfig.json": "{}\n",
			"a.py":               "import math\n\nprint(math.sqrt(2))\n",
		}, map[string]any{"action": "definition", "file": "a.py", "line": 3, "symbol": "sqrt"},
			"def sqrt("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// structuredContent on: its items say which files are outside.
			root, cs := realTool(t, tc.peer, tc.files, Config{StructuredContent: true})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: tc.call})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError {
				t.Fatalf("definition: %s", text)
			}
			var l listing
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &l); err != nil {
				t.Fatalf("structured content %s: %v", b, err)
			}
			found := false
			for _, it := range l.Items {
				if !filepath.IsAbs(it.File) || strings.HasPrefix(it.File, root+"/") {
					continue
				}
				if !strings.HasPrefix(it.Context, tc.line) || it.Context != lineOf(t, it.File, it.Line) || !it.Outside {
					continue
				}
				found = true
				if !strings.Contains(text, it.File+outsideMark) || !strings.Contains(text, "    "+it.Context+"\n") {
					t.Errorf("the text does not show %s as outside the workspace with its line:\n%s", it.File, text)
				}
			}
			if !found {
				t.Errorf("no item outside the workspace with its line, starting %q:\n%s\n%s", tc.line, text, b)
			}
		})
	}
}

// lineOf returns line n (1-based) of the file path, trimmed as the tool
// shows it.
func lineOf(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", path, n)
	}
	return strings.TrimSpace(lines[n-1])
}
