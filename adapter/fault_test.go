package adapter

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestEditorFaults drives an editor that offers _lsp/hover and then never
// answers, answers errors, wrong shapes or null, or gets the request
// cancelled: the agent side always gets an answer with a clear error (or
// the honest null), in fake time, and nothing hangs or leaks.
func TestEditorFaults(t *testing.T) {
	const hoverReq = `{"uri":"file:///w/main.go","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/main.go"},"position":{"line":4,"character":5}}}`
	for _, tt := range []struct {
		name   string
		answer func(m msg) reply
		// cancel sends $/cancel_request right after the request.
		cancel   bool
		wantCode int
		wantMsg  string
		// wantResult is the raw result when no error is expected.
		wantResult string
		// wantAsked are the methods the editor must have been sent.
		wantAsked []string
	}{
		{name: "never answers", answer: func(msg) reply { return reply{silent: true} },
			wantCode: proxy.CodeInternalError, wantMsg: "the editor did not answer _lsp/hover within 10s",
			wantAsked: []string{"_lsp/hover", proxy.MethodCancelRequest}},
		{name: "error", answer: func(msg) reply { return reply{code: -32603, msg: "boom"} },
			wantCode: proxy.CodeInternalError, wantMsg: "editor answered _lsp/hover: boom", wantAsked: []string{"_lsp/hover"}},
		{name: "content modified kept", answer: func(msg) reply { return reply{code: -32801, msg: "modified"} },
			wantCode: -32801, wantMsg: "modified", wantAsked: []string{"_lsp/hover"}},
		{name: "wrong shape: number contents", answer: func(msg) reply { return reply{result: `{"contents":5}`} },
			wantCode: proxy.CodeInternalError, wantMsg: "the editor answered _lsp/hover with a malformed result", wantAsked: []string{"_lsp/hover"}},
		{name: "wrong shape: string", answer: func(msg) reply { return reply{result: `"hello"`} },
			wantCode: proxy.CodeInternalError, wantMsg: "malformed result", wantAsked: []string{"_lsp/hover"}},
		{name: "null twice is an honest null", answer: func(msg) reply { return reply{result: `null`} },
			wantResult: "null", wantAsked: []string{"_lsp/hover", "lsp/hover"}},
		{name: "method not found twice, no local servers", answer: func(msg) reply { return reply{code: -32601, msg: "nope"} },
			wantCode: proxy.CodeMethodNotFound, wantMsg: "local language servers are turned off", wantAsked: []string{"_lsp/hover", "lsp/hover"}},
		{name: "cancelled by the asker", answer: func(msg) reply { return reply{silent: true} }, cancel: true,
			wantCode: proxy.CodeRequestCancelled, wantMsg: "cancelled", wantAsked: []string{"_lsp/hover", proxy.MethodCancelRequest}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tc := startChain(t, Config{NoLocal: true}, false)
				tc.initialize(t, `{"lsp":{"methods":["_lsp/hover"]}}`, "")
				late := make(chan msg, 4)
				se := tc.runEditor(func(m msg) reply {
					r := tt.answer(m)
					if r.silent {
						late <- m
					}
					return r
				})
				start := time.Now()
				tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":7,"method":"_lsp/request","params":%s}`, hoverReq)
				if tt.cancel {
					synctest.Wait()
					tc.Agent.Sendf(t, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
				}
				m := tc.Agent.Next(t)
				if string(m.ID) != "7" {
					t.Fatalf("agent got %s", m.Raw)
				}
				if tt.wantResult != "" {
					if m.Error != nil || string(m.Result) != tt.wantResult {
						t.Errorf("got %s, want result %s", m.Raw, tt.wantResult)
					}
				} else if m.Error == nil || m.Error.Code != tt.wantCode || !strings.Contains(m.Error.Message, tt.wantMsg) {
					t.Errorf("got %s, want error %d %q", m.Raw, tt.wantCode, tt.wantMsg)
				}
				if tt.name == "never answers" && time.Since(start) != 10*time.Second {
					t.Errorf("answered after %s, want the 10s editor timeout", time.Since(start))
				}
				// A late answer is dropped; the chain keeps serving.
				select {
				case lm := <-late:
					tc.Editor.SendLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"contents":"late"}}`, lm.ID))
				default:
				}
				tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":8,"method":"_lsp/status","params":{}}`)
				if m := tc.Agent.Next(t); string(m.ID) != "8" || m.Error != nil || !strings.Contains(string(m.Result), `"servers"`) {
					t.Errorf("after the fault the agent got %s", m.Raw)
				}
				synctest.Wait()
				got := se.methods()
				if fmt.Sprint(got) != fmt.Sprint(tt.wantAsked) {
					t.Errorf("editor was sent %v, want %v", got, tt.wantAsked)
				}
				tc.cancel()
				<-se.done
			})
		})
	}
}

