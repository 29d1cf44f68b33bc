package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/rfdeditor"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// rfdChain is a chain whose editor speaks ACP's LSP proposal and fronts
// real gopls and pyright over a folder holding shop.go and shop.py.
type rfdChain struct {
	*testChain
	editor  *rfdeditor.Editor
	root    string
	prewarm chan []string

	mu sync.Mutex
	// meta are the `_lsp/*` requests the editor got (refused -32601).
	meta []string
}

// rfdOpts shape startRFD's chain.
type rfdOpts struct {
	v2 bool
	// meta is the editor's clientCapabilities._meta besides `lsp` (v1).
	meta string
	// agentMeta is the agent's agentCapabilities._meta.
	agentMeta string
	// editorTimeout is the adapter's EditorTimeout (0: its default).
	editorTimeout time.Duration
}

// startRFD runs editor ⇄ adapter ⇄ component ⇄ agent with an rfdeditor
// configured by cfg, the editor offering `lsp` in initialize (v1, or v2's
// capabilities.lsp), and opens session S1 on the folder. The adapter
// prewarms: it must start no server the editor's cover.
func startRFD(t *testing.T, cfg rfdeditor.Config, v2 bool) (*rfdChain, *stacktest.Entry) {
	t.Helper()
	return startRFDWith(t, cfg, rfdOpts{v2: v2})
}

func startRFDWith(t *testing.T, cfg rfdeditor.Config, o rfdOpts) (*rfdChain, *stacktest.Entry) {
	t.Helper()
	peers.Require(t, "gopls")
	peers.Require(t, "pyright-langserver")
	root := copyWorkspace(t, "go")
	py, err := os.ReadFile(filepath.Join("testdata", "python", "shop.py"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "shop.py"), py, 0o644))
	cfg.Servers, cfg.Env = rfdeditor.GoAndPython(), peers.Env()
	ed, err := rfdeditor.New(cfg)
	must(t, err)
	rc := &rfdChain{editor: ed, root: root, prewarm: make(chan []string, 1)}
	rc.testChain = startChainEditor(t, Config{LSP: lsp.Options{Env: peers.Env()}, Prewarm: true, EditorTimeout: o.editorTimeout,
		OnPrewarm: func(_ string, servers []string, _ error) { rc.prewarm <- servers }}, true,
		func(p *acptest.Peer, m acptest.Msg) bool {
			if m.IsRequest() && strings.HasPrefix(m.Method, "_lsp/") {
				rc.mu.Lock()
				rc.meta = append(rc.meta, m.Method)
				rc.mu.Unlock()
				p.ReplyError(m.ID, -32601, "not answered here")
				return true
			}
			return ed.Handler(p, m)
		})
	t.Cleanup(func() {
		rc.cancel()
		if err := ed.Close(); err != nil {
			t.Error(err)
		}
	})
	must(t, ed.AddSession(context.Background(), "S1", root))
	caps := `{"fs":{"readTextFile":true,"writeTextFile":true},"lsp":{}}`
	if o.meta != "" {
		caps = `{"fs":{"readTextFile":true,"writeTextFile":true},"lsp":{},"_meta":` + o.meta + `}`
	}
	agentCaps := `{"loadSession":true,"mcpCapabilities":{"http":true}}`
	if o.agentMeta != "" {
		agentCaps = `{"loadSession":true,"mcpCapabilities":{"http":true},"_meta":` + o.agentMeta + `}`
	}
	if o.v2 {
		rc.Editor.Sendf(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"capabilities":{"lsp":{}}}}`)
		rc.Agent.Next(t)
		rc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}}`)
		rc.Editor.Next(t)
	} else {
		rc.Initialize(t, caps, agentCaps)
	}
	e := rc.newSession(t, root)
	if started := <-rc.prewarm; len(started) > 0 {
		t.Errorf("prewarm started local %v, which the editor's servers cover", started)
	}
	return rc, e
}

// goplsProcesses are the gopls processes below this test process whose
// parent is no gopls (gopls starts helpers of its own, named gopls too):
// the editor's and any the adapter started.
func goplsProcesses(t *testing.T) []int {
	t.Helper()
	procs, err := procfs.Table()
	must(t, err)
	var out []int
	for _, p := range procfs.Descendants(procs, os.Getpid()) {
		if p.Comm == "gopls" && !p.Gone() && procs[p.PPid].Comm != "gopls" {
			out = append(out, p.Pid)
		}
	}
	slices.Sort(out)
	return out
}

// editorPIDs are the pids of the editor's servers named name.
func editorPIDs(ed *rfdeditor.Editor, name string) []int {
	var out []int
	for _, s := range ed.Manager().Servers() {
		if s.Name == name && s.PID > 0 {
			out = append(out, s.PID)
		}
	}
	slices.Sort(out)
	return out
}

