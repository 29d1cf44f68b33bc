// Package position converts between the ways people, models and language
// servers name a place in a text file.
//
// Language servers use 0-based lines and a 0-based character offset counted
// in the negotiated encoding (UTF-16 code units unless the server and client
// agree on UTF-8 or UTF-32). People and models use 1-based lines and columns
// counted in characters, or name a symbol on a line. Every conversion here is
// made from the real text of the line, because the encodings only agree on
// ASCII.
//
// Conventions used throughout the package:
//
//   - A line ends at "\n", "\r\n" or a lone "\r" (the LSP line terminators).
//     The terminator is not part of the line's text. A file with N
//     terminators has N+1 lines; the last one may be empty.
//   - A "character" in tool input is a Unicode code point. A tab is one
//     character. Grapheme clusters are not merged: "é" written as "e" plus a
//     combining accent is two characters, an emoji with a skin-tone modifier
//     is two. Code points are what every encoding counts exactly and what
//     most editors' column displays count; grapheme segmentation would need
//     tables that change with each Unicode version.
//   - Invalid UTF-8 never panics: each byte that does not start a valid
//     sequence counts as one character (U+FFFD), one UTF-16 unit, one UTF-32
//     unit and one UTF-8 unit (its byte).
//   - LSP positions from servers are read as the specification says: a
//     character past the end of the line means the end of the line. A
//     character that falls inside a character (the middle of a surrogate pair
//     or of a multi-byte UTF-8 sequence) snaps back to the start of that
//     character. Exact variants that report these cases as errors exist for
//     validation.
//   - Tool input is strict: an out-of-range line or column is an error that
//     says what the file or line holds, so a model can correct itself.
package position

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Encoding is an LSP position encoding kind: the unit in which the character
// offset of a Position is counted. Its values are the wire strings of the
// LSP PositionEncodingKind, so it converts directly to and from
// protocol.PositionEncodingKind.
type Encoding string

// The position encodings defined by LSP 3.17.
const (
	// UTF8 counts bytes of the UTF-8 encoded line.
	UTF8 Encoding = "utf-8"
	// UTF16 counts UTF-16 code units; characters outside the Basic
	// Multilingual Plane (most emoji) count two. It is the LSP default.
	UTF16 Encoding = "utf-16"
	// UTF32 counts Unicode code points.
	UTF32 Encoding = "utf-32"
)

// ParseEncoding returns the Encoding named by s. The empty string means
// UTF-16, the LSP default when a server announces no encoding.
func ParseEncoding(s string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "utf-16", "utf16":
		return UTF16, nil
	case "utf-8", "utf8":
		return UTF8, nil
	case "utf-32", "utf32":
		return UTF32, nil
	}
	return "", fmt.Errorf("position: parse encoding %q: %w (want utf-8, utf-16 or utf-32)", s, ErrEncoding)
}

// Valid reports whether e is one of UTF8, UTF16 and UTF32.
func (e Encoding) Valid() bool { return e == UTF8 || e == UTF16 || e == UTF32 }

// orDefault maps the zero Encoding to UTF16 so that callers holding an
// unset negotiated encoding get the LSP default.
func (e Encoding) orDefault() Encoding {
	if e == "" {
		return UTF16
	}
	return e
}

// Position is an LSP position: a 0-based line and a 0-based character offset
// in some Encoding. It has the same fields as protocol.Position and converts
// to it with a plain type conversion.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// String formats p as 0-based "line:character", the raw LSP form.
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }

// Less reports whether p comes before q.
func (p Position) Less(q Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
}

// Range is an LSP range: Start inclusive, End exclusive, both in the same
// Encoding. It has the same fields as protocol.Range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// String formats r as "line:char-line:char", 0-based.
func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// units returns how many code units of enc the character r, stored in size
// bytes of UTF-8, occupies.
func units(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2
		}
		return 1
	}
}

// isASCII reports whether s holds only ASCII bytes; on such text every
// encoding counts bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ColumnToByte returns the byte offset in line (the text of one line,
// without its terminator) of the 0-based column col counted in enc.
// A column inside a character snaps back to the start of that character and
// a column past the end of the line clamps to len(line); in both cases exact
// is false. A negative column clamps to 0 and is not exact.
func ColumnToByte(line string, col int, enc Encoding) (off int, exact bool) {
	enc = enc.orDefault()
	if col < 0 {
		return 0, false
	}
	if isASCII(line) {
		if col > len(line) {
			return len(line), false
		}
		return col, true
	}
	return columnToByte(line, col, enc)
}

func columnToByte(line string, col int, enc Encoding) (int, bool) {
	n := 0
	for i := 0; i < len(line); {
		if n == col {
			return i, true
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		u := units(r, size, enc)
		if n+u > col {
			return i, false
		}
		n += u
		i += size
	}
	return len(line), n == col
}

// ByteToColumn returns the 0-based column, counted in enc, of byte offset
// off in line. An offset inside a multi-byte character counts as the start
// of that character; offsets outside [0, len(line)] clamp.
func ByteToColumn(line string, off int, enc Encoding) int {
	enc = enc.orDefault()
	if off <= 0 {
		return 0
	}
	if off > len(line) {
		off = len(line)
	}
	if isASCII(line[:off]) {
		return off
	}
	n := 0
	for i := 0; i < off; {
		r, size := utf8.DecodeRuneInString(line[i:])
		if i+size > off {
			break
		}
		n += units(r, size, enc)
		i += size
	}
	return n
}

// ColumnLen returns the length of line counted in enc.
func ColumnLen(line string, enc Encoding) int {
	return ByteToColumn(line, len(line), enc)
}
