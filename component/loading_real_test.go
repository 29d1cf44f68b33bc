package component

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// loadingProject is a generated project large enough for its server to
// load for seconds: many files referencing one declaration.
type loadingProject struct {
	server string // the peer
	// write fills root and returns the file and line holding the
	// declaration, its name, and how many references it has in all.
	write func(t *testing.T, root string) (file string, line int, symbol string, refs int)
	// partial: the server answers from what it has loaded so far, so its
	// first answer, asked at once, is given while it loads. gopls holds
	// requests until its load ends.
	partial bool
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pythonPackage writes a package of n modules, each referencing class
// Base of pkg/base.py three times.
func pythonPackage(n int) func(t *testing.T, root string) (string, int, string, int) {
	return func(t *testing.T, root string) (string, int, string, int) {
		files := map[string]string{
			"pyproject.toml":  "[project]\nname = \"gen\"\n",
			"pkg/__init__.py": "",
			"pkg/base.py":     "class Base:\n    def run(self) -> int:\n        return 1\n",
		}
		for i := range n {
			files[fmt.Sprintf("pkg/d%d/m%d.py", i/500, i)] = fmt.Sprintf("from pkg.base import Base\n\n\nclass C%d(Base):\n    pass\n\n\ndef f%d() -> int:\n    return Base().run()\n", i, i)
			files[fmt.Sprintf("pkg/d%d/__init__.py", i/500)] = ""
		}
		writeFiles(t, root, files)
		return "pkg/base.py", 1, "Base", 3*n + 1
	}
}

var loadingProjects = []loadingProject{
	{"pyright-langserver", pythonPackage(3000), true},
	{"typescript-language-server", func(t *testing.T, root string) (string, int, string, int) {
		const n = 1000
		files := map[string]string{
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2020","module":"commonjs"},"include":["src"]}` + "\n",
			"package.json":  `{"name":"gen","private":true}` + "\n",
			"src/base.ts":   "export class Base {\n  run(): number {\n    return 1;\n  }\n}\n",
		}
		for i := range n {
			files[fmt.Sprintf("src/d%d/m%d.ts", i/100, i)] = fmt.Sprintf("import { Base } from \"../base\";\n\nexport class C%d extends Base {}\n\nexport function f%d(): number {\n  return new Base().run();\n}\n", i, i)
		}
		writeFiles(t, root, files)
		return "src/base.ts", 1, "Base", 3*n + 1
	}, true},
	{"gopls", func(t *testing.T, root string) (string, int, string, int) {
		const pkgs, per = 100, 10
		files := map[string]string{
			"go.mod":       "module example.com/gen\n\ngo 1.22\n",
			"base/base.go": "package base\n\ntype Base struct{}\n\nfunc (Base) Run() int { return 1 }\n",
		}
		for p := range pkgs {
			for f := range per {
				files[fmt.Sprintf("p%d/m%d.go", p, f)] = fmt.Sprintf("package p%d\n\nimport \"example.com/gen/base\"\n\ntype C%d struct{ base.Base }\n\nfunc F%d() int { return base.Base{}.Run() }\n", p, f, f)
			}
		}
		writeFiles(t, root, files)
		// Each file twice, the declaration, and Run's receiver.
		return "base/base.go", 3, "Base", 2*pkgs*per + 2
	}, false},
	{"clangd", func(t *testing.T, root string) (string, int, string, int) {
		// Fewer than clangd's 1,000-reference limit.
		const n = 600
		files := map[string]string{
			"src/base.h": "#ifndef BASE_H\n#define BASE_H\nint base_run(int x);\n#endif\n",
			"src/base.c": "#include \"base.h\"\nint base_run(int x) { return x + 1; }\n",
		}
		var cc []map[string]string
		for i := range n {
			name := fmt.Sprintf("src/m%d.c", i)
			files[name] = fmt.Sprintf("#include \"base.h\"\nint f%d(void) { return base_run(%d); }\n", i, i)
			cc = append(cc, map[string]string{"directory": root, "file": name, "command": "cc -c " + name})
		}
		cc = append(cc, map[string]string{"directory": root, "file": "src/base.c", "command": "cc -c src/base.c"})
		b, err := json.Marshal(cc)
		if err != nil {
			t.Fatal(err)
		}
		files["compile_commands.json"] = string(b)
		writeFiles(t, root, files)
		return "src/base.c", 2, "base_run", n + 2
	}, true},
}

var referencesCount = regexp.MustCompile(`(?m)^references: (\d+)`)

// TestLoadingSaidReal: on generated projects that take their servers
// seconds to load, the first references call of a fresh session is
// answered while the server loads; a list that is partial then says it
// may be incomplete (text and not_ready), and a list given once the
// server has loaded (waited for through lsp's readiness, not a sleep) is
// complete and carries no caveat. gopls holds the first request until its
// load ends: its answer is complete and carries none either. Before,
// pyright's first answer was 1 reference of 9,001 read as complete.
func TestLoadingSaidReal(t *testing.T) {
	for _, lp := range loadingProjects {
		t.Run(lp.server, func(t *testing.T) {
			peers.Require(t, lp.server)
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			file, line, symbol, want := lp.write(t, root)
			sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{StructuredContent: true}, false)
			cs := sc.open(t, root)
			refs := map[string]any{"action": "references", "file": file, "line": line, "symbol": symbol}
			ask := func() (int, string, []json.RawMessage) {
				t.Helper()
				text, isErr, structured := stacktest.CallTool(t, cs, refs)
				var data struct {
					NotReady []json.RawMessage `json:"not_ready"`
				}
				m := referencesCount.FindStringSubmatch(text)
				if isErr || m == nil || json.Unmarshal(structured, &data) != nil {
					t.Fatalf("references: %v %.600s", isErr, text)
				}
				n, _ := strconv.Atoi(m[1])
				return n, text, data.NotReady
			}
			start := time.Now()
			during, text, notReady := ask()
			first := time.Since(start)
			caveat := strings.Contains(text, "this list may be incomplete")
			if during < want && (!caveat || len(notReady) == 0) {
				t.Fatalf("first answer: %d references of %d, given as complete:\n%.600s", during, want, text)
			}
			if lp.partial && during == want {
				t.Fatalf("first answer complete (%d references): the project loaded before it; it is too small to show the load", during)
			}
			if !lp.partial && (during != want || caveat) {
				t.Fatalf("first answer: %d references of %d, caveat %v:\n%.600s", during, want, caveat, text)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			if _, err := sc.adapter.Manager().WaitReady(ctx, filepath.Join(root, file)); err != nil {
				t.Fatal(err)
			}
			loaded := time.Since(start)
			after, text, notReady := ask()
			if after != want || strings.Contains(text, "may be incomplete") || notReady != nil {
				t.Fatalf("after the load: %d references of %d, not_ready %s:\n%.600s", after, want, notReady, text)
			}
			t.Logf("%s: first answer after %v: %d of %d references, caveat %v; ready after %v; then %d", lp.server,
				first.Round(time.Millisecond), during, want, caveat, loaded.Round(time.Millisecond), after)
		})
	}
}

// TestWorkspaceSymbolsFreshSessionReal: a fresh session's first workspace
// symbol query on pyright, which answers an empty list until it has
// listed the workspace's files, finds the class (the empty answer of a
// loading server is asked again once it has loaded) or says the server
// is loading; it never answers a bare 0. Before, it answered
// "workspace symbols matching ...: 0".
func TestWorkspaceSymbolsFreshSessionReal(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// pyright answers before it has even read its configuration, so
	// the package need not be large.
	pythonPackage(500)(t, root)
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "symbols", "query": "C499"})
	found := !isErr && strings.Contains(text, "class C499")
	said := strings.Contains(text, "pyright is still loading the project")
	if !found && !said {
		t.Fatalf("first workspace symbol query: %.600s", text)
	}
	t.Logf("first query: found %v, said loading %v: %.300s", found, said, text)
}