// answered are the methods the editor answered through lsp/request for
// server name.
func answered(ed *rfdeditor.Editor, name string) []string {
	var out []string
	for _, r := range ed.Requests() {
		if r.Refused == "" && !r.Held && strings.HasPrefix(r.Server, name+"@") && !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	return out
}

// TestRFDEditorServesTheTool: with an editor offering ACP's LSP proposal
// (v1 and v2 capability) and fronting real gopls and pyright, the tool's
// definition (after non-BMP text), references, hover, symbols (of a file
// and of the workspace), pulled diagnostics (of a file and of the
// workspace) and rename preview come from the editor's servers through
// lsp/request; no local gopls is started (the process table holds the
// editor's alone). pyright lists no diagnosticProvider (it registers it
// later): Python diagnostics come from a local pyright, by the rule.
func TestRFDEditorServesTheTool(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "v1", true: "v2"}[v2], func(t *testing.T) {
			rc, entry := startRFD(t, rfdeditor.Config{}, v2)
			cs := stacktest.Connect(t, entry)
			for _, c := range []struct {
				args map[string]any
				want []string
			}{
				{map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}, []string{"shop.go:3:6"}},
				{map[string]any{"action": "references", "file": "shop.go", "line": 3, "symbol": "total"}, []string{"shop.go:11:", "shop.go:13:"}},
				{map[string]any{"action": "hover", "file": "shop.go", "line": 3, "symbol": "total"}, []string{"func total(prices []int) int"}},
				{map[string]any{"action": "symbols", "file": "shop.go"}, []string{"total", "broken"}},
				{map[string]any{"action": "diagnostics", "file": "shop.go"}, []string{"shop.go:13:", "undefined: missingPrices", "editor:gopls"}},
				{map[string]any{"action": "rename", "file": "shop.go", "line": 3, "symbol": "total", "new_name": "sum2"}, []string{"sum2"}},
				{map[string]any{"action": "hover", "file": "shop.py", "line": 1, "symbol": "total"}, []string{"total"}},
				{map[string]any{"action": "diagnostics", "file": "shop.py"}, []string{"shop.py:6:", `"missing_prices" is not defined`}},
				{map[string]any{"action": "symbols", "query": "total"}, []string{"shop.go:3:"}},
				{map[string]any{"action": "diagnostics", "file": "*"}, []string{"undefined: missingPrices", `"missing_prices" is not defined`}},
			} {
				text, isErr, _ := stacktest.CallTool(t, cs, c.args)
				for _, w := range c.want {
					if isErr || !strings.Contains(text, w) {
						t.Errorf("%v: want %q in:\n%s", c.args, w, text)
						break
					}
				}
			}
			got := answered(rc.editor, "gopls")
			for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/hover",
				"textDocument/documentSymbol", "textDocument/diagnostic", "textDocument/rename", "workspace/symbol"} {
				if !slices.Contains(got, m) {
					t.Errorf("the editor's gopls was not asked %s (asked %v)", m, got)
				}
			}
			if got := answered(rc.editor, "pyright"); !slices.Contains(got, "textDocument/hover") || slices.Contains(got, "textDocument/diagnostic") {
				t.Errorf("the editor's pyright answered %v: want hover, and no diagnostics (it lists no diagnosticProvider)", got)
			}
			if procs, editor := goplsProcesses(t), editorPIDs(rc.editor, "gopls"); len(editor) != 1 || !slices.Equal(procs, editor) {
				t.Errorf("gopls processes %v, want the editor's %v alone", procs, editor)
			}
			var local []string
			for _, s := range rc.adapter.Manager().Servers() {
				local = append(local, s.Name)
			}
			if !slices.Equal(local, []string{"pyright"}) {
				t.Errorf("local servers %v, want pyright alone (for Python diagnostics)", local)
			}
		})
	}
}

