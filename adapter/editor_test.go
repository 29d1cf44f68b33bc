package adapter

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// scriptedEditor answers the requests reaching the editor end of a test
// chain with answer, from its own goroutine, and records every message.
type scriptedEditor struct {
	mu   sync.Mutex
	got  []msg
	done chan struct{}
}

// reply is a scripted answer: a raw result, or an error, or none (the
// editor stays silent).
type reply struct {
	result string
	code   int
	msg    string
	silent bool
}

func (tc *testChain) runEditor(answer func(m msg) reply) *scriptedEditor {
	se := &scriptedEditor{done: make(chan struct{})}
	go func() {
		defer close(se.done)
		for m := range tc.Editor.Messages() {
			se.mu.Lock()
			se.got = append(se.got, m)
			se.mu.Unlock()
			if m.Method == "" || m.ID == nil {
				continue
			}
			r := answer(m)
			switch {
			case r.silent:
			case r.code != 0:
				tc.Editor.SendLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, m.ID, r.code, r.msg))
			default:
				tc.Editor.SendLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, r.result))
			}
		}
	}()
	return se
}

// methods returns the methods of the requests the editor received.
func (se *scriptedEditor) methods() []string {
	se.mu.Lock()
	defer se.mu.Unlock()
	var out []string
	for _, m := range se.got {
		if m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// cannedReference are reference-shape (1-based, snake_case) answers about
// brokenGo in a file at uri, marked so the test can tell they came from
// the editor.
func cannedReference(uri string) map[string]string {
	loc := func(line, char, n int) string {
		return fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}}`, uri, line, char, line, char+n)
	}
	return map[string]string{
		"hover":           `{"contents":"EDITOR hover: func add(a, b int) int","range":{"start":{"line":5,"character":6},"end":{"line":5,"character":9}}}`,
		"definition":      `[` + loc(5, 6, 3) + `]`,
		"references":      `[` + loc(8, 14, 3) + `,` + loc(8, 25, 3) + `]`,
		"documentSymbols": `[{"name":"add","kind":12,"range":{"start":{"line":5,"character":1},"end":{"line":5,"character":40}},"selection_range":{"start":{"line":5,"character":6},"end":{"line":5,"character":9}}},{"name":"main","kind":12,"range":{"start":{"line":7,"character":1},"end":{"line":9,"character":2}},"selection_range":{"start":{"line":7,"character":6},"end":{"line":7,"character":10}}}]`,
		"workspaceSymbol": `[{"name":"add","kind":12,"location":` + loc(5, 6, 3) + `}]`,
		"diagnostics":     `[{"range":{"start":{"line":8,"character":25},"end":{"line":8,"character":31}},"severity":1,"code":"E1","source":"editor-lint","message":"EDITOR: not enough arguments"}]`,
		"codeActions": `[{"title":"EDITOR fix: add the missing argument","kind":"quickfix","is_preferred":true,"edit":{"changes":{` + fmt.Sprintf("%q", uri) +
			`:[{"range":{"start":{"line":8,"character":25},"end":{"line":8,"character":31}},"new_text":"add(3, 4)"}]}}}]`,
	}
}

const editorOffersMeta = `{"lsp":{"methods":["_lsp/hover","_lsp/definition","_lsp/references","_lsp/documentSymbols","_lsp/workspaceSymbol","_lsp/diagnostics","_lsp/codeActions"],"notifications":["_lsp/publishDiagnostics","_lsp/didSave"]}}`

// TestEditorAnswers runs the lsp tool through editor ⇄ adapter ⇄
// component ⇄ agent with a scripted editor that offers reference methods,
// in the underscore spelling or only the bare one: what it offers is
// answered by the editor (translated to native and rendered at the right
// 1-based positions) and starts no local server; what it lacks
// (signature help) is answered by gopls.
func TestEditorAnswers(t *testing.T) {
	peers.Require(t, "gopls")
	for _, tt := range []struct {
		name string
		meta string
		// bare: the editor answers only lsp/x; _lsp/x gets -32601.
		bare bool
	}{
		{"underscore", editorOffersMeta, false},
		{"bare only, lsp: true", `{"lsp":true}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, main := goWorkspace(t)
			uri := edit.URIFromPath(main)
			canned := cannedReference(uri)
			tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, true)
			atAgent, _ := tc.initialize(t, tt.meta, "")
			if !strings.Contains(string(atAgent.Params), `"_lsp/hover"`) {
				t.Errorf("agent's clientCapabilities lack _lsp/hover: %s", atAgent.Params)
			}
			cs := stacktest.Connect(t, tc.newSession(t, root))
			se := tc.runEditor(func(m msg) reply {
				name, bare := strings.CutPrefix(m.Method, "lsp/")
				if !bare {
					name = strings.TrimPrefix(m.Method, "_lsp/")
				}
				res, ok := canned[name]
				if !ok || (tt.bare && !bare) {
					return reply{code: -32601, msg: "Method not found"}
				}
				// Code actions are asked with the editor's own
				// diagnostic, back in the reference shape.
				if name == "codeActions" && !strings.Contains(string(m.Params), `"diagnostics":[{"range":{"start":{"line":8,"character":25},"end":{"line":8,"character":31}},"severity":1,"code":"E1","source":"editor-lint","message":"EDITOR: not enough arguments"}]`) {
					return reply{code: -32602, msg: "unexpected params " + string(m.Params)}
				}
				return reply{result: res}
			})
			line8 := strings.Split(brokenGo, "\n")[7]
			inParens := strings.LastIndex(line8, "add(3)") + len("add(") + 1
			for _, c := range []struct {
				args map[string]any
				want []string
			}{
				{map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, []string{"EDITOR hover: func add(a, b int) int"}},
				{map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}, []string{"main.go:5:6"}},
				{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"}, []string{"main.go:8:14", "main.go:8:25"}},
				{map[string]any{"action": "symbols", "file": "main.go"}, []string{"main.go:5:6 function add", "main.go:7:6 function main"}},
				{map[string]any{"action": "diagnostics", "file": "main.go"}, []string{"main.go:8:25", "EDITOR: not enough arguments"}},
				{map[string]any{"action": "code_actions", "file": "main.go", "line": 8}, []string{"EDITOR fix: add the missing argument"}},
			} {
				text, isErr, _ := stacktest.CallTool(t, cs, c.args)
				for _, w := range c.want {
					if isErr || !strings.Contains(text, w) {
						t.Errorf("%v: want %q in:\n%s", c.args, w, text)
						break
					}
				}
			}
			if s := tc.adapter.Manager().Servers(); len(s) != 0 {
				t.Errorf("a local server was started for methods the editor answers: %+v", s)
			}
			// The editor lacks signature help: gopls answers it.
			text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "signature_help", "file": "main.go", "line": 8, "column": inParens})
			if isErr || !strings.Contains(text, "add(a int, b int) int") {
				t.Errorf("signature help: %s", text)
			}
			if s := tc.adapter.Manager().Servers(); len(s) != 1 || s[0].Name != "gopls" {
				t.Errorf("local servers %+v, want gopls", s)
			}
			// Spellings: the bare-only editor was asked _lsp/hover once,
			// then only lsp/*.
			got := se.methods()
			var underscore, bareN int
			for _, m := range got {
				if strings.HasPrefix(m, "_lsp/") {
					underscore++
				} else if strings.HasPrefix(m, "lsp/") {
					bareN++
				}
			}
			if tt.bare && (underscore != 1 || got[0] != "_lsp/hover" || got[1] != "lsp/hover" || bareN != len(got)-1) {
				t.Errorf("bare editor was asked %v", got)
			}
			if !tt.bare && (bareN != 0 || underscore != len(got)) {
				t.Errorf("underscore editor was asked %v", got)
			}
			pids := serverPIDs(tc.adapter.Manager())
			tc.stopAndCheckProcesses(t, pids)
			<-se.done
		})
	}
}

