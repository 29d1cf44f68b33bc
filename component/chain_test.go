package component

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// chainWait bounds every wait for a chain message (stacktest.Wait, the
// harness's bound, for the tests here that build their chains by hand).
const chainWait = stacktest.Wait

// stackChain is editor ⇄ adapter ⇄ component ⇄ agent run by stacktest,
// with an editor offering no LSP that answers session/request_permission
// with allow (or reject when deny is set) and records what it was asked.
type stackChain struct {
	*stacktest.Chain
	adapter *adapter.Adapter
	stage   *Stage
	asked   chan string
}

func startStack(t testing.TB, acfg adapter.Config, ccfg Config, deny bool) *stackChain {
	t.Helper()
	a, err := adapter.New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	if ccfg.Executable == "" {
		ccfg.Executable = stacktest.Executable
	}
	if ccfg.DiagnosticsWait == 0 {
		ccfg.DiagnosticsWait = stacktest.DiagnosticsWait
	}
	st, err := NewStage(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	sc := &stackChain{adapter: a, stage: st, asked: make(chan string, 16)}
	// Registered first, so it runs after the chain is closed.
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("adapter close: %v", err)
		}
	})
	editor := func(p *acptest.Peer, m acptest.Msg) bool {
		if m.Method != "session/request_permission" {
			return false
		}
		sc.asked <- string(m.Params)
		opt := "allow"
		if deny {
			opt = "reject"
		}
		p.SendLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, m.ID, opt))
		return true
	}
	sc.Chain = stacktest.Run(t, stacktest.Config{Stages: []proxy.Stage{a, st}, Editor: editor})
	return sc
}

// open runs initialize (the agent advertising HTTP MCP) and session/new on
// root, and returns the agent's MCP client on the injected entry.
func (sc *stackChain) open(t testing.TB, root string) *mcp.ClientSession {
	t.Helper()
	return sc.openWith(t, root)
}

// openWith is open with the session's additionalDirectories.
func (sc *stackChain) openWith(t testing.TB, root string, extra ...string) *mcp.ClientSession {
	t.Helper()
	sc.Initialize(t, `{}`, `{"mcpCapabilities":{"http":true},"sessionCapabilities":{"additionalDirectories":{}}}`)
	m, entries := sc.NewSession(t, root, extra...)
	if len(entries) != 1 || len(entries[0].Headers) != 1 {
		t.Fatalf("session/new reached the agent as %s", m.Raw)
	}
	return stacktest.Connect(t, &entries[0])
}