// TestRFDFallbackPerMethod: a method the editor does not list (references)
// and one it lists but refuses with method_not_forwarded (hover) are
// answered by a local gopls, each for itself; definition still comes
// from the editor's, and a refused method is not offered to it again.
func TestRFDFallbackPerMethod(t *testing.T) {
	methods := slices.DeleteFunc(slices.Clone(rfdeditor.DefaultMethods), func(m string) bool { return m == "textDocument/references" })
	rc, entry := startRFD(t, rfdeditor.Config{Methods: methods, Refuse: []string{"textDocument/hover"}}, false)
	cs := stacktest.Connect(t, entry)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}, "shop.go:3:6"},
		{map[string]any{"action": "hover", "file": "shop.go", "line": 3, "symbol": "total"}, "func total(prices []int) int"},
		{map[string]any{"action": "hover", "file": "shop.go", "line": 13, "symbol": "total"}, "func total(prices []int) int"},
		{map[string]any{"action": "references", "file": "shop.go", "line": 3, "symbol": "total"}, "shop.go:13:"},
	} {
		if text, isErr, _ := stacktest.CallTool(t, cs, c.args); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: want %q in:\n%s", c.args, c.want, text)
		}
	}
	// definition asks documentSymbol too (for the enclosing symbol).
	if got := answered(rc.editor, "gopls"); !slices.Equal(got, []string{"textDocument/definition", "textDocument/documentSymbol"}) {
		t.Errorf("the editor's gopls answered %v, want definition and documentSymbol alone", got)
	}
	// Hover once, refused: it is not sent again; references never.
	var hovers []string
	for _, r := range rc.editor.Requests() {
		switch r.Method {
		case "textDocument/hover":
			hovers = append(hovers, r.Refused)
		case "textDocument/references":
			t.Errorf("references, not listed, reached the editor")
		}
	}
	if !slices.Equal(hovers, []string{"method_not_forwarded"}) {
		t.Errorf("hovers reaching the editor: %q, want one refused", hovers)
	}
	if local := serverPIDs(rc.adapter.Manager()); len(local) != 1 {
		t.Errorf("local servers %+v, want one gopls", rc.adapter.Manager().Servers())
	}
}

// TestRFDServerNotRunning: the editor's gopls listed running and then
// refusing with server_not_running (state starting): the tool's answer
// says it is starting, is no result, and no local gopls steps in; once it
// runs again the answer comes from it.
func TestRFDServerNotRunning(t *testing.T) {
	rc, entry := startRFD(t, rfdeditor.Config{}, false)
	cs := stacktest.Connect(t, entry)
	def := map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}
	if text, isErr, _ := stacktest.CallTool(t, cs, def); isErr || !strings.Contains(text, "shop.go:3:6") {
		t.Fatalf("definition: %s", text)
	}
	id := rfdeditor.ServerID("gopls", rc.root)
	rc.editor.SetState(id, "starting")
	for _, args := range []map[string]any{
		{"action": "references", "file": "shop.go", "line": 3, "symbol": "total"}, // the cached list says running
		def, // listed anew: starting
		{"action": "diagnostics", "file": "shop.go"},
	} {
		text, _, _ := stacktest.CallTool(t, cs, args)
		if !strings.Contains(text, "starting") || strings.Contains(text, "shop.go:3:6") || strings.Contains(text, "shop.go:13:") {
			t.Errorf("%v with the editor's gopls starting: want it said, no result:\n%s", args, text)
		}
	}
	rc.editor.SetState(id, "")
	if text, isErr, _ := stacktest.CallTool(t, cs, def); isErr || !strings.Contains(text, "shop.go:3:6") {
		t.Errorf("definition once running: %s", text)
	}
	if procs, editor := goplsProcesses(t), editorPIDs(rc.editor, "gopls"); !slices.Equal(procs, editor) {
		t.Errorf("gopls processes %v, want the editor's %v alone", procs, editor)
	}
}

// TestRFDUnknownServer: after the editor renumbered its servers, a
// request naming the cached id is refused with unknown_server; the
// adapter lists them again once and the answer comes from the new id.
func TestRFDUnknownServer(t *testing.T) {
	rc, entry := startRFD(t, rfdeditor.Config{}, false)
	cs := stacktest.Connect(t, entry)
	def := map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}
	if text, isErr, _ := stacktest.CallTool(t, cs, def); isErr || !strings.Contains(text, "shop.go:3:6") {
		t.Fatalf("definition: %s", text)
	}
	lists := rc.editor.Lists()
	rc.editor.Renumber()
	if text, isErr, _ := stacktest.CallTool(t, cs, def); isErr || !strings.Contains(text, "shop.go:3:6") {
		t.Errorf("definition after renumbering: %s", text)
	}
	if got := rc.editor.Lists() - lists; got != 1 {
		t.Errorf("listed %d more times, want once", got)
	}
	reqs := rc.editor.Requests()
	if last := reqs[len(reqs)-1].Server; last != rfdeditor.ServerID("gopls", rc.root)+"#1" {
		t.Errorf("last request went to %q", last)
	}
}

