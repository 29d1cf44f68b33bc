package edit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"sort"
	"syscall"
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
		got, _, err := applyTextEdits(position.NewDocumentString(text), edits, enc, strict)
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
			t.Fatalf("applyTextEdits = %q; splicing gives %q", got, out)
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

// FuzzApplyWorkspace runs arbitrary sequences of text edits and resource
// operations against a small real tree. Either Apply fails and the tree is
// byte-identical to before, or it succeeds and the disk holds exactly what
// the plan's report predicted, with no temporary files left.
func FuzzApplyWorkspace(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 1, 4, 0, 2, 5, 3, 1, 1})
	f.Add([]byte{2, 3, 4, 1, 0, 1, 2, 0, 3, 0, 0, 9})
	f.Add([]byte{3, 1, 1, 0, 1, 3, 0, 0, 2, 2, 1})
	names := []string{"a", "b", "d/c", "d", "e/f", "e", "d/g/h"}
	f.Fuzz(func(t *testing.T, spec []byte) {
		dir := tree(t, map[string]string{"a": "alpha\n", "b": "beta\n日本 😀\n", "d/c": "c\n"})
		var changes []DocumentChange
		for len(spec) >= 4 && len(changes) < 8 {
			kind, n1, n2, flags := spec[0]%4, names[int(spec[1])%len(names)], names[int(spec[2])%len(names)], spec[3]
			spec = spec[4:]
			switch kind {
			case 0:
				changes = append(changes, tde(uri(dir, n1), decodeEdits([]byte{flags, n2[0], flags >> 2, flags >> 4, flags >> 1}, 3)...))
			case 1:
				changes = append(changes, DocumentChange{CreateFile: &CreateFile{URI: uri(dir, n1),
					Options: &CreateFileOptions{Overwrite: flags&1 != 0, IgnoreIfExists: flags&2 != 0}}})
			case 2:
				changes = append(changes, DocumentChange{RenameFile: &RenameFile{OldURI: uri(dir, n1), NewURI: uri(dir, n2),
					Options: &RenameFileOptions{Overwrite: flags&1 != 0, IgnoreIfExists: flags&2 != 0}}})
			case 3:
				changes = append(changes, DocumentChange{DeleteFile: &DeleteFile{URI: uri(dir, n1),
					Options: &DeleteFileOptions{Recursive: flags&1 != 0, IgnoreIfNotExists: flags&2 != 0}}})
			}
		}
		// A trailing byte, when present, injects a failure at that
		// mutating call: the apply must then roll back completely.
		failAt := 0
		if len(spec) > 0 {
			failAt = int(spec[len(spec)-1] % 16)
		}
		before := snapshot(t, dir)
		we := &WorkspaceEdit{DocumentChanges: changes}
		ffs := &faultFS{n: failAt}
		p, err := NewPlan(context.Background(), we, Options{Root: dir, FS: ffs})
		if err != nil {
			sameTree(t, before, snapshot(t, dir))
			return
		}
		res, err := p.Apply(context.Background())
		if err != nil {
			if failAt == 0 || !errors.Is(err, syscall.EIO) {
				t.Fatalf("validated plan failed to apply: %v", err)
			}
			sameTree(t, before, snapshot(t, dir))
			return
		}
		for _, fr := range res.Files {
			fi, statErr := os.Lstat(fr.Path)
			switch {
			case fr.Exists && !fr.Dir:
				b, err := os.ReadFile(fr.Path)
				if err != nil || !bytes.Equal(b, fr.After) {
					t.Fatalf("%s: disk %q, %v; report %q (ops %v)", fr.Path, b, err, fr.After, fr.Ops)
				}
			case fr.Exists && fr.Dir:
				if statErr != nil || !fi.IsDir() {
					t.Fatalf("%s: want a directory: %v", fr.Path, statErr)
				}
			default:
				// Unless another entry says the path exists after the
				// edit (a rename onto a path whose old file was replaced).
				if statErr == nil && !slices.ContainsFunc(res.Files, func(o FileResult) bool { return o.Path == fr.Path && o.Exists }) {
					t.Fatalf("%s: reported gone but exists (ops %v)", fr.Path, fr.Ops)
				}
			}
		}
		assertNoLeftovers(t, dir)
	})
}
