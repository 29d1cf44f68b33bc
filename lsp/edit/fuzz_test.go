package edit

import (
	"bytes"
	"sort"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// decodeEdits turns fuzz bytes into a list of edits: 5 bytes per edit
// (start line, start char, length in lines, end char, text selector).
func decodeEdits(b []byte, lines int) []TextEdit {
	texts := []string{"", "x", "日本", "😀", "\n", "\r\n", "ab\ncd"}
	var edits []TextEdit
	for len(b) >= 5 && len(edits) < 16 {
		l1 := uint32(int(b[0]) % (lines + 2))
		c1 := uint32(b[1] % 24)
		l2 := l1 + uint32(b[2]%3)
		c2 := uint32(b[3] % 24)
		edits = append(edits, TextEdit{Range: position.Range{
			Start: position.Position{Line: l1, Character: c1},
			End:   position.Position{Line: l2, Character: c2},
		}, NewText: texts[int(b[4])%len(texts)]})
		b = b[5:]
	}
	return edits
}

// FuzzApplyTextEdits applies arbitrary edit lists to arbitrary text: it
// never panics, and a result it accepts equals applying the same edits one
// at a time from the last to the first.
func FuzzApplyTextEdits(f *testing.F) {
	f.Add("package a\n\nfunc 日本() {}\n", []byte{0, 8, 0, 9, 1, 2, 5, 0, 7, 2}, uint8(0), false)
	f.Add("a😀b\r\nc\rd", []byte{0, 1, 0, 3, 3, 1, 0, 1, 1, 4}, uint8(1), true)
	f.Add("", []byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 2}, uint8(2), false)
	encs := []position.Encoding{position.UTF16, position.UTF8, position.UTF32}
	f.Fuzz(func(t *testing.T, text string, spec []byte, e uint8, strict bool) {
		enc := encs[int(e)%len(encs)]
		doc := position.NewDocumentString(text)
		edits := decodeEdits(spec, doc.LineCount())
		got, err := ApplyTextEdits([]byte(text), edits, enc, strict)
		if err != nil {
			return
		}
		// Independent check: resolve each edit to offsets in the original
		// text and splice from the end, when no two edits share a start.
		type sp struct {
			s, e int
			text string
		}
		var sps []sp
		for _, ed := range edits {
			s, err1 := doc.Offset(ed.Range.Start, enc)
			en, err2 := doc.Offset(ed.Range.End, enc)
			if err1 != nil || err2 != nil || en < s {
				t.Fatalf("accepted edit %v that does not resolve: %v %v", ed.Range, err1, err2)
			}
			sps = append(sps, sp{s, en, ed.NewText})
		}
		sort.SliceStable(sps, func(i, j int) bool { return sps[i].s < sps[j].s })
		out := text
		for i := len(sps) - 1; i >= 0; i-- {
			if i > 0 && sps[i-1].s == sps[i].s {
				return
			}
			if i > 0 && sps[i-1].e > sps[i].s {
				t.Fatalf("accepted overlapping edits %v", edits)
			}
			out = out[:sps[i].s] + sps[i].text + out[sps[i].e:]
		}
		if !bytes.Equal(got, []byte(out)) {
			t.Fatalf("ApplyTextEdits = %q; splicing gives %q", got, out)
		}
	})
}

// FuzzParse feeds arbitrary JSON to Parse: it never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"documentChanges":[{"kind":"rename","oldUri":"file:///a","newUri":"file:///b"},{"textDocument":{"uri":"file:///b","version":1},"edits":[]}]}`))
	f.Add([]byte(`{"changes":{"file:///a":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":""}]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		we, err := Parse(raw)
		if err != nil {
			return
		}
		for _, c := range we.DocumentChanges {
			if c.TextDocumentEdit == nil && c.CreateFile == nil && c.RenameFile == nil && c.DeleteFile == nil {
				t.Fatalf("empty document change from %s", raw)
			}
		}
	})
}
