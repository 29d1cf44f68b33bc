package fakelsp

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// TestWorkspaceDiagnostics: workspace/diagnostic reports every *.fk file of
// the workspace folder, the open one with its version and editor text, the
// closed ones from disk; no push happens.
func TestWorkspaceDiagnostics(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.fk": "ok\n", "sub/b.fk": "ERROR\n", "c.txt": "ERROR\n"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fileURI := func(name string) string {
		return (&url.URL{Scheme: "file", Path: filepath.Join(dir, name)}).String()
	}
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{WorkspaceDiagnostics: true}, nil)
		c, done := start(t, t.Context(), s)
		id := c.request("initialize", map[string]any{"rootUri": fileURI(""), "capabilities": map[string]any{}})
		init := c.reply(id)
		if !strings.Contains(string(init.Result), `"workspaceDiagnostics":true`) {
			t.Fatalf("capabilities %s", init.Result)
		}
		c.notify("initialized", map[string]any{})
		c.open(fileURI("a.fk"), "ERROR\nERROR\n", 3) // open text differs from disk
		var r struct {
			Items []struct {
				URI     string       `json:"uri"`
				Kind    string       `json:"kind"`
				Version *int         `json:"version"`
				Items   []diagnostic `json:"items"`
			} `json:"items"`
		}
		ans := c.reply(c.request("workspace/diagnostic", map[string]any{"previousResultIds": []any{}}))
		if err := json.Unmarshal(ans.Result, &r); err != nil || len(r.Items) != 2 {
			t.Fatalf("workspace/diagnostic %s: %v", ans.Result, err)
		}
		a, b := r.Items[0], r.Items[1]
		if a.URI != fileURI("a.fk") || deref(a.Version) != 3 || len(a.Items) != 2 || a.Kind != "full" {
			t.Fatalf("open file report %+v", a)
		}
		if b.URI != fileURI("sub/b.fk") || b.Version != nil || len(b.Items) != 1 {
			t.Fatalf("closed file report %+v", b)
		}
		var ids struct {
			Items []struct {
				URI      string `json:"uri"`
				ResultID string `json:"resultId"`
			} `json:"items"`
		}
		json.Unmarshal(ans.Result, &ids)
		c.change(fileURI("a.fk"), "fixed\n", 4)
		again := c.reply(c.request("workspace/diagnostic", map[string]any{"previousResultIds": []any{
			map[string]any{"uri": ids.Items[0].URI, "value": ids.Items[0].ResultID},
			map[string]any{"uri": ids.Items[1].URI, "value": ids.Items[1].ResultID},
		}}))
		r.Items = nil
		json.Unmarshal(again.Result, &r)
		if len(r.Items) != 2 || r.Items[0].Kind != "full" || len(r.Items[0].Items) != 0 || r.Items[1].Kind != "unchanged" {
			t.Fatalf("second report %s: the changed file full, the other unchanged", again.Result)
		}
		c.shutdownExit(done)
	})
}

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