// TestIndexingSaidThroughChain: a local server that is still loading the
// project (fakelsp reporting work-done progress for an hour) makes the
// tool say "indexing" for a position request, the diagnostics verdict
// "indexing", and status "indexing", never an empty "no results"; a server
// whose start does not finish within the request timeout makes a failure
// that says the server is starting.
func TestIndexingSaidThroughChain(t *testing.T) {
	bin := fakelsp.Build(t)
	for _, tt := range []struct {
		name   string
		script fakelsp.Script
		want   map[string][]string // action → strings in the answer
	}{
		{"indexing", fakelsp.Script{Indexing: &fakelsp.Indexing{Duration: fakelsp.Duration(time.Hour), Eager: true}}, map[string][]string{
			"hover":       {"indexing: language server fake is still loading the project", "NOT an empty result"},
			"definition":  {"indexing: language server fake", "NOT an empty result"},
			"diagnostics": {"fake: indexing", "fake is still loading the project", "NO server answered fresh"},
			"status":      {"fake (local) indexing (Indexing 0%)"},
		}},
		{"starting", fakelsp.Script{Methods: map[string]fakelsp.Behavior{"initialize": {Delay: fakelsp.Duration(time.Hour)}}}, map[string][]string{
			"hover":  {"language server fake is still starting", "not ready yet", "fake is starting", "not an empty result"},
			"status": {"fake (local) starting"},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "script.json")
			if err := fakelsp.WriteScript(script, tt.script); err != nil {
				t.Fatal(err)
			}
			root, _ := filepath.EvalSymlinks(t.TempDir())
			file := filepath.Join(root, "a.fk")
			os.WriteFile(file, []byte("func Foo() {}\n"), 0o644)
			opts := lsp.Options{Servers: []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(script, filepath.Join(dir, "record")), Extensions: []string{"fk"}}}}
			opts.Timeouts.Request = lsp.Duration(time.Second)
			opts.Timeouts.Initialize = lsp.Duration(time.Hour)
			sc := startStack(t, adapter.Config{LSP: opts}, Config{DiagnosticsWait: time.Second}, false)
			cs := sc.open(t, root)
			if tt.name == "indexing" {
				// The start is not under test: on a loaded machine it may
				// outlast the short request timeout.
				if err := sc.adapter.Manager().Prewarm(t.Context(), file); err != nil {
					t.Fatal(err)
				}
			}
			for _, action := range []string{"hover", "definition", "diagnostics", "status"} {
				want, ok := tt.want[action]
				if !ok {
					continue
				}
				text, _, _ := stacktest.CallTool(t, cs, map[string]any{"action": action, "file": "a.fk", "line": 1, "symbol": "Foo"})
				for _, w := range want {
					if !strings.Contains(text, w) {
						t.Errorf("%s: want %q in:\n%s", action, w, text)
					}
				}
				if (action != "diagnostics" && strings.Contains(text, ": 0\n")) || strings.Contains(text, "no problems") || strings.Contains(text, "jsonrpc") {
					t.Errorf("%s answered as if empty:\n%s", action, text)
				}
			}
		})
	}
}

