package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
)

// TestWorkspaceDiagnostics: a server offering workspace diagnostics is
// asked with workspace/diagnostic, which covers files never opened; a
// second ask sends the previous result ids and sees edits made on disk;
// positions come back in UTF-16 whatever the server negotiated; a
// push-only server is reported Unsupported, never as "no problems".
func TestWorkspaceDiagnostics(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{WorkspaceDiagnostics: true, PositionEncoding: enc}, nil)
			sub := filepath.Join(e.root, "sub", "b.fk")
			clean := filepath.Join(e.root, "c.fk")
			os.MkdirAll(filepath.Dir(sub), 0o755)
			// "x é😀 " is 6 UTF-16 units and 9 bytes: ERROR starts at UTF-16 6.
			if err := os.WriteFile(sub, []byte("x é😀 ERROR\nERROR\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(clean, []byte("func Ok() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.root, "outside.txt"), []byte("ERROR\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.wantHover() // starts the server; a.fk is open
			rep, err := e.m.WorkspaceDiagnostics(t.Context(), e.root, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]FileDiagnostics{}
			for _, f := range rep.Files {
				got[strings.TrimPrefix(f.Path, e.root+"/")] = f
			}
			if len(rep.Files) != 3 {
				t.Fatalf("files %+v", rep.Files)
			}
			for name, n := range map[string]int{"a.fk": 1, "c.fk": 0, "sub/b.fk": 2} {
				f := got[name]
				if f.Verdict != Fresh || f.Server != "fakelsp" || len(messages(t, f.Diagnostics)) != n {
					t.Fatalf("%s: %+v, want fresh with %d diagnostics", name, f, n)
				}
			}
			if got["a.fk"].Version != 1 {
				t.Fatalf("open document's version %d, want 1", got["a.fk"].Version)
			}
			var ds []struct {
				Range struct {
					Start Position `json:"start"`
				} `json:"range"`
			}
			if err := decode(got["sub/b.fk"].Diagnostics, &ds); err != nil || ds[0].Range.Start != (Position{Line: 0, Character: 6}) {
				t.Fatalf("unopened file's diagnostics %s (%v), want the first at 0:6 in UTF-16", got["sub/b.fk"].Diagnostics, err)
			}
			if err := os.WriteFile(sub, []byte("fixed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err = e.m.WorkspaceDiagnostics(t.Context(), e.root, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Files {
				want := map[string]int{"a.fk": 1, "c.fk": 0, "b.fk": 0}[filepath.Base(f.Path)] // a.fk, c.fk "unchanged"
				if f.Verdict != Fresh || len(messages(t, f.Diagnostics)) != want {
					t.Fatalf("after the fix on disk: %+v, want %d diagnostics", f, want)
				}
			}
			e.close()
			reqs := fakelsp.Requests(e.messages(), "workspace/diagnostic")
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Params), `"previousResultIds":[{`) {
				t.Fatalf("workspace/diagnostic requests %+v, want 2, the second with previous result ids", reqs)
			}
		})
	}
	t.Run("push only", func(t *testing.T) {
		e := newFaultEnv(t, fakelsp.Script{}, nil)
		e.wantHover()
		rep, err := e.m.WorkspaceDiagnostics(t.Context(), e.root, DiagnosticsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Files) != 1 || rep.Files[0].Verdict != Unsupported || !strings.Contains(rep.Files[0].Detail, "does not offer workspace diagnostics") {
			t.Fatalf("report %+v", rep.Files)
		}
	})
}

// TestFileSavedIncludeText: didSave carries the document's text exactly
// when the server asked for it with textDocumentSync.save.includeText.
func TestFileSavedIncludeText(t *testing.T) {
	for _, include := range []bool{false, true} {
		t.Run(map[bool]string{false: "without text", true: "with text"}[include], func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{SaveIncludeText: include}, nil)
			e.wantHover()
			e.write(fakeText + "func Saved() {}\n")
			if err := e.m.FileSaved(t.Context(), e.file); err != nil {
				t.Fatal(err)
			}
			e.close()
			var saves []json.RawMessage
			for _, m := range e.messages() {
				if m.Method == "textDocument/didSave" {
					saves = append(saves, m.Params)
				}
			}
			if len(saves) != 1 {
				t.Fatalf("%d didSave", len(saves))
			}
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Text *string `json:"text"`
			}
			if err := decode(saves[0], &p); err != nil || p.TextDocument.URI != fileURI(e.file) {
				t.Fatalf("didSave %s: %v", saves[0], err)
			}
			if include != (p.Text != nil) || (include && *p.Text != fakeText+"func Saved() {}\n") {
				t.Fatalf("didSave %s with includeText %v", saves[0], include)
			}
			// The save synced the new text first.
			if v := fakelsp.Versions(e.messages(), fileURI(e.file)); len(v) != 2 {
				t.Fatalf("versions %v, want didOpen then didChange before the save", v)
			}
		})
	}
}

func TestParseSave(t *testing.T) {
	for _, tc := range []struct {
		caps string
		want saveKind
	}{
		{``, saveNone},
		{`2`, saveNone},
		{`{"openClose":true,"change":2}`, saveNone},
		{`{"save":false}`, saveNone},
		{`{"save":true}`, saveNotify},
		{`{"save":{}}`, saveNotify},
		{`{"save":{"includeText":false}}`, saveNotify},
		{`{"save":{"includeText":true}}`, saveWithText},
	} {
		if got := parseSave(json.RawMessage(tc.caps)); got != tc.want {
			t.Errorf("parseSave(%s) = %d, want %d", tc.caps, got, tc.want)
		}
	}
}
