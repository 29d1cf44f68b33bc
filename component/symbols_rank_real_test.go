package component

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestWorkspaceSymbolsRankReal: pyright and typescript-language-server
// answer a workspace symbol query with every fuzzy match in the order they
// walk their files; a class QuerySet defined once, in a file they reach
// last, among sixty local variables named queryset, is the first result on
// page one.
func TestWorkspaceSymbolsRankReal(t *testing.T) {
	for _, tc := range []struct {
		peer string
		// files are the project's files; open is the one opened first
		// (diagnostics), so the server has analysed the project.
		files func(i int) (name, text string)
		class [2]string // the class's file and text
		open  string
		total int
		want  string
	}{
		{
			peer: "pyright-langserver",
			files: func(i int) (string, string) {
				var b strings.Builder
				for j := range 3 {
					fmt.Fprintf(&b, "def view_%d_%d(items):\n    queryset = list(items)\n    return queryset\n\n\n", i, j)
				}
				return fmt.Sprintf("app%02d/views.py", i), b.String()
			},
			class: [2]string{"zz/query.py", "class QuerySet:\n    def count(self):\n        return 0\n"},
			open:  "app00/views.py",
			total: 61,
			want:  "zz/query.py:1:7 class QuerySet",
		},
		{
			peer: "typescript-language-server",
			files: func(i int) (string, string) {
				var b strings.Builder
				for j := range 3 {
					fmt.Fprintf(&b, "export function view_%d_%d(items: number[]): number[] {\n    const queryset = [...items];\n    return queryset;\n}\n\n", i, j)
				}
				return fmt.Sprintf("app%02d/views.ts", i), b.String()
			},
			class: [2]string{"zz/query.ts", "export class QuerySet {\n    count(): number { return 0; }\n}\n"},
			open:  "app00/views.ts",
			total: 61,
			want:  "zz/query.ts:1:1 class QuerySet", // tsserver starts the range at export,
		},
	} {
		t.Run(tc.peer, func(t *testing.T) {
			peers.Require(t, tc.peer)
			root, _ := filepath.EvalSymlinks(t.TempDir())
			write := func(rel, text string) {
				p := filepath.Join(root, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("tsconfig.json", `{"compilerOptions":{"strict":true,"target":"es2020"}}`)
			for i := range 20 {
				write(tc.files(i))
			}
			write(tc.class[0], tc.class[1])
			m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: peers.Env(),
				Timeouts: lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(3 * time.Minute)}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close(context.Background()) })
			_, s := startSession(t, Config{DiagnosticsWait: 3 * time.Minute}, &managerBackend{m: m, anyFile: filepath.Join(root, tc.open)}, root)
			cs := connect(t, s)
			// pyright answers workspace symbols once it analysed a file.
			if text, isErr := callTool(t, cs, map[string]any{"action": "diagnostics", "file": tc.open}); isErr || !strings.Contains(text, ": fresh") {
				t.Fatalf("diagnostics: %s", text)
			}
			text, isErr := callTool(t, cs, map[string]any{"action": "symbols", "query": "QuerySet", "limit": 10})
			if isErr {
				t.Fatal(text)
			}
			if head := fmt.Sprintf(`workspace symbols matching "QuerySet": %d (showing 1-10)`, tc.total); !strings.HasPrefix(text, head) {
				t.Fatalf("want all %d matches, the first 10 shown:\n%s", tc.total, text)
			}
			if got := firstItem(text); got != tc.want {
				t.Errorf("first result %q, want %q:\n%s", got, tc.want, text)
			}
		})
	}
}

// firstItem is the first result line of a listing's text.
func firstItem(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