// TestGoplsActionsThroughChain drives the actions TestLocalGoplsThroughChain
// (package adapter) leaves out against a real gopls through
// editor ⇄ adapter ⇄ component ⇄ agent: type definition, implementation,
// signature help, type hierarchy both ways, document symbols with a kind
// filter, workspace symbols with a kind filter, code actions, servers,
// diagnostics of a glob and of the workspace with a severity filter,
// structuredContent, and rename and rename_file applied on disk after the
// editor allowed them.
func TestGoplsActionsThroughChain(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("shapes/shapes.go", shapesGo)
	write("main.go", shapesMain)
	// structuredContent on: its data is checked against the text below.
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{StructuredContent: true}, false)
	cs := sc.open(t, root)
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"action": "diagnostics", "file": "**/*.go", "severity": "error"}, []string{"main.go:13:", "not enough arguments in call to shapes.Scale", "gopls: fresh"}},
		{map[string]any{"action": "diagnostics", "file": "*"}, []string{"diagnostics for the workspace", "not enough arguments", "gopls: fresh"}},
		{map[string]any{"action": "type_definition", "file": "main.go", "line": 9, "symbol": "sq"}, []string{"shapes/shapes.go:9:6", "type Square struct"}},
		{map[string]any{"action": "implementation", "file": "shapes/shapes.go", "line": 4, "symbol": "Shape"}, []string{"shapes/shapes.go:9:6"}},
		{map[string]any{"action": "signature_help", "file": "main.go", "line": 13, "column": 27}, []string{"Scale(s shapes.Square, f int) shapes.Square", "active parameter"}},
		{map[string]any{"action": "type_hierarchy", "file": "shapes/shapes.go", "line": 9, "symbol": "Square"}, []string{"supertypes", "interface Shape"}},
		{map[string]any{"action": "type_hierarchy", "file": "shapes/shapes.go", "line": 4, "symbol": "Shape", "direction": "subtypes"}, []string{"subtypes", "Square"}},
		{map[string]any{"action": "symbols", "file": "shapes/shapes.go", "kind": "method"}, []string{"shapes/shapes.go:12:17 method", "Area"}},
		{map[string]any{"action": "symbols", "query": "Scale", "kind": "function"}, []string{"shapes/shapes.go:14:6 function", "Scale"}},
		{map[string]any{"action": "servers", "file": "main.go"}, []string{"gopls (local)"}},
		{map[string]any{"action": "status"}, []string{"gopls (local) ", "root=" + root, "pid=", "rss="}},
		{map[string]any{"action": "code_actions", "file": "main.go", "line": 9, "symbol": "sq"}, []string{"code actions at main.go:9:"}},
		{map[string]any{"action": "references", "file": "shapes/shapes.go", "line": 14, "symbol": "Scale", "include_declaration": false}, []string{"references: 1", "main.go:13:"}},
	} {
		text, isErr, _ := stacktest.CallTool(t, cs, c.args)
		if isErr {
			t.Errorf("%v: %s", c.args, text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: want %q in:\n%s", c.args, w, text)
				break
			}
		}
	}
	// structuredContent carries the same results as the text.
	_, _, data := stacktest.CallTool(t, cs, map[string]any{"action": "references", "file": "shapes/shapes.go", "line": 14, "symbol": "Scale"})
	var l listing
	if err := json.Unmarshal(data, &l); err != nil || l.Total != 2 || len(l.Items) != 2 || l.Items[0].File != "main.go" || l.Items[0].Line != 13 || l.Items[0].Context == "" {
		t.Errorf("structuredContent %s (%v)", data, err)
	}

	// rename applied: the editor is asked, both files change.
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "rename", "file": "shapes/shapes.go", "line": 14, "symbol": "Scale", "new_name": "Grow", "apply": true})
	if isErr || !strings.Contains(text, "applied") {
		t.Fatalf("rename: %s", text)
	}
	if asked := <-sc.asked; !strings.Contains(asked, `"sessionId":"S1"`) || !strings.Contains(asked, "+func Grow(") {
		t.Errorf("permission asked with %s", asked)
	}
	for _, f := range []string{"main.go", "shapes/shapes.go"} {
		if b, _ := os.ReadFile(filepath.Join(root, f)); !strings.Contains(string(b), "Grow(") || strings.Contains(string(b), "Scale(") {
			t.Errorf("%s after rename:\n%s", f, b)
		}
	}
	// rename_file applied: the move happens and gopls sees the file at its
	// new path (references still resolve there).
	text, isErr, _ = stacktest.CallTool(t, cs, map[string]any{"action": "rename_file", "file": "shapes/shapes.go", "new_name": "shapes/geometry.go", "apply": true})
	if isErr || !strings.Contains(text, "applied") {
		t.Fatalf("rename_file: %s", text)
	}
	<-sc.asked
	if _, err := os.Stat(filepath.Join(root, "shapes", "geometry.go")); err != nil {
		t.Errorf("not moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "shapes", "shapes.go")); err == nil {
		t.Error("old file still there")
	}
	text, _, _ = stacktest.CallTool(t, cs, map[string]any{"action": "references", "file": "shapes/geometry.go", "line": 14, "symbol": "Grow"})
	if !strings.Contains(text, "main.go:13:") || !strings.Contains(text, "shapes/geometry.go:14:6") {
		t.Errorf("references after the move:\n%s", text)
	}
}

const shapesGo = `package shapes

// Shape has an area.
type Shape interface {
	Area() int
}

// Square is a Shape.
type Square struct{ Side int }

// Area implements Shape.
func (s Square) Area() int { return s.Side * s.Side }

func Scale(s Square, f int) Square { return Square{s.Side * f} }
`

const shapesMain = `package main

import (
	"fmt"

	"example.com/m/shapes"
)

var sq = shapes.Square{Side: 2}

func main() {
	fmt.Println(sq.Area())
	fmt.Println(shapes.Scale(sq))
}
`