// TestInitializeAdvertisement checks the capability patches both ways:
// the editor's offer read (true, object, false, absent), the chain's
// offer given to the agent, the chain's handling given to the editor,
// and every other byte of both messages kept.
func TestInitializeAdvertisement(t *testing.T) {
	for _, tt := range []struct {
		name, meta string
		cfg        Config
		// offered are the editor methods the adapter must route to it.
		offered []string
		// methods the agent must be told about.
		agentMethods []string
	}{
		{"absent", "", Config{}, nil, []string{"_lsp/hover", "_lsp/request", "_lsp/diagnosticReport"}},
		{"false is off", `{"lsp":false,"other":{"x":1}}`, Config{}, nil, []string{"_lsp/hover"}},
		{"true", `{"lsp":true}`, Config{}, slices.Clone(referenceMethods), []string{"_lsp/hover"}},
		{"object, both spellings", `{"lsp":{"methods":["lsp/hover","_lsp/servers","lsp/request","lsp/frobnicate"],"notifications":["lsp/didSave"]}}`, Config{},
			[]string{"_lsp/hover", "_lsp/servers", "_lsp/request"}, []string{"_lsp/hover", "_lsp/status", "_lsp/frobnicate"}},
		{"no local, editor offers hover", `{"lsp":{"methods":["_lsp/hover"]}}`, Config{NoLocal: true}, []string{"_lsp/hover"}, []string{"_lsp/hover", "_lsp/servers"}},
		{"no editor", `{"lsp":true}`, Config{NoEditor: true}, nil, []string{"_lsp/hover"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startChain(t, tt.cfg, false)
			atAgent, atEditor := tc.initialize(t, tt.meta, `{"keep":"me"}`)
			for _, m := range slices.Concat(referenceMethods, nativeMethods) {
				_, ok := tc.adapter.editorOffers(m)
				if want := slices.Contains(tt.offered, m); ok != want {
					t.Errorf("editor offers %s: %v, want %v", m, ok, want)
				}
			}
			// Everything but clientCapabilities._meta.lsp reached the
			// agent byte for byte.
			if !strings.Contains(atAgent.Raw, `"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}`) {
				t.Errorf("agent got %s", atAgent.Raw)
			}
			if strings.Contains(tt.meta, `"other"`) && !strings.Contains(atAgent.Raw, `"other":{"x":1}`) {
				t.Errorf("other _meta keys lost: %s", atAgent.Raw)
			}
			told := agentOffer(t, atAgent.Params)
			for _, m := range tt.agentMethods {
				if !slices.Contains(told.Methods, m) {
					t.Errorf("agent not told about %s: %+v", m, told)
				}
			}
			if tt.cfg.NoLocal && slices.Contains(told.Methods, "_lsp/definition") {
				t.Errorf("agent told about _lsp/definition with no editor or local source: %+v", told)
			}
			// The editor learns what it may push; the agent's own _meta
			// and capabilities are kept.
			var r struct {
				AgentCapabilities struct {
					LoadSession bool `json:"loadSession"`
					Meta        struct {
						Keep string     `json:"keep"`
						LSP  capability `json:"lsp"`
					} `json:"_meta"`
				} `json:"agentCapabilities"`
			}
			must(t, json.Unmarshal(atEditor.Result, &r))
			ac := r.AgentCapabilities
			if !ac.LoadSession || ac.Meta.Keep != "me" || !slices.Contains(ac.Meta.LSP.Notifications, "_lsp/publishDiagnostics") ||
				!slices.Contains(ac.Meta.LSP.Notifications, "_lsp/didSave") || !slices.Contains(ac.Meta.LSP.Methods, "_lsp/hover") {
				t.Errorf("editor got %s", atEditor.Result)
			}
		})
	}
}