// TestSpelling checks which spelling is tried first (configured, listed,
// default) and that a spelling found to work is used from then on.
func TestSpelling(t *testing.T) {
	if _, err := New(Config{Spelling: "LSP"}); err == nil {
		t.Error("a bad spelling was accepted")
	}
	for _, tt := range []struct {
		name, spelling, meta string
		// works is the spelling the editor answers (non-null); the other
		// one gets null.
		works string
		want  []string
	}{
		{"default underscore", "", `{"lsp":true}`, "_lsp", []string{"_lsp/hover", "_lsp/hover"}},
		{"listed bare", "", `{"lsp":{"methods":["lsp/hover"]}}`, "lsp", []string{"lsp/hover", "lsp/hover"}},
		{"configured bare", "lsp", `{"lsp":{"methods":["_lsp/hover"]}}`, "lsp", []string{"lsp/hover", "lsp/hover"}},
		{"configured underscore over listed", "_lsp", `{"lsp":{"methods":["lsp/hover"]}}`, "_lsp", []string{"_lsp/hover", "_lsp/hover"}},
		{"null then the other, remembered", "", `{"lsp":true}`, "lsp", []string{"_lsp/hover", "lsp/hover", "lsp/hover"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tc := startChain(t, Config{NoLocal: true, Spelling: tt.spelling}, false)
				tc.initialize(t, tt.meta, "")
				se := tc.runEditor(func(m msg) reply {
					if strings.HasPrefix(m.Method, tt.works+"/") {
						return reply{result: `{"contents":"h"}`}
					}
					return reply{result: "null"}
				})
				for id := 1; id <= 2; id++ {
					tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":%d,"method":"_lsp/hover","params":{"uri":"file:///w/a.go","line":1,"character":1}}`, id)
					if m := tc.Agent.Next(t); m.Error != nil || string(m.Result) != `{"contents":"h"}` {
						t.Errorf("agent got %s", m.Raw)
					}
				}
				synctest.Wait()
				if got := se.methods(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("editor was sent %v, want %v", got, tt.want)
				}
				tc.cancel()
				<-se.done
			})
		})
	}
}