// TestGoplsDeniedRename: through the whole chain with a real gopls, an
// applied rename the editor declines leaves every file as it was and tells
// no server of a change.
func TestGoplsDeniedRename(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, true)
	cs := sc.open(t, root)
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum", "apply": true})
	if !isErr || !strings.Contains(text, "declined; nothing was changed") {
		t.Errorf("denied rename answered: %s", text)
	}
	if asked := <-sc.asked; !strings.Contains(asked, "+func sum(a, b int) int") {
		t.Errorf("permission asked with %s", asked)
	}
	if b, _ := os.ReadFile(main); string(b) != mainGo {
		t.Errorf("file changed after denial:\n%s", b)
	}
	// gopls still sees the old name: nothing was announced.
	text, _, _ = stacktest.CallTool(t, cs, map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"})
	if !strings.Contains(text, "func add(a int, b int) int") {
		t.Errorf("hover after denial: %s", text)
	}
}

// TestGoplsDidSaveInjection: the editor saves a file with an error
// (_lsp/didSave): the component fetches fresh diagnostics from a real
// gopls through the adapter into its cache, and the agent's next
// session/prompt carries gopls's message once; the prompt after that is
// passed on byte for byte.
func TestGoplsDidSaveInjection(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	sc.open(t, root)
	c := sc.stage.Tool()
	// The editor's user breaks the file and saves it.
	os.WriteFile(main, []byte(strings.Replace(mainGo, "add(3, 4)", "add(3)", 1)), 0o644)
	sc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"lsp/didSave","params":{"uri":%q}}`, "file://"+main)
	// A later message from the editor reaching the agent means the save
	// was handled (one direction is handled in order) and its fetch begun.
	sc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"other"}}`)
	if m := sc.Agent.Next(t); m.Method != "session/cancel" {
		t.Fatalf("agent got %s", m.Raw)
	}
	c.fetches.Wait()
	if d, ok := c.Cache().Get("file://" + main); !ok || len(d) != 1 || !strings.Contains(d[0].Message, "not enough arguments in call to add") {
		t.Fatalf("cache after save: %+v %v", d, ok)
	}
	prompt := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"S1","prompt":[{"type":"text","text":"go on"}]}}`
	sc.Editor.Sendf(t, "%s", prompt)
	m := sc.Agent.Next(t)
	if !strings.Contains(string(m.Params), "main.go:8:30: error: not enough arguments in call to add") {
		t.Errorf("prompt reached the agent as %s", m.Params)
	}
	sc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`)
	sc.Editor.Next(t)
	sc.Editor.Sendf(t, "%s", strings.Replace(prompt, `"id":7`, `"id":8`, 1))
	if m := sc.Agent.Next(t); strings.TrimRight(m.Raw, "\n") != strings.Replace(prompt, `"id":7`, `"id":8`, 1) {
		t.Errorf("second prompt changed: %s", m.Raw)
	}
}

// TestGoplsCodeActionApply: gopls's organize-imports action, listed with a
// kind filter and applied by index through the chain, removes the unused
// import on disk after the editor allowed it.
func TestGoplsCodeActionApply(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	main := filepath.Join(root, "main.go")
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println() }\n"
	os.WriteFile(main, []byte(src), 0o644)
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	args := map[string]any{"action": "code_actions", "file": "main.go", "line": 5, "column": 2, "kind": "source.organizeImports"}
	text, isErr, _ := stacktest.CallTool(t, cs, args)
	if isErr || !strings.Contains(text, "1. ") || !strings.Contains(text, "[source.organizeImports]") {
		t.Fatalf("list: %s", text)
	}
	args["apply"], args["index"] = true, 1
	text, isErr, _ = stacktest.CallTool(t, cs, args)
	// The edit was checked before it was written: the unused import's
	// error goes, and the user was shown it.
	const checked = "check of the edit to main.go before writing it: 0 added, 1 removed"
	if isErr || !strings.Contains(text, "applied") || !strings.Contains(text, checked) || !strings.Contains(text, `"os" imported and not used`) {
		t.Fatalf("apply: %s", text)
	}
	if asked := <-sc.asked; !strings.Contains(asked, checked) {
		t.Errorf("the user was not shown the check: %s", asked)
	}
	if b, _ := os.ReadFile(main); strings.Contains(string(b), `"os"`) || !strings.Contains(string(b), `"fmt"`) {
		t.Errorf("after organize imports:\n%s", b)
	}
}
