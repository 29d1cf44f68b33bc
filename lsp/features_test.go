package lsp

import (
	"encoding/json"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

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