// TestEditorDiagnosticReport: a diagnostic report answered through the
// editor's _lsp/diagnostics, one call per file, gives each file the
// verdict it deserves (fresh, failed, timeout), never an empty list for
// a file the editor did not answer about.
func TestEditorDiagnosticReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tc := startChain(t, Config{NoLocal: true}, false)
		tc.initialize(t, `{"lsp":{"methods":["_lsp/diagnostics"]}}`, "")
		se := tc.runEditor(func(m msg) reply {
			switch {
			case strings.Contains(string(m.Params), "a.go"):
				return reply{result: `[{"range":{"start":{"line":2,"character":1},"end":{"line":2,"character":4}},"severity":2,"message":"unused"}]`}
			case strings.Contains(string(m.Params), "b.go"):
				return reply{code: -32603, msg: "no project for b.go"}
			}
			return reply{silent: true}
		})
		tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":1,"method":"_lsp/diagnosticReport","params":{"uris":["file:///w/a.go","file:///w/b.go","file:///w/c.go"]}}`)
		m := tc.Agent.Next(t)
		want := `{"files":[{"uri":"file:///w/a.go","diagnostics":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":3}},"severity":2,"message":"unused"}],"server":"editor"}],` +
			`"servers":[{"server":"editor","verdict":"fresh","uris":["file:///w/a.go"],"detail":"as the editor currently holds them"},` +
			`{"server":"editor","verdict":"failed","uris":["file:///w/b.go"],"detail":"editor answered _lsp/diagnostics: no project for b.go"},` +
			`{"server":"editor","verdict":"timeout","uris":["file:///w/c.go"],"detail":"the editor did not answer _lsp/diagnostics within 10s"}]}`
		if m.Error != nil || string(m.Result) != want {
			t.Errorf("got %s\nwant result %s", m.Raw, want)
		}
		tc.cancel()
		<-se.done
	})
}

// TestEditorWorkspaceReportSaysItsReach: a workspace-wide report through
// the editor's per-file _lsp/diagnostics covers only the files the editor
// has reported on, and its verdicts say so: an unchecked verdict for the
// rest, so a clean answer is not taken for the whole workspace.
func TestEditorWorkspaceReportSaysItsReach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tc := startChain(t, Config{NoLocal: true}, false)
		tc.initialize(t, `{"lsp":{"methods":["_lsp/diagnostics"]}}`, "")
		se := tc.runEditor(func(m msg) reply { return reply{result: `[]`} })
		tc.Editor.Sendf(t, `{"jsonrpc":"2.0","method":"_lsp/publishDiagnostics","params":{"uri":"file:///w/a.go","diagnostics":[]}}`)
		tc.Agent.Next(t)
		tc.Agent.Sendf(t, `{"jsonrpc":"2.0","id":1,"method":"_lsp/diagnosticReport","params":{}}`)
		m := tc.Agent.Next(t)
		want := `{"files":[{"uri":"file:///w/a.go","diagnostics":[],"server":"editor"}],` +
			`"servers":[{"server":"editor","verdict":"fresh","uris":["file:///w/a.go"],"detail":"workspace: only the 1 file the editor has reported on; files it has not opened were not checked"},` +
			`{"server":"editor","verdict":"unchecked","detail":"files the editor has not reported on were not checked; name files or a glob to check them"}]}`
		if m.Error != nil || string(m.Result) != want {
			t.Errorf("got %s\nwant result %s", m.Raw, want)
		}
		tc.cancel()
		<-se.done
	})
}

// TestReferenceThroughPassthrough: an agent's reference request (1-based)
// reaches an editor that offers only the raw passthrough as the LSP
// request it stands for (0-based), and the native answer comes back in
// the reference shape.
func TestReferenceThroughPassthrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tc := startChain(t, Config{NoLocal: true}, false)
		tc.initialize(t, `{"lsp":{"methods":["_lsp/request"]}}`, "")
		se := tc.runEditor(func(m msg) reply {
			if m.Method == "_lsp/request" && strings.Contains(string(m.Params), `"method":"textDocument/definition","params":{"position":{"line":7,"character":9},"textDocument":{"uri":"file:///w/a.go"}}`) {
				return reply{result: `[{"targetUri":"file:///w/b.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"targetSelectionRange":{"start":{"line":2,"character":5},"end":{"line":2,"character":8}}}]`}
			}
			return reply{code: -32602, msg: "unexpected " + string(m.Params)}
		})
		m := tc.call(t, 1, "_lsp/definition", `{"uri":"file:///w/a.go","line":8,"character":10}`, nil)
		if want := `[{"uri":"file:///w/b.go","range":{"start":{"line":3,"character":6},"end":{"line":3,"character":9}}}]`; m.Error != nil || string(m.Result) != want {
			t.Errorf("got %s, want result %s", m.Raw, want)
		}
		tc.cancel()
		<-se.done
	})
}
