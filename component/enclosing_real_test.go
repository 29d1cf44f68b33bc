package component

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// callerProject is a small project per language where one function, add,
// is called from a method of a class in its own file, from a method of a
// class in another file (itself called by a function there), from the
// program's main function and from a test file.
type callerProject struct {
	peer  string
	files map[string]string
	// open is the file asked about: add's declaration is on line 1 of it.
	open string
	// refs are the lines the references answer must hold, a call each,
	// with its enclosing symbol.
	refs []string
}

var callerProjects = []callerProject{
	{
		peer: "gopls",
		files: map[string]string{
			"go.mod":            "module example.com/m\n\ngo 1.22\n",
			"calc/calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n\ntype Pair struct{ A, B int }\n\nfunc (p Pair) Sum() int { return Add(p.A, p.B) }\n\ntype Summer interface{ Sum() int }\n\nvar _ Summer = Pair{}\n",
			"app/app.go":        "package app\n\nimport \"example.com/m/calc\"\n\ntype Loader struct{ n int }\n\nfunc (l *Loader) Run() int {\n\treturn calc.Add(l.n, 1)\n}\n\nfunc Start() int {\n\tl := &Loader{}\n\treturn l.Run()\n}\n",
			"main.go":           "package main\n\nimport (\n\t\"example.com/m/app\"\n\t\"example.com/m/calc\"\n)\n\nfunc main() {\n\tprintln(calc.Add(1, 2), calc.Add(3, 4), app.Start())\n}\n",
			"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
		},
		open: "calc/calc.go",
		refs: []string{
			"calc/calc.go:7:34 in method (Pair).Sum",
			"app/app.go:8:14 in method (*Loader).Run",
			"main.go:9:15 in function main",
			"calc/calc_test.go:6:5 in function TestAdd",
		},
	},
	{
		peer: "pyright-langserver",
		files: map[string]string{
			"pyrightconfig.json": `{}`,
			"calc.py":            "def add(a, b):\n    return a + b\n\n\nclass Pair:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\n\n    def total(self):\n        return add(self.a, self.b)\n",
			"app/__init__.py":    "",
			"app/loader.py":      "from calc import add\n\n\nclass Loader:\n    def run(self):\n        return add(1, 2)\n\n\ndef start():\n    return Loader().run()\n",
			"main.py":            "from calc import add\nfrom app.loader import start\n\n\ndef main():\n    print(add(1, 2), start())\n",
			"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
			"tests/__init__.py":  "",
		},
		open: "calc.py",
		refs: []string{
			"calc.py:11:16 in method Pair.total",
			"app/loader.py:6:16 in method Loader.run",
			"main.py:6:11 in function main",
			"tests/test_calc.py:5:12 in function test_add",
		},
	},
	{
		peer: "typescript-language-server",
		files: map[string]string{
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2020","lib":["es2020","dom"]}}`,
			"calc.ts":       "export function add(a: number, b: number): number {\n    return a + b;\n}\n\nexport class Pair implements Summer {\n    constructor(private a: number, private b: number) {}\n    total(): number {\n        return add(this.a, this.b);\n    }\n}\n\nexport interface Summer {\n    total(): number;\n}\n",
			"app/loader.ts": "import { add } from \"../calc\";\n\nexport class Loader {\n    run(): number {\n        return add(1, 2);\n    }\n}\n\nexport function start(): number {\n    return new Loader().run();\n}\n",
			"main.ts":       "import { add } from \"./calc\";\nimport { start } from \"./app/loader\";\n\nfunction main(): void {\n    console.log(add(1, 2), start());\n}\n\nmain();\n",
			"calc.test.ts":  "import { add } from \"./calc\";\n\nexport function testAdd(): boolean {\n    return add(1, 2) === 3;\n}\n",
		},
		open: "calc.ts",
		refs: []string{
			"calc.ts:8:16 in method Pair.total",
			"app/loader.ts:5:16 in method Loader.run",
			"main.ts:5:17 in function main",
			"calc.test.ts:4:12 in function testAdd",
		},
	},
}

// declLine is the line of the function add in a project's open file, and
// its name as written there.
func (p callerProject) decl() (line int, name string) {
	if p.peer == "gopls" {
		return 3, "Add"
	}
	return 1, "add"
}

