package adapter

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// emojiGo calls greet after a string of three characters outside the BMP:
// on that line greet starts 6 columns further in utf-8 than in utf-16,
// more than its length, so a column in the wrong encoding misses it.
const emojiGo = `package main

import "fmt"

func greet(s string) string { return s }

func main() {
	fmt.Println("😀😀😀", greet("x"))
}
`

// rfdPos is an LSP position.
type rfdPos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rfdLocation struct {
	URI   string `json:"uri"`
	Range struct {
		Start rfdPos `json:"start"`
	} `json:"range"`
}

// emojiC is emojiGo's counterpart for clangd, which negotiates utf-8.
const emojiC = `static int greet(int x) { return x; }

int main(void) { const char *t = "😀😀😀"; return greet(1) + (t != 0); }
`

// rfdReal is a workspace of one file for a real server: the identifier
// called on line callLine after characters outside the BMP, declared at
// decl.
type rfdReal struct {
	server, file, text string
	callLine           int
	call, hover        string
	decl               rfdPos
}

// TestRFDAgentLocalGopls: a scripted agent speaking ACP's LSP proposal at
// the agent end of editor ⇄ adapter ⇄ component ⇄ agent is offered `lsp`
// in initialize, lists the session's servers (a real gopls, started for
// it, its capabilities verbatim) and asks it for definition, hover and
// references with characters counted in the encoding gopls negotiated
// (utf-16): the answers' positions are in it too.
func TestRFDAgentLocalGopls(t *testing.T) {
	testRFDReal(t, rfdReal{server: "gopls", file: "main.go", text: emojiGo, callLine: 7, call: `greet("x")`,
		hover: "func greet(s string) string", decl: rfdPos{4, 5}}, "utf-16")
}

// TestRFDAgentLocalClangdUTF8 is TestRFDAgentLocalGopls with a real
// clangd, which negotiates utf-8 (clangd 14 says so outside its
// capabilities, in offsetEncoding: the capabilities listed state it).
func TestRFDAgentLocalClangdUTF8(t *testing.T) {
	testRFDReal(t, rfdReal{server: "clangd", file: "main.c", text: emojiC, callLine: 2, call: "greet(1)",
		hover: "greet", decl: rfdPos{0, 11}}, "utf-8")
}

func testRFDReal(t *testing.T, w rfdReal, wantEnc string) {
	peers.Require(t, w.server)
	root, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	if w.server == "gopls" {
		must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	}
	main := filepath.Join(root, w.file)
	must(t, os.WriteFile(main, []byte(w.text), 0o644))
	tc := startChain(t, Config{LSP: lsp.Options{Env: peers.Env()}}, true)
	atAgent, _ := tc.initialize(t, "", "")
	if !lspext.RFDOffered(atAgent.Params) {
		t.Fatalf("initialize reached the agent without clientCapabilities.lsp: %s", atAgent.Raw)
	}
	tc.newSession(t, root)
	ctx := context.Background()

	raw, err := tc.Agent.Call(ctx, lspext.RFDServers, lspext.RFDServersParams{SessionID: "S1"})
	if err != nil {
		t.Fatal(err)
	}
	var list lspext.RFDServersResult
	must(t, json.Unmarshal(raw, &list))
	if len(list.Servers) != 1 {
		t.Fatalf("servers %s, want %s alone", raw, w.server)
	}
	srv := list.Servers[0]
	if srv.ServerID != w.server+"@"+root || srv.WorkspacePath != root || srv.State != lspext.RFDStateRunning || srv.Name != w.server {
		t.Fatalf("server %+v", srv)
	}
	for _, m := range []string{"textDocument/definition", "textDocument/hover", "textDocument/references"} {
		if !list.Forwards(m) {
			t.Errorf("%s not in availableMethods %v", m, list.AvailableMethods)
		}
	}
	// Verbatim: what the server answered initialize with, as the Manager
	// holds it, but for positionEncoding when it said it elsewhere
	// (utf-16, the default, needs no saying).
	st := tc.adapter.Manager().Servers()[0]
	enc := lspext.RFDPositionEncoding(srv.Capabilities)
	if enc != wantEnc || string(st.Encoding) != wantEnc {
		t.Fatalf("capabilities say %s, %s negotiated %s; want %s", enc, w.server, st.Encoding, wantEnc)
	}
	want := st.Capabilities
	if _, ok := proxy.GetPath(want, "positionEncoding"); !ok && wantEnc != "utf-16" {
		want, err = proxy.SetPath(want, json.RawMessage(`"`+wantEnc+`"`), "positionEncoding")
		must(t, err)
	}
	if string(srv.Capabilities) != string(want) {
		t.Errorf("capabilities changed on the way:\n%s\nwant\n%s", srv.Capabilities, want)
	}

	// The call, counted in the negotiated encoding.
	line := strings.Split(w.text, "\n")[w.callLine]
	byteCol := strings.Index(line, w.call)
	unitCol := len(utf16.Encode([]rune(line[:byteCol])))
	if byteCol-unitCol <= strings.Index(w.call, "(") {
		t.Fatal("the test line does not tell utf-8 from utf-16")
	}
	col := unitCol
	if enc == "utf-8" {
		col = byteCol
	}
	uri := edit.URIFromPath(main)
	ask := func(method string, extra map[string]any) json.RawMessage {
		t.Helper()
		params := map[string]any{"textDocument": map[string]string{"uri": uri}, "position": rfdPos{w.callLine, col}}
		for k, v := range extra {
			params[k] = v
		}
		p, _ := json.Marshal(params)
		raw, err := tc.Agent.Call(ctx, lspext.RFDRequest, lspext.RFDRequestParams{SessionID: "S1", ServerID: srv.ServerID, Method: method, Params: p})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var r lspext.RFDRequestResult
		must(t, json.Unmarshal(raw, &r))
		return r.LspResult
	}

	var defs []rfdLocation
	res := ask("textDocument/definition", nil)
	must(t, json.Unmarshal(res, &defs))
	if len(defs) != 1 || defs[0].URI != uri || defs[0].Range.Start != w.decl {
		t.Errorf("definition %s, want the declaration at %v", res, w.decl)
	}
	if res := ask("textDocument/hover", nil); !strings.Contains(string(res), w.hover) {
		t.Errorf("hover %s, want %q", res, w.hover)
	}
	var refs []rfdLocation
	res = ask("textDocument/references", map[string]any{"context": map[string]bool{"includeDeclaration": true}})
	must(t, json.Unmarshal(res, &refs))
	found := map[rfdPos]bool{}
	for _, r := range refs {
		found[r.Range.Start] = true
	}
	if len(refs) != 2 || !found[w.decl] || !found[rfdPos{w.callLine, col}] {
		t.Errorf("references %s, want %v and %d:%d (%s)", res, w.decl, w.callLine, col, enc)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}
