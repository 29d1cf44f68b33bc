package fakelsp

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
)

// TestSaveIncludeText: the script decides textDocumentSync.save.includeText.
func TestSaveIncludeText(t *testing.T) {
	for _, want := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			s := New(Script{SaveIncludeText: want}, nil)
			c, done := start(t, t.Context(), s)
			var r struct {
				Capabilities struct {
					TextDocumentSync struct {
						Save struct {
							IncludeText bool `json:"includeText"`
						} `json:"save"`
					} `json:"textDocumentSync"`
				} `json:"capabilities"`
			}
			json.Unmarshal(c.initialize().Result, &r)
			if r.Capabilities.TextDocumentSync.Save.IncludeText != want {
				t.Fatalf("includeText %v, want %v", !want, want)
			}
			c.shutdownExit(done)
		})
	}
}

// TestIndexingEndAfter: with EndAfter the window closes right after the
// first answer to that method, which is the empty one.
func TestIndexingEndAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{Diagnostics: DiagPull, Indexing: &Indexing{Eager: true, EndAfter: "textDocument/diagnostic"}}, nil)
		c, done := start(t, t.Context(), s)
		c.initialize()
		create := c.read()
		if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"begin"`) {
			t.Fatalf("want begin, got %+v", m)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": create.ID, "result": nil})
		c.open(uri, "ERROR\n", 1)
		pull := map[string]any{"textDocument": map[string]any{"uri": uri}}
		if m := c.reply(c.request("textDocument/diagnostic", pull)); !strings.Contains(string(m.Result), `"items":[]`) {
			t.Fatalf("pull while indexing: %s", m.Result)
		}
		if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"end"`) {
			t.Fatalf("want end, got %+v", m)
		}
		if m := c.reply(c.request("textDocument/diagnostic", pull)); !strings.Contains(string(m.Result), DiagnosticMessage) {
			t.Fatalf("pull after indexing: %s", m.Result)
		}
		c.shutdownExit(done)
	})
}

// TestIndexingPublishEmpty: with PublishEmpty a document opened while
// indexing gets an empty publish for its version, and the real one when
// indexing ends.
func TestIndexingPublishEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{Indexing: &Indexing{Eager: true, PublishEmpty: true}}, nil)
		c, done := start(t, t.Context(), s)
		c.initialize()
		create := c.read()
		if m := c.read(); m.Method != "$/progress" {
			t.Fatalf("want begin, got %+v", m)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": create.ID, "result": nil})
		c.open(uri, "ERROR\n", 1)
		if p := c.publish(); deref(p.Version) != 1 || len(p.Diagnostics) != 0 {
			t.Fatalf("publish while indexing %+v", p)
		}
		s.EndIndexing()
		if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"end"`) {
			t.Fatalf("want end, got %+v", m)
		}
		if p := c.publish(); deref(p.Version) != 1 || len(p.Diagnostics) != 1 {
			t.Fatalf("publish after indexing %+v", p)
		}
		c.shutdownExit(done)
	})
}

// TestIndexingSignals: a Silent window sends no progress and ends with
// its EndLog alone; Report follows the begin with a report at 50%; while
// Partial indexing documentSymbol lists the first function only.
func TestIndexingSignals(t *testing.T) {
	syms := map[string]any{"textDocument": map[string]any{"uri": uri}}
	const text = "func A() {}\nfunc B() {}\n"
	t.Run("silent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := New(Script{Indexing: &Indexing{Silent: true, Partial: true, EndLog: "Found 2 source files"}}, nil)
			c, done := start(t, t.Context(), s)
			c.initialize()
			c.open(uri, text, 1)
			if m := c.reply(c.request("textDocument/documentSymbol", syms)); strings.Count(string(m.Result), `"name"`) != 1 {
				t.Fatalf("symbols while indexing: %s", m.Result)
			}
			s.EndIndexing()
			if m := c.read(); m.Method != "window/logMessage" || !strings.Contains(string(m.Params), "Found 2 source files") {
				t.Fatalf("want the end log, got %+v", m)
			}
			c.publish() // pushed at the end
			if m := c.reply(c.request("textDocument/documentSymbol", syms)); strings.Count(string(m.Result), `"name"`) != 2 {
				t.Fatalf("symbols after indexing: %s", m.Result)
			}
			c.shutdownExit(done)
		})
	})
	t.Run("report", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := New(Script{Indexing: &Indexing{Eager: true, Report: "1/2"}}, nil)
			c, done := start(t, t.Context(), s)
			c.initialize()
			c.read() // create
			if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"begin"`) {
				t.Fatalf("want begin, got %+v", m)
			}
			if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"kind":"report","message":"1/2","percentage":50`) {
				t.Fatalf("want the report, got %+v %s", m, m.Params)
			}
			c.shutdownExit(done)
		})
	})
}