// start writes the project into a new workspace and starts the tool on it,
// answered by a Manager with the real server; it waits until the server
// has analysed the open file (its diagnostics are fresh).
func (p callerProject) start(t *testing.T) (*Session, *mcp.ClientSession) {
	t.Helper()
	_, s, cs := p.startTool(t)
	return s, cs
}

// startTool is start, returning the Tool too.
func (p callerProject) startTool(t testing.TB) (*Tool, *Session, *mcp.ClientSession) {
	t.Helper()
	peers.Require(t, p.peer)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range p.files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root}, Env: peers.Env(),
		Timeouts: lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(3 * time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	c, s := startSession(t, Config{DiagnosticsWait: 3 * time.Minute, StructuredContent: true}, &managerBackend{m: m, anyFile: filepath.Join(root, p.open)}, root)
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "diagnostics", "file": p.open}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, ": fresh") {
		t.Fatalf("diagnostics: %v %v", err, res)
	}
	return c, s, cs
}

// TestEnclosingSymbolsReal: a references answer says, for each call of
// add in four files (a method beside it, a method in another folder, main,
// a test), which symbol holds it, as gopls, pyright and
// typescript-language-server outline the files; structuredContent has
// the same in each item's "in".
func TestEnclosingSymbolsReal(t *testing.T) {
	for _, p := range callerProjects {
		t.Run(p.peer, func(t *testing.T) {
			_, cs := p.start(t)
			line, name := p.decl()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{
				"action": "references", "file": p.open, "line": line, "symbol": name}})
			if err != nil || res.IsError {
				t.Fatalf("references: %v %v", err, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			for _, want := range p.refs {
				if !strings.Contains(text, "  "+want+"\n") {
					t.Errorf("want %q in:\n%s", want, text)
				}
			}
			var data struct {
				Items []struct {
					File string `json:"file"`
					Line int    `json:"line"`
					In   string `json:"in"`
				} `json:"items"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &data); err != nil {
				t.Fatal(err)
			}
			ins := map[string]string{}
			for _, it := range data.Items {
				ins[it.File] += it.In + ";"
			}
			for _, want := range p.refs {
				loc, in, _ := strings.Cut(want, " in ")
				file := loc[:strings.IndexByte(loc, ':')]
				if !strings.Contains(ins[file], in+";") {
					t.Errorf("structuredContent: %s: want in %q among %q", file, in, ins[file])
				}
			}
		})
	}
}

// BenchmarkReferencesEnclosing times a references answer through the tool
// (in-memory MCP client → component → lsp.Manager → gopls) for a function
// called once from each of N files, every place on one page: warm, with
// the files' outlines kept from the call before, and cold, the outline
// cache emptied before each call, so every file's document symbols are
// asked again. Run before the enclosing lookup existed (no cold then), it
// gives the lookup's cost.
func BenchmarkReferencesEnclosing(b *testing.B) {
	for _, n := range []int{10, 50} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			files := map[string]string{
				"go.mod":     "module example.com/m\n\ngo 1.22\n",
				"lib/lib.go": "package lib\n\nfunc Add(a, b int) int { return a + b }\n",
			}
			for i := range n {
				files[fmt.Sprintf("p%02d/p.go", i)] = fmt.Sprintf("package p%02d\n\nimport \"example.com/m/lib\"\n\ntype T struct{}\n\nfunc (T) Get() int { return 1 }\n\nfunc F%d(x int) int {\n\ty := x * 2\n\treturn lib.Add(x, y)\n}\n\nfunc G() int { return 3 }\n", i, i)
			}
			p := callerProject{peer: "gopls", files: files, open: "lib/lib.go"}
			c, _, cs := p.startTool(b)
			args := &mcp.CallToolParams{Name: "lsp", Arguments: map[string]any{"action": "references", "file": "lib/lib.go", "line": 3, "symbol": "Add", "limit": 100}}
			call := func() {
				res, err := cs.CallTool(context.Background(), args)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			call() // gopls loads the packages
			b.Run("warm", func(b *testing.B) {
				for b.Loop() {
					call()
				}
			})
			b.Run("cold", func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					c.outlines = newOutlineCache()
					b.StartTimer()
					call()
				}
			})
		})
	}
}
