package adapter

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestRequestReadiness: `_lsp/request` asked with readiness answers the
// raw result, byte for byte, with the readiness of the local server that
// gave it: loading with its progress while it indexes (the list is one
// symbol of two), ready after; without the flag the answer is the raw
// result alone, as before. An editor's passthrough is asked without the
// flag and its answer carries no readiness (it says none).
func TestRequestReadiness(t *testing.T) {
	root, file, servers := fakeWorkspace(t, fakelsp.Script{Indexing: &fakelsp.Indexing{Eager: true, Partial: true, Report: "1/2",
		EndAfter: "textDocument/documentSymbol"}})
	must(t, os.WriteFile(file, []byte("func Foo() {}\nfunc Bar() {}\n"), 0o644))
	tc := startChain(t, Config{LSP: lsp.Options{Servers: servers}}, false)
	tc.initialize(t, "", "")
	tc.newSession(t, root)
	must(t, tc.adapter.Manager().Prewarm(t.Context(), file))
	uri := edit.URIFromPath(file)
	ask := func(id int, flag string) (lspext.RequestResult, msg) {
		t.Helper()
		m := tc.call(t, id, "_lsp/request", `{"uri":"`+uri+`","method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"`+uri+`"}}`+flag+`}`, nil)
		if m.Error != nil {
			t.Fatalf("error %+v", m.Error)
		}
		var r lspext.RequestResult
		if flag != "" {
			must(t, json.Unmarshal(m.Result, &r))
		}
		return r, m
	}
	fifty := 50
	r, m := ask(1, `,"readiness":true`)
	want := []lspext.Readiness{{Server: "fake", State: lspext.ReadyLoading, Progress: []lspext.Progress{{Title: "Indexing", Message: "1/2", Percentage: &fifty}}}}
	if strings.Count(string(r.Result), `"name"`) != 1 || !reflect.DeepEqual(r.Readiness, want) || !strings.HasPrefix(string(m.Result), `{"result":[{"kind":12,"name":"Foo",`) {
		t.Fatalf("while indexing: %s", m.Raw)
	}
	if _, err := tc.adapter.Manager().WaitReady(t.Context(), file); err != nil {
		t.Fatal(err)
	}
	r, m = ask(2, `,"readiness":true`)
	want = []lspext.Readiness{{Server: "fake", State: lspext.Ready}}
	if strings.Count(string(r.Result), `"name"`) != 2 || !reflect.DeepEqual(r.Readiness, want) {
		t.Fatalf("after indexing: %s", m.Raw)
	}
	if _, m = ask(3, ""); !strings.HasPrefix(string(m.Result), `[{"kind":12,"name":"Foo",`) {
		t.Fatalf("without the flag: %s", m.Raw)
	}
	tc.stopAndCheckProcesses(t, serverPIDs(tc.adapter.Manager()))
}

// TestRequestReadinessFromEditor: the editor's raw passthrough gets the
// request without the readiness flag, and its answer comes back wrapped,
// its bytes kept, with no readiness.
func TestRequestReadinessFromEditor(t *testing.T) {
	tc := startChain(t, Config{NoLocal: true}, false)
	tc.initialize(t, `{"lsp":{"methods":["_lsp/request"]}}`, "")
	const raw = `[ {"name": "Editor" , "kind":12} ]`
	se := tc.runEditor(func(m msg) reply { return reply{result: raw} })
	m := tc.call(t, 1, "_lsp/request", `{"uri":"file:///w/a.go","method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a.go"}},"readiness":true}`, nil)
	if m.Error != nil || string(m.Result) != `{"result":`+raw+`}` {
		t.Fatalf("answer %s", m.Raw)
	}
	se.mu.Lock()
	got := se.got
	se.mu.Unlock()
	if len(got) == 0 || got[len(got)-1].Method != "_lsp/request" || strings.Contains(string(got[len(got)-1].Params), "readiness") {
		t.Fatalf("the editor got %+v", got)
	}
	tc.stopAndCheckProcesses(t, nil)
}
