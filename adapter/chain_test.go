package adapter

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// msg is one decoded JSON-RPC message seen by a test end (Raw is the
// line as it arrived).
type msg = acptest.Msg

// testChain is editor ⇄ adapter ⇄ [component] ⇄ agent run by stacktest.
type testChain struct {
	*stacktest.Chain
	adapter *Adapter
	stage   *component.Stage
	cancel  func()
}

func startChain(t testing.TB, cfg Config, withComponent bool) *testChain {
	t.Helper()
	return startChainEditor(t, cfg, withComponent, nil)
}

// startChainEditor is startChain with editor seeing every message that
// reaches the editor end first (stacktest.Config.Editor).
func startChainEditor(t testing.TB, cfg Config, withComponent bool, editor acptest.Handler) *testChain {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tc := &testChain{adapter: a}
	comps := []proxy.Stage{a}
	if withComponent {
		st, err := component.NewStage(component.Config{Executable: stacktest.Executable, DiagnosticsWait: stacktest.DiagnosticsWait})
		if err != nil {
			t.Fatal(err)
		}
		tc.stage = st
		comps = append(comps, st)
	}
	tc.Chain = stacktest.Start(context.Background(), stacktest.Config{Stages: comps, Editor: editor})
	var once bool
	tc.cancel = func() {
		if once {
			return
		}
		once = true
		tc.Close(context.Background())
		if err := a.Close(); err != nil {
			t.Errorf("adapter close: %v", err)
		}
	}
	t.Cleanup(tc.cancel)
	return tc
}

// stopAndCheckProcesses stops the chain and checks that no process of
// the given process groups is left.
func (tc *testChain) stopAndCheckProcesses(t *testing.T, pids []int) {
	t.Helper()
	tc.cancel()
	for _, pid := range pids {
		alive, err := fakelsp.Alive(pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(alive) > 0 {
			t.Errorf("process group %d still has %v after Close", pid, alive)
		}
	}
}

func serverPIDs(m *lsp.Manager) []int {
	var out []int
	for _, s := range m.Servers() {
		if s.PID > 0 {
			out = append(out, s.PID)
		}
	}
	return out
}

// initialize runs the initialize exchange with editorMeta as the editor's
// clientCapabilities._meta (raw JSON, "" for none) and returns what the
// agent and the editor saw.
func (tc *testChain) initialize(t testing.TB, editorMeta, agentMeta string) (atAgent, atEditor msg) {
	t.Helper()
	caps := `{"fs":{"readTextFile":true,"writeTextFile":true}}`
	if editorMeta != "" {
		caps = `{"fs":{"readTextFile":true,"writeTextFile":true},"_meta":` + editorMeta + `}`
	}
	agentCaps := `{"loadSession":true,"mcpCapabilities":{"http":true}}`
	if agentMeta != "" {
		agentCaps = `{"loadSession":true,"mcpCapabilities":{"http":true},"_meta":` + agentMeta + `}`
	}
	return tc.Initialize(t, caps, agentCaps)
}

// newSession opens a session on root and returns the MCP entry the
// component injected (nil without component).
func (tc *testChain) newSession(t *testing.T, root string) *stacktest.Entry {
	t.Helper()
	_, entries := tc.NewSession(t, root)
	if len(entries) == 0 {
		return nil
	}
	return &entries[0]
}

// goWorkspace writes a Go module with a known error into a fresh folder.
func goWorkspace(t *testing.T) (root, main string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	main = filepath.Join(root, "main.go")
	must(t, os.WriteFile(main, []byte(brokenGo), 0o644))
	return root, main
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const brokenGo = `package main

import "fmt"

func add(a, b int) int { return a + b }

func main() {
	fmt.Println(add(1, 2), add(3))
}
`

// TestLocalGoplsThroughChain runs editor ⇄ adapter ⇄ component ⇄ agent
// with an editor that offers no LSP: the agent's lsp tool calls travel up
// as _lsp/* and are answered by a real gopls the adapter started for the
// session's folder, with gopls's own words.
func TestLocalGoplsThroughChain(t *testing.T) {
	peers.Require(t, "gopls")
	root, _ := goWorkspace(t)
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, true)
	tc.initialize(t, "", "")
	cs := stacktest.Connect(t, tc.newSession(t, root))

	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		// Workspace-wide before anything is known: gopls is started on
		// a file found under the session folder.
		{map[string]any{"action": "diagnostics"}, []string{"main.go:8:", "not enough arguments in call to add", "gopls: fresh"}},
		{map[string]any{"action": "diagnostics", "file": "main.go"}, []string{"main.go:8:", "not enough arguments in call to add", "gopls: fresh"}},
		{map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, []string{"func add(a int, b int) int"}},
		{map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}, []string{"main.go:5:6"}},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"main.go:8:14", "main.go:8:25"}},
		{map[string]any{"action": "symbols", "file": "main.go"}, []string{"function add", "function main"}},
		{map[string]any{"action": "status"}, []string{"gopls"}},
		{map[string]any{"action": "capabilities", "file": "main.go"}, []string{"gopls"}},
		{map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 5, "symbol": "add"}, []string{"callers: 1", "main.go:7:6 function main"}},
		{map[string]any{"action": "call_hierarchy", "file": "main.go", "line": 7, "symbol": "main", "direction": "outgoing"}, []string{"add"}},
		{map[string]any{"action": "symbols", "query": "add"}, []string{"main.go:5:6"}},
		{map[string]any{"action": "hover", "symbol": "add"}, []string{"func add(a int, b int) int"}},
		{map[string]any{"action": "format", "file": "main.go"}, nil},
		{map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "sum"}, []string{"+func sum(a, b int) int"}},
		{map[string]any{"action": "restart", "server": "gopls"}, []string{"restarted gopls"}},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"main.go:8:14"}},
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
	// Nothing of this reached the editor: it offers no LSP.
	select {
	case m := <-tc.Editor.Messages():
		t.Errorf("editor got %s", m.Raw)
	default:
	}
	pids := serverPIDs(tc.adapter.Manager())
	if len(pids) != 1 {
		t.Errorf("local servers %+v, want one gopls", tc.adapter.Manager().Servers())
	}
	tc.stopAndCheckProcesses(t, pids)
}

// fakeWorkspace builds the fake language server running script and a
// workspace holding a.fk: it returns the workspace root (symlinks
// resolved), the file, and the configuration of a server "fake" for .fk
// files.
func fakeWorkspace(t *testing.T, script fakelsp.Script) (root, file string, servers []lsp.ServerConfig) {
	t.Helper()
	bin := fakelsp.Build(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "script.json")
	must(t, fakelsp.WriteScript(path, script))
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	file = filepath.Join(root, "a.fk")
	must(t, os.WriteFile(file, []byte("func Foo() {}\n"), 0o644))
	servers = []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(path, filepath.Join(dir, "record")), Extensions: []string{"fk"}}}
	return root, file, servers
}