// TestEditorPassthrough: an editor offering the raw passthrough (bare
// spelling listed) gets the tool's native requests as they are (the
// definition's enclosing-symbol lookup included), and its server list
// appears in status; an LSP method its servers refuse (-32601) is
// answered by gopls for that call.
func TestEditorPassthrough(t *testing.T) {
	peers.Require(t, "gopls")
	root, main := goWorkspace(t)
	uri := edit.URIFromPath(main)
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, true)
	tc.initialize(t, `{"lsp":{"methods":["lsp/request","lsp/servers"]}}`, "")
	cs := stacktest.Connect(t, tc.newSession(t, root))
	se := tc.runEditor(func(m msg) reply {
		switch m.Method {
		case "lsp/servers":
			return reply{result: `{"servers":[{"name":"editor:gopls","source":"editor","state":"ready","languages":["go"]}]}`}
		case "lsp/request":
			var p struct {
				URI    string          `json:"uri"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.Method {
			case "textDocument/hover":
				return reply{result: `{"contents":{"kind":"markdown","value":"PASSTHROUGH hover"}}`}
			case "textDocument/definition":
				return reply{result: fmt.Sprintf(`[{"uri":%q,"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}}]`, uri)}
			case "textDocument/documentSymbol":
				// The tool names the symbol holding each place it lists
				// (a top-level declaration: none); an editor's gopls
				// answers this too.
				return reply{result: `[]`}
			}
		}
		return reply{code: -32601, msg: "unsupported"}
	})
	line8 := strings.Split(brokenGo, "\n")[7]
	inParens := strings.LastIndex(line8, "add(3)") + len("add(") + 1
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}, "PASSTHROUGH hover"},
		{map[string]any{"action": "definition", "file": "main.go", "line": 8, "symbol": "add#2"}, "main.go:5:6"},
		{map[string]any{"action": "status"}, "editor:gopls"},
	} {
		if text, isErr, _ := stacktest.CallTool(t, cs, c.args); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: want %q in:\n%s", c.args, c.want, text)
		}
	}
	if s := tc.adapter.Manager().Servers(); len(s) != 0 {
		t.Errorf("a local server was started for requests the editor answers: %+v", s)
	}
	if text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "signature_help", "file": "main.go", "line": 8, "column": inParens}); isErr || !strings.Contains(text, "add(a int, b int) int") {
		t.Errorf("signature help: %s", text)
	}
	if s := tc.adapter.Manager().Servers(); len(s) != 1 {
		t.Errorf("local servers %+v, want gopls", s)
	}
	want := []string{"lsp/request", "lsp/request", "lsp/request", "lsp/servers", "lsp/request"}
	if got := se.methods(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("editor was sent %v, want %v", got, want)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
	<-se.done
}

// agentOffer reads the LSP offer in the initialize params the agent got
// (clientCapabilities._meta.lsp).
func agentOffer(t *testing.T, params json.RawMessage) capability {
	t.Helper()
	var p struct {
		ClientCapabilities struct {
			Meta struct {
				LSP capability `json:"lsp"`
			} `json:"_meta"`
		} `json:"clientCapabilities"`
	}
	must(t, json.Unmarshal(params, &p))
	return p.ClientCapabilities.Meta.LSP
}
