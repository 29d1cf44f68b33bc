package position

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseEncoding(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Encoding
		bad  bool
	}{
		{"", UTF16, false},
		{"utf-16", UTF16, false},
		{"utf-8", UTF8, false},
		{"UTF-32", UTF32, false},
		{"latin1", "", true},
	} {
		got, err := ParseEncoding(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrEncoding) {
				t.Errorf("ParseEncoding(%q) err = %v, want ErrEncoding", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseEncoding(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// columns lists, for one line, the column of each character boundary in
// every encoding (the same index is the same place).
type columns struct {
	line  string
	bytes []int
	u16   []int
	u32   []int
}

var lineTable = []columns{
	{"abc", []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	{"", []int{0}, []int{0}, []int{0}},
	{"\tx", []int{0, 1, 2}, []int{0, 1, 2}, []int{0, 1, 2}},
	// CJK: 3 bytes, 1 UTF-16 unit each.
	{"日本語x", []int{0, 3, 6, 9, 10}, []int{0, 1, 2, 3, 4}, []int{0, 1, 2, 3, 4}},
	// Emoji outside the BMP: 4 bytes, a surrogate pair.
	{"a😀b", []int{0, 1, 5, 6}, []int{0, 1, 3, 4}, []int{0, 1, 2, 3}},
	{"😀😀", []int{0, 4, 8}, []int{0, 2, 4}, []int{0, 1, 2}},
	// Combining acute accent: two code points.
	{"e\u0301x", []int{0, 1, 3, 4}, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	// Latin-1 range: 2 bytes.
	{"é=1", []int{0, 2, 3, 4}, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	// Invalid UTF-8: every bad byte is one unit everywhere.
	{"a\xffb", []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	{"\xe6\x97x", []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}},
	// Flag: two regional indicators (two surrogate pairs), one grapheme.
	{"🇯🇵", []int{0, 4, 8}, []int{0, 2, 4}, []int{0, 1, 2}},
}

func TestColumnConversions(t *testing.T) {
	for _, tc := range lineTable {
		enc := map[Encoding][]int{UTF8: tc.bytes, UTF16: tc.u16, UTF32: tc.u32}
		for i := range tc.bytes {
			for from, fc := range enc {
				off, exact := ColumnToByte(tc.line, fc[i], from)
				if off != tc.bytes[i] || !exact {
					t.Errorf("ColumnToByte(%q, %d, %s) = %d, %v; want %d, true", tc.line, fc[i], from, off, exact, tc.bytes[i])
				}
				for to, tcols := range enc {
					if got := ByteToColumn(tc.line, off, to); got != tcols[i] {
						t.Errorf("ByteToColumn(ColumnToByte(%q, %d, %s), %s) = %d; want %d", tc.line, fc[i], from, to, got, tcols[i])
					}
				}
			}
			for to, tcols := range enc {
				if got := ByteToColumn(tc.line, tc.bytes[i], to); got != tcols[i] {
					t.Errorf("ByteToColumn(%q, %d, %s) = %d; want %d", tc.line, tc.bytes[i], to, got, tcols[i])
				}
			}
		}
		last := len(tc.bytes) - 1
		for e, cols := range enc {
			if got := ColumnLen(tc.line, e); got != cols[last] {
				t.Errorf("ColumnLen(%q, %s) = %d; want %d", tc.line, e, got, cols[last])
			}
			// Past the end clamps and is not exact.
			off, exact := ColumnToByte(tc.line, cols[last]+3, e)
			if off != len(tc.line) || exact {
				t.Errorf("ColumnToByte(%q, past end, %s) = %d, %v; want %d, false", tc.line, e, off, exact, len(tc.line))
			}
		}
	}
}

func TestColumnInsideCharacter(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int
		enc  Encoding
		want int
	}{
		{"a😀b", 2, UTF16, 1}, // between the surrogates
		{"a😀b", 3, UTF8, 1},  // inside the 4-byte sequence
		{"日x", 2, UTF8, 0},
		{"a", -1, UTF16, 0},
	} {
		off, exact := ColumnToByte(tc.line, tc.col, tc.enc)
		if off != tc.want || exact {
			t.Errorf("ColumnToByte(%q, %d, %s) = %d, %v; want %d, false", tc.line, tc.col, tc.enc, off, exact, tc.want)
		}
	}
	// A byte offset inside a character counts as that character's start.
	if got := ByteToColumn("a😀b", 3, UTF16); got != 1 {
		t.Errorf("ByteToColumn inside emoji = %d; want 1", got)
	}
	if got := ByteToColumn("a😀b", 3, UTF8); got != 1 {
		t.Errorf("ByteToColumn utf-8 inside emoji = %d; want 1", got)
	}
}

func TestDocumentLines(t *testing.T) {
	for _, tc := range []struct {
		text  string
		lines []string
		human int
	}{
		{"", []string{""}, 0},
		{"a", []string{"a"}, 1},
		{"a\n", []string{"a", ""}, 1},
		{"a\r\nb\rc\nd", []string{"a", "b", "c", "d"}, 4},
		{"\r\n\r\n", []string{"", "", ""}, 2},
		{"\n\r", []string{"", "", ""}, 2},
		{"日本\r\n😀\n", []string{"日本", "😀", ""}, 2},
	} {
		d := NewDocumentString(tc.text)
		if d.LineCount() != len(tc.lines) || d.HumanLineCount() != tc.human {
			t.Errorf("%q: LineCount %d Human %d; want %d %d", tc.text, d.LineCount(), d.HumanLineCount(), len(tc.lines), tc.human)
			continue
		}
		for i, want := range tc.lines {
			if got := d.Line(i); got != want {
				t.Errorf("%q: Line(%d) = %q; want %q", tc.text, i, got, want)
			}
			start, _, _ := d.LineBounds(i)
			if d.LineOf(start) != i {
				t.Errorf("%q: LineOf(%d) = %d; want %d", tc.text, start, d.LineOf(start), i)
			}
		}
	}
}

func TestDocumentOffsets(t *testing.T) {
	d := NewDocumentString("x := \"日本\" // 😀 ok\r\nsecond\rthird😀\n")
	for _, tc := range []struct {
		p       Position
		enc     Encoding
		want    int
		exactOK bool
	}{
		{Position{0, 0}, UTF16, 0, true},
		{Position{0, 6}, UTF16, 6, true},   // 日
		{Position{0, 7}, UTF16, 9, true},   // 本
		{Position{0, 7}, UTF8, 7, false},   // inside 日 → its start (6)
		{Position{0, 12}, UTF8, 12, true},  // '"' after 本
		{Position{0, 13}, UTF16, 17, true}, // 😀 starts at byte 17
		{Position{0, 14}, UTF16, 17, false},
		{Position{0, 15}, UTF16, 21, true},
		{Position{0, 18}, UTF16, 24, true},  // end of line 0
		{Position{0, 99}, UTF16, 24, false}, // clamped to end of line, before \r\n
		{Position{1, 6}, UTF16, 32, true},
		{Position{2, 7}, UTF16, 42, true}, // after third😀
		{Position{2, 6}, UTF32, 42, true},
		{Position{3, 0}, UTF16, 43, true},
		{Position{4, 0}, UTF16, 43, true}, // one past the last line: end of document
	} {
		got, err := d.Offset(tc.p, tc.enc)
		want := tc.want
		if tc.p == (Position{0, 7}) && tc.enc == UTF8 {
			want = 6
		}
		if tc.p == (Position{0, 14}) {
			want = 17
		}
		if err != nil || got != want {
			t.Errorf("Offset(%v, %s) = %d, %v; want %d", tc.p, tc.enc, got, err, want)
		}
		_, err = d.OffsetExact(tc.p, tc.enc)
		if (err == nil) != tc.exactOK {
			t.Errorf("OffsetExact(%v, %s) err = %v; want ok=%v", tc.p, tc.enc, err, tc.exactOK)
		}
		if err != nil && !errors.Is(err, ErrColumnRange) {
			t.Errorf("OffsetExact(%v) err = %v; want ErrColumnRange", tc.p, err)
		}
	}
	for _, p := range []Position{{5, 0}, {4, 1}, {1 << 31, 0}} {
		if _, err := d.Offset(p, UTF16); !errors.Is(err, ErrLineRange) {
			t.Errorf("Offset(%v) err = %v; want ErrLineRange", p, err)
		}
	}
	// Offsets on terminators belong to the end of their line.
	for off, want := range map[int]Position{24: {0, 18}, 25: {0, 18}, 26: {1, 0}, 32: {1, 6}, 33: {2, 0}} {
		if got := d.PositionOf(off, UTF16); got != want {
			t.Errorf("PositionOf(%d) = %v; want %v", off, got, want)
		}
	}
	r, err := d.ConvertRange(Range{Position{0, 13}, Position{0, 15}}, UTF16, UTF8)
	if err != nil || r != (Range{Position{0, 17}, Position{0, 21}}) {
		t.Errorf("ConvertRange = %v, %v", r, err)
	}
}

func TestFromUserAndBack(t *testing.T) {
	d := NewDocumentString("package main\n\nfunc 日本(s string) { _ = \"😀\" + s }\n")
	for _, tc := range []struct {
		line, col int
		enc       Encoding
		want      Position
	}{
		{1, 1, UTF16, Position{0, 0}},
		{3, 6, UTF16, Position{2, 5}},
		{3, 8, UTF16, Position{2, 7}},   // '(' after 日本
		{3, 8, UTF8, Position{2, 11}},   // 5 + 3 + 3
		{3, 27, UTF16, Position{2, 27}}, // '"' after 😀 (a surrogate pair)
		{3, 27, UTF8, Position{2, 33}},
		{3, 27, UTF32, Position{2, 26}},
		{3, 33, UTF16, Position{2, 33}},
		{2, 1, UTF16, Position{1, 0}}, // empty line, column 1
		{4, 1, UTF16, Position{3, 0}}, // the empty line after the final newline
	} {
		got, err := d.FromUser(tc.line, tc.col, tc.enc)
		if err != nil || got != tc.want {
			t.Errorf("FromUser(%d, %d, %s) = %v, %v; want %v", tc.line, tc.col, tc.enc, got, err, tc.want)
			continue
		}
		l, c, err := d.ToUser(got, tc.enc)
		if err != nil || l != tc.line || c != tc.col {
			t.Errorf("ToUser(%v, %s) = %d:%d, %v; want %d:%d", got, tc.enc, l, c, err, tc.line, tc.col)
		}
	}
}

func TestFromUserErrors(t *testing.T) {
	d := NewDocumentString("a\n    func add(address int) {\n}\n")
	for _, tc := range []struct {
		line, col int
		want      error
		msg       []string
	}{
		{0, 1, ErrLineRange, []string{"line 0 is out of range", "the file has 3 lines"}},
		{9, 1, ErrLineRange, []string{"the file has 3 lines (valid lines 1..3)"}},
		{2, 0, ErrColumnRange, []string{"column 0", "27 characters", "valid columns 1..28", `"func add(address int) {"`}},
		{2, 30, ErrColumnRange, []string{"column 30"}},
	} {
		_, err := d.FromUser(tc.line, tc.col, UTF16)
		if !errors.Is(err, tc.want) {
			t.Errorf("FromUser(%d, %d) err = %v; want %v", tc.line, tc.col, err, tc.want)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("FromUser(%d, %d) err = %q; want it to contain %q", tc.line, tc.col, err, m)
			}
		}
	}
	one := NewDocumentString("x\n")
	if _, err := one.FromUser(3, 1, UTF16); err == nil || !strings.Contains(err.Error(), "the file has 1 line (valid lines 1..1)") {
		t.Errorf("one-line file: err = %v", err)
	}
	if _, err := one.FromUser(1, 3, UTF16); err == nil || !strings.Contains(err.Error(), "the line has 1 character (valid columns 1..2)") {
		t.Errorf("one-character line: err = %v", err)
	}
	empty := NewDocumentString("")
	if _, err := empty.FromUser(2, 1, UTF16); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: err = %v", err)
	}
}

func TestParseSymbol(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		n    int
		bad  bool
	}{
		{"foo", "foo", 1, false},
		{"foo#2", "foo", 2, false},
		{"C#", "C#", 1, false},
		{"#include", "#include", 1, false},
		{"a#b", "a#b", 1, false},
		{"x#1#2", "x#1", 2, false},
		{" add ", "add", 1, false},
		{"add#2 ", "add", 2, false},
		{"foo#0", "", 0, true},
		{"", "", 0, true},
		{"  ", "", 0, true},
	} {
		name, n, err := ParseSymbol(tc.in)
		if tc.bad {
			if !errors.Is(err, ErrSymbolSyntax) {
				t.Errorf("ParseSymbol(%q) err = %v; want ErrSymbolSyntax", tc.in, err)
			}
			continue
		}
		if err != nil || name != tc.name || n != tc.n {
			t.Errorf("ParseSymbol(%q) = %q, %d, %v; want %q, %d", tc.in, name, n, err, tc.name, tc.n)
		}
	}
}

func TestOccurrences(t *testing.T) {
	for _, tc := range []struct {
		line, name string
		want       []int
		boundary   bool
	}{
		{"add(address, add)", "add", []int{0, 13}, true},
		{"addAll(x)", "add", []int{0}, false},
		{"a.add(1)+b.add(2)", "add", []int{2, 11}, true},
		{"x->y", "->", []int{1}, true},
		{"日本 := 日本語", "日本", []int{0}, true},
		{"aaaa", "aa", []int{0, 2}, false},
		{"café := caféx", "café", []int{0}, true},
		{"nothing", "zzz", nil, false},
		{"\u074b", "\x8b", nil, false},         // a stray byte never matches inside a character
		{"\xe6\x97x", "\x97x", []int{1}, true}, // but matches a stray byte of the line
		{"日本 本", "本", []int{7}, true},          // 本 after 日 is inside an identifier
	} {
		got, b := Occurrences(tc.line, tc.name)
		if b != tc.boundary || !equalInts(got, tc.want) {
			t.Errorf("Occurrences(%q, %q) = %v, %v; want %v, %v", tc.line, tc.name, got, b, tc.want, tc.boundary)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFromSymbol(t *testing.T) {
	text := "package p\n" +
		"// 😀 add adds: add(address)\n" +
		"func add(a, b int) int { return a + b }\n" +
		"var x = add(1, add(2, 3))\n" +
		"var addr = address\n"
	d := NewDocumentString(text)
	for _, tc := range []struct {
		line int
		sym  string
		enc  Encoding
		want Position
	}{
		{3, "add", UTF16, Position{2, 5}},
		{4, "add#2", UTF16, Position{3, 15}},
		{2, "add", UTF16, Position{1, 6}},    // 😀 is 2 units
		{2, "add", UTF8, Position{1, 8}},     // and 4 bytes
		{2, "add", UTF32, Position{1, 5}},    // and one code point
		{2, "add#2", UTF16, Position{1, 16}}, // "add(" — "adds" is not at a boundary
		{5, "add", UTF16, Position{4, 4}},    // no boundary match: substring in "addr"
		{5, "add#2", UTF16, Position{4, 11}},
	} {
		got, err := d.FromSymbol(tc.line, tc.sym, tc.enc)
		if err != nil || got != tc.want {
			t.Errorf("FromSymbol(%d, %q, %s) = %v, %v; want %v", tc.line, tc.sym, tc.enc, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		line int
		sym  string
		want error
		msg  []string
	}{
		{1, "add", ErrSymbolNotFound, []string{`symbol "add" not found on line 1`, `"package p"`, "lines 2, 3, 4"}},
		{3, "add#3", ErrOccurrence, []string{"line 3 has 1 occurrence of \"add\" (at column 6), not 3"}},
		{4, "add#3", ErrOccurrence, []string{"2 occurrences", "columns 9, 16"}},
		{7, "add", ErrLineRange, []string{"the file has 5 lines"}},
		{3, "add#0", ErrSymbolSyntax, nil},
	} {
		_, err := d.FromSymbol(tc.line, tc.sym, UTF16)
		if !errors.Is(err, tc.want) {
			t.Errorf("FromSymbol(%d, %q) err = %v; want %v", tc.line, tc.sym, err, tc.want)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("FromSymbol(%d, %q) err = %q; want it to contain %q", tc.line, tc.sym, err, m)
			}
		}
	}
}

func TestSnippetBounded(t *testing.T) {
	long := strings.Repeat("日本", 500) + " target " + strings.Repeat("x", 1000)
	d := NewDocumentString(long)
	_, err := d.FromSymbol(1, "missing", UTF16)
	if err == nil || utf8.RuneCountInString(err.Error()) > 250 {
		t.Fatalf("error not bounded: %d chars", utf8.RuneCountInString(err.Error()))
	}
	_, err = d.FromSymbol(1, "target#2", UTF16)
	if err == nil || !strings.Contains(err.Error(), "target") || !strings.Contains(err.Error(), "…") {
		t.Fatalf("error should quote around the occurrence: %v", err)
	}
}
