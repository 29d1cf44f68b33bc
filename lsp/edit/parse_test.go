package edit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"
)

func TestParse(t *testing.T) {
	raw := `{"changes":{"file:///x/a.go":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},"newText":"foo"}]},
	"documentChanges":[
	 {"textDocument":{"uri":"file:///x/a.go","version":7},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"a","annotationId":"n1"}]},
	 {"textDocument":{"uri":"file:///x/b.go","version":null},"edits":[]},
	 {"kind":"create","uri":"file:///x/c.go","options":{"overwrite":true}},
	 {"kind":"rename","oldUri":"file:///x/c.go","newUri":"file:///x/d.go","options":{"ignoreIfExists":true}},
	 {"kind":"delete","uri":"file:///x/e","options":{"recursive":true,"ignoreIfNotExists":true}}],
	"changeAnnotations":{"n1":{"label":"x"}}}`
	we, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	dc := we.DocumentChanges
	if len(dc) != 5 || *dc[0].TextDocumentEdit.TextDocument.Version != 7 || dc[1].TextDocumentEdit.TextDocument.Version != nil ||
		!dc[2].CreateFile.Options.Overwrite || dc[3].RenameFile.NewURI != "file:///x/d.go" || !dc[4].DeleteFile.Options.Recursive ||
		dc[0].TextDocumentEdit.Edits[0].AnnotationID != "n1" || we.Changes["file:///x/a.go"][0].Range.End.Character != 5 {
		t.Fatalf("parsed %+v", we)
	}
	// Marshal and parse again gives the same value.
	b, err := json.Marshal(we)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(again)
	if string(b) != string(b2) {
		t.Fatalf("round trip:\n%s\n%s", b, b2)
	}
	for _, bad := range []struct{ raw, msg string }{
		{`{"documentChanges":[{"kind":"move","uri":"file:///x"}]}`, `unknown document change kind "move"`},
		{`{"changes":{"file:///a":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"snippet":{"kind":"snippet","value":"$1"}}]}}`, "snippet text edits are not supported"},
		{`{"changes":{"file:///a":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}}]}}`, "without newText"},
		{`{"changes":{"file:///a":[{"newText":"x"}]}}`, "without range"},
		{`{"changes":`, "parse workspace edit"},
	} {
		if _, err := Parse([]byte(bad.raw)); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("Parse(%s) err = %v; want %q", bad.raw, err, bad.msg)
		}
	}
}

// TestParseProtocolValue checks the documented path for callers holding
// go.lsp.dev/protocol values: protocol.Marshal, then Parse.
func TestParseProtocolValue(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a\n"})
	pe := protocol.WorkspaceEdit{Changes: map[lspuri.URI][]protocol.TextEdit{
		lspuri.URI(uri(dir, "a.go")): {{Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 8}, End: protocol.Position{Line: 0, Character: 9}}, NewText: "b"}},
	}}
	raw, err := protocol.Marshal(pe)
	if err != nil {
		t.Fatal(err)
	}
	we, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), we, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "a.go"); got != "package b\n" {
		t.Fatalf("a.go = %q", got)
	}
}

func TestPathFromURI(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"file:///tmp/a%20b/c.go", "/tmp/a b/c.go", ""},
		{"file://localhost/tmp/x", "/tmp/x", ""},
		{"file:///tmp/../etc/x", "/etc/x", ""},
		{"file:///tmp/%5B...slug%5D.ts", "/tmp/[...slug].ts", ""},
		{"http://x/y", "", "only file://"},
		{"file://server/share/x", "", "remote host"},
		{"file:rel/x", "", "not an absolute path"},
		{"file:///tmp/a%3Fb%23c.go", "/tmp/a?b#c.go", ""},
		{"file:///tmp/a?b.go", "", "query or fragment"},
		{"file:///tmp/a#b.go", "", "query or fragment"},
		{"file:///tmp/a?", "", "query or fragment"},
	} {
		got, err := PathFromURI(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("PathFromURI(%q) err = %v; want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("PathFromURI(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if back, _ := PathFromURI(URIFromPath(got)); back != got {
			t.Errorf("URIFromPath round trip of %q gave %q", got, back)
		}
	}
}
