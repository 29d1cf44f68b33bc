package position

import (
	"testing"
	"unicode/utf8"
)

var fuzzEncodings = []Encoding{UTF8, UTF16, UTF32}

// FuzzDocument checks that conversions never panic and round-trip: every
// character boundary maps to a position and back to itself in every
// encoding, any position maps to a boundary that is stable, and 1-based
// user positions round-trip.
func FuzzDocument(f *testing.F) {
	f.Add("a😀b\r\n日本\rx\n", uint32(0), uint32(2), uint8(1))
	f.Add("e\u0301\t\xff\xe6\x97\n\n", uint32(1), uint32(7), uint8(0))
	f.Add("", uint32(0), uint32(0), uint8(2))
	f.Fuzz(func(t *testing.T, text string, line, char uint32, e uint8) {
		fuzzBody(t)(text, line, char, e)
	})
}

// fuzzBody is FuzzDocument's check, callable from tests.
func fuzzBody(t *testing.T) func(text string, line, char uint32, e uint8) {
	return func(text string, line, char uint32, e uint8) {
		d := NewDocumentString(text)
		enc := fuzzEncodings[int(e)%len(fuzzEncodings)]
		p := Position{Line: line % uint32(d.LineCount()+2), Character: char}

		off, err := d.Offset(p, enc)
		if err == nil {
			if off < 0 || off > len(text) {
				t.Fatalf("Offset(%v) = %d outside text of %d bytes", p, off, len(text))
			}
			q := d.PositionOf(off, enc)
			off2, err := d.OffsetExact(q, enc)
			if err != nil || off2 != off {
				t.Fatalf("Offset(%v)=%d → PositionOf=%v → OffsetExact=%d, %v", p, off, q, off2, err)
			}
			for _, to := range fuzzEncodings {
				c, err := d.Convert(p, enc, to)
				if err != nil {
					t.Fatalf("Convert(%v, %s→%s): %v", p, enc, to, err)
				}
				back, err := d.OffsetExact(c, to)
				if err != nil || back != off {
					t.Fatalf("Convert(%v, %s→%s) = %v, offset %d, %v; want offset %d", p, enc, to, c, back, err, off)
				}
			}
			l, col, err := d.ToUser(p, enc)
			if err != nil {
				t.Fatalf("ToUser(%v): %v", p, err)
			}
			u, err := d.FromUser(l, col, enc)
			if err != nil {
				t.Fatalf("FromUser(%d, %d) from ToUser(%v): %v", l, col, p, err)
			}
			if uo, _ := d.Offset(u, enc); uo != off {
				t.Fatalf("user round trip %v → %d:%d → %v: offset %d; want %d", p, l, col, u, uo, off)
			}
		}

		// Every character boundary round-trips exactly. Each check is
		// linear in the line, so the work is bounded to keep long mutated
		// inputs from stalling the fuzzer.
		for ln := 0; ln < d.LineCount() && ln < 20; ln++ {
			s := d.Line(ln)
			start, _, _ := d.LineBounds(ln)
			for i, k := 0, 0; i <= len(s) && k < 300; k++ {
				q := d.PositionOf(start+i, enc)
				if int(q.Line) != ln {
					t.Fatalf("PositionOf(%d) line %d; want %d", start+i, q.Line, ln)
				}
				got, err := d.OffsetExact(q, enc)
				if err != nil || got != start+i {
					t.Fatalf("boundary %d of line %d: %v → %d, %v", i, ln, q, got, err)
				}
				if i == len(s) {
					break
				}
				_, size := utf8.DecodeRuneInString(s[i:])
				i += size
			}
		}
	}
}

// FuzzSymbol checks that symbol lookup never panics and that a found
// position really holds the name.
func FuzzSymbol(f *testing.F) {
	f.Add("func add(address int) { add(1) }\n", 1, "add#2")
	f.Add("😀x😀x", 1, "x#2")
	f.Add("a\xffb", 1, "\xff")
	f.Fuzz(func(t *testing.T, text string, line int, sym string) {
		d := NewDocumentString(text)
		for _, enc := range fuzzEncodings {
			p, err := d.FromSymbol(line, sym, enc)
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error message")
				}
				continue
			}
			name, _, _ := ParseSymbol(sym)
			off, err := d.OffsetExact(p, enc)
			if err != nil {
				t.Fatalf("FromSymbol gave %v, not exact: %v", p, err)
			}
			if len(text)-off < len(name) || text[off:off+len(name)] != name {
				t.Fatalf("FromSymbol(%d, %q) = %v (offset %d) does not hold %q", line, sym, p, off, name)
			}
		}
	})
}
