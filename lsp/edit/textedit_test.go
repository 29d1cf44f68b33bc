package edit

import (
	"errors"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

func TestApplyTextEdits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		edits   []TextEdit
		enc     position.Encoding
		strict  bool
		want    string
		wantErr error
	}{
		{"replace", "hello world", []TextEdit{te(0, 6, 0, 11, "there")}, position.UTF16, false, "hello there", nil},
		{"two edits any order", "a b c", []TextEdit{te(0, 4, 0, 5, "C"), te(0, 0, 0, 1, "A")}, position.UTF16, false, "A b C", nil},
		{"inserts keep order", "x", []TextEdit{te(0, 0, 0, 0, "1"), te(0, 0, 0, 0, "2")}, position.UTF16, false, "12x", nil},
		{"insert before replace at same start", "abc", []TextEdit{te(0, 0, 0, 2, "Z"), te(0, 0, 0, 0, "I")}, position.UTF16, false, "IZc", nil},
		{"adjacent ranges", "abcd", []TextEdit{te(0, 0, 0, 2, "1"), te(0, 2, 0, 4, "2")}, position.UTF16, false, "12", nil},
		{"emoji utf-16", "s := \"😀\" + 日本\n", []TextEdit{te(0, 10, 0, 14, "x")}, position.UTF16, false, "s := \"😀\" x\n", nil},
		{"emoji utf-8", "s := \"😀\" + 日本\n", []TextEdit{te(0, 12, 0, 20, "x")}, position.UTF8, false, "s := \"😀\" x\n", nil},
		{"emoji utf-32", "s := \"😀\" + 日本\n", []TextEdit{te(0, 9, 0, 13, "x")}, position.UTF32, false, "s := \"😀\" x\n", nil},
		{"multi-line CRLF", "a\r\nb\r\nc", []TextEdit{te(0, 1, 2, 0, "-")}, position.UTF16, false, "a-c", nil},
		{"lone CR lines", "a\rb\rc", []TextEdit{te(1, 0, 1, 1, "B")}, position.UTF16, false, "a\rB\rc", nil},
		{"past line end clamps", "ab\ncd", []TextEdit{te(0, 99, 0, 99, "!")}, position.UTF16, false, "ab!\ncd", nil},
		{"past line end strict", "ab\ncd", []TextEdit{te(0, 99, 0, 99, "!")}, position.UTF16, true, "", ErrRange},
		{"end of document line", "ab\n", []TextEdit{te(0, 0, 2, 0, "z")}, position.UTF16, false, "z", nil},
		{"line out of range", "ab\n", []TextEdit{te(5, 0, 5, 0, "z")}, position.UTF16, false, "", ErrRange},
		{"reversed range", "abc", []TextEdit{te(0, 2, 0, 1, "z")}, position.UTF16, false, "", ErrRange},
		{"overlap", "abcdef", []TextEdit{te(0, 0, 0, 3, "x"), te(0, 2, 0, 4, "y")}, position.UTF16, false, "", ErrOverlap},
		{"overlap insert inside replace", "abcdef", []TextEdit{te(0, 0, 0, 3, "x"), te(0, 1, 0, 1, "y")}, position.UTF16, false, "", ErrOverlap},
		{"inside surrogate strict", "😀", []TextEdit{te(0, 1, 0, 1, "x")}, position.UTF16, true, "", ErrRange},
		{"invalid utf-8", "a\xffb", []TextEdit{te(0, 1, 0, 2, "é")}, position.UTF16, false, "aéb", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := applyTextEdits(position.NewDocumentString(tc.text), tc.edits, tc.enc, tc.strict)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v; want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	after := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk"
	got, added, removed := UnifiedDiff("a/x", "b/x", []byte(before), []byte(after))
	want := "--- a/x\n+++ b/x\n" +
		"@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n" +
		"@@ -9,2 +9,3 @@\n i\n j\n+k\n\\ No newline at end of file\n"
	if got != want || added != 2 || removed != 1 {
		t.Fatalf("diff:\n%s\nwant:\n%s\n(+%d -%d)", got, want, added, removed)
	}
	if d, _, _ := UnifiedDiff("a", "b", []byte("same"), []byte("same")); d != "" {
		t.Fatalf("equal texts gave %q", d)
	}
	got, added, _ = UnifiedDiff("", "b/new", nil, []byte("x\ny\n"))
	if got != "--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n+x\n+y\n" || added != 2 {
		t.Fatalf("creation diff: %q", got)
	}
}