// TestRFDPositionEncoding: an editor whose server counts in UTF-8 gets
// the position of a call after "Ünïcödé 🛒" in bytes, and the locations it
// answers in bytes are shown at the right characters.
func TestRFDPositionEncoding(t *testing.T) {
	rc, entry := startRFD(t, rfdeditor.Config{Encoding: position.UTF8}, false)
	cs := stacktest.Connect(t, entry)
	src, err := os.ReadFile(filepath.Join(rc.root, "shop.go"))
	must(t, err)
	line := strings.Split(string(src), "\n")[10]
	byteCol := strings.Index(line, "total(")
	runeCol := utf8.RuneCountInString(line[:byteCol])
	if byteCol == runeCol {
		t.Fatalf("line 11 holds no multi-byte text: %q", line)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}, "shop.go:3:6"},
		{map[string]any{"action": "references", "file": "shop.go", "line": 3, "symbol": "total"}, fmt.Sprintf("shop.go:11:%d", runeCol+1)},
	} {
		if text, isErr, _ := stacktest.CallTool(t, cs, c.args); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: want %q in:\n%s", c.args, c.want, text)
		}
	}
	for _, r := range rc.editor.Requests() {
		if r.Method != "textDocument/definition" {
			continue
		}
		var p struct {
			Position struct{ Line, Character int } `json:"position"`
		}
		must(t, json.Unmarshal(r.Params, &p))
		if p.Position.Line != 10 || p.Position.Character < byteCol || p.Position.Character >= byteCol+len("total") {
			t.Errorf("definition asked at %+v, want line 10, a byte of total at %d", p.Position, byteCol)
		}
	}
}

// TestRFDWithMetaDialect: an editor offering the RFD and `_meta.lsp` (its
// `_lsp/request` passthrough and pushed diagnostics) is asked in the RFD's
// shape, `_lsp/*` never; its pushed diagnostics still travel down to the
// agent that asked for them.
func TestRFDWithMetaDialect(t *testing.T) {
	rc, entry := startRFDWith(t, rfdeditor.Config{}, rfdOpts{
		meta:      `{"lsp":{"methods":["_lsp/request","_lsp/servers","_lsp/diagnosticReport"],"notifications":["_lsp/publishDiagnostics","_lsp/didSave"]}}`,
		agentMeta: `{"lsp":{"notifications":["_lsp/publishDiagnostics"]}}`,
	})
	cs := stacktest.Connect(t, entry)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "definition", "file": "shop.go", "line": 11, "symbol": "total"}, "shop.go:3:6"},
		{map[string]any{"action": "diagnostics", "file": "shop.go"}, "undefined: missingPrices"},
		{map[string]any{"action": "status"}, "editor:gopls"},
	} {
		if text, isErr, _ := stacktest.CallTool(t, cs, c.args); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: want %q in:\n%s", c.args, c.want, text)
		}
	}
	if got := answered(rc.editor, "gopls"); !slices.Contains(got, "textDocument/definition") || !slices.Contains(got, "textDocument/diagnostic") {
		t.Errorf("the editor's gopls answered %v", got)
	}
	rc.mu.Lock()
	meta := slices.Clone(rc.meta)
	rc.mu.Unlock()
	if len(meta) > 0 {
		t.Errorf("the editor was asked %v in the `_meta` dialect", meta)
	}
	uri := edit.URIFromPath(filepath.Join(rc.root, "shop.go"))
	rc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"_lsp/publishDiagnostics","params":{"uri":%q,"diagnostics":[{"range":{"start":{"line":1,"character":1},"end":{"line":1,"character":2}},"message":"PUSHED"}]}}`, uri)
	if m, _ := rc.Agent.NextMethod(t, "_lsp/publishDiagnostics"); !strings.Contains(string(m.Params), "PUSHED") {
		t.Errorf("the agent got %s", m.Raw)
	}
}

// TestRFDCancelOnGivingUp: a request the editor holds past the adapter's
// editor timeout is cancelled with $/cancel_request naming it, as the RFD
// has it; the tool says the editor did not answer and no local gopls
// answers instead.
func TestRFDCancelOnGivingUp(t *testing.T) {
	rc, entry := startRFDWith(t, rfdeditor.Config{Hold: []string{"textDocument/hover"}}, rfdOpts{editorTimeout: 2 * time.Second})
	cs := stacktest.Connect(t, entry)
	text, _, _ := stacktest.CallTool(t, cs, map[string]any{"action": "hover", "file": "shop.go", "line": 3, "symbol": "total"})
	if !strings.Contains(text, "did not answer") {
		t.Errorf("hover held by the editor: %s", text)
	}
	select {
	case <-rc.editor.Released():
	case <-time.After(stacktest.Wait):
		t.Fatal("the held request was never cancelled")
	}
	var held []string
	for _, r := range rc.editor.Requests() {
		if r.Held {
			held = append(held, r.ID)
		}
	}
	if len(held) != 1 || !slices.Contains(rc.editor.Cancels(), held[0]) {
		t.Errorf("held %v, cancelled %v: want the held request cancelled", held, rc.editor.Cancels())
	}
	if procs, editor := goplsProcesses(t), editorPIDs(rc.editor, "gopls"); !slices.Equal(procs, editor) {
		t.Errorf("gopls processes %v, want the editor's %v alone", procs, editor)
	}
}
