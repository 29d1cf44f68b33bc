package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// TestConvertCallHierarchyRanges checks that the fromRanges of call
// hierarchy answers are converted with the text of the document they are in:
// the caller's ("from".uri) for incoming calls, the requested item's for
// outgoing calls.
func TestConvertCallHierarchyRanges(t *testing.T) {
	dir := t.TempDir()
	callee := filepath.Join(dir, "callee.go")
	caller := filepath.Join(dir, "caller.go")
	// The callee's file is ASCII; in the caller's, "f" is at byte 17
	// (UTF-8) and UTF-16 unit 11.
	if err := os.WriteFile(callee, []byte("func f() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(caller, []byte("x := \"日本😀\"; f()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calleeURI, callerURI := "file://"+callee, "file://"+caller
	rng := `{"start":{"line":0,"character":17},"end":{"line":0,"character":18}}`
	for _, tc := range []struct {
		name, raw, request string
	}{
		{"incoming", `[{"from":{"name":"g","kind":12,"uri":"` + callerURI + `","range":` + rng + `,"selectionRange":` + rng + `},"fromRanges":[` + rng + `]}]`, calleeURI},
		{"outgoing", `[{"to":{"name":"f","kind":12,"uri":"` + calleeURI + `","range":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}},"selectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}}},"fromRanges":[` + rng + `]}]`, callerURI},
	} {
		out, err := newConverter(position.UTF8, position.UTF16, nil, DefaultMaxFileSize).convert([]byte(tc.raw), tc.request)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var v []struct {
			FromRanges []position.Range `json:"fromRanges"`
		}
		if err := decode(out, &v); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := position.Range{Start: position.Position{Character: 11}, End: position.Position{Character: 12}}
		if len(v) != 1 || len(v[0].FromRanges) != 1 || v[0].FromRanges[0] != want {
			t.Errorf("%s: converted %s; want fromRanges [%v]", tc.name, out, want)
		}
	}
}

// TestConvertAfterRename checks that a text edit listed after a RenameFile
// in documentChanges is converted with the text of the renamed file: its
// new name does not exist on disk yet, so the text is the old name's.
func TestConvertAfterRename(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	// "f" is at byte 17 (UTF-8) and UTF-16 unit 11.
	for _, f := range []string{"old.go", "pkg/a.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x := \"日本😀\"; f()\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := func(rel string) string { return edit.URIFromPath(filepath.Join(dir, rel)) }
	rng := `{"start":{"line":0,"character":17},"end":{"line":0,"character":18}}`
	textEdit := func(rel string) string {
		return `{"textDocument":{"uri":"` + uri(rel) + `","version":null},"edits":[{"range":` + rng + `,"newText":"g"}]}`
	}
	for _, tc := range []struct {
		name, changes string
	}{
		{"file", `{"kind":"rename","oldUri":"` + uri("old.go") + `","newUri":"` + uri("new.go") + `"},` + textEdit("new.go")},
		{"folder", `{"kind":"rename","oldUri":"` + uri("pkg") + `","newUri":"` + uri("lib") + `"},` + textEdit("lib/a.go")},
		{"twice", `{"kind":"rename","oldUri":"` + uri("old.go") + `","newUri":"` + uri("mid.go") + `"},` +
			`{"kind":"rename","oldUri":"` + uri("mid.go") + `","newUri":"` + uri("new.go") + `"},` + textEdit("new.go")},
		{"before", textEdit("old.go") + `,{"kind":"rename","oldUri":"` + uri("old.go") + `","newUri":"` + uri("new.go") + `"}`},
	} {
		raw := `{"documentChanges":[` + tc.changes + `]}`
		out, err := newConverter(position.UTF8, position.UTF16, nil, DefaultMaxFileSize).convert([]byte(raw), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var v struct {
			DocumentChanges []struct {
				Edits []struct {
					Range position.Range `json:"range"`
				} `json:"edits"`
			} `json:"documentChanges"`
		}
		if err := decode(out, &v); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := position.Range{Start: position.Position{Character: 11}, End: position.Position{Character: 12}}
		var got []position.Range
		for _, dc := range v.DocumentChanges {
			for _, e := range dc.Edits {
				got = append(got, e.Range)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: converted %s; want the edit's range %v", tc.name, out, want)
		}
	}
}
