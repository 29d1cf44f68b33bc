package position

import (
	"fmt"
	"sort"
	"strings"
)

// Document indexes the lines of one version of a file so that positions can
// be converted repeatedly without rescanning the text. A Document is
// immutable and safe for concurrent use; build a new one when the file
// changes.
type Document struct {
	text   string
	starts []int  // byte offset where each line starts
	ends   []int  // byte offset where each line's text ends (its terminator starts)
	ascii  []bool // whether the line's text is pure ASCII
}

// NewDocument indexes content. The bytes are copied.
func NewDocument(content []byte) *Document { return NewDocumentString(string(content)) }

// NewDocumentString indexes text. Line terminators are found with
// strings.IndexByte (vectorized) rather than by looking at every byte in
// Go: rendering a workspace-symbol answer indexes every file it names, and
// the byte loop was most of that answer's cost.
func NewDocumentString(text string) *Document {
	d := &Document{text: text}
	// Most lines are short; one slot per 32 bytes avoids most regrowth.
	n := len(text)/32 + 1
	d.starts = make([]int, 0, n)
	d.ends = make([]int, 0, n)
	d.ascii = make([]bool, 0, n)
	// nl is the next '\n' at or after start: -1 when there is none left,
	// -2 before the first search. It is searched again only once start
	// passes it, so text with lone '\r' terminators is scanned once.
	start, nl := 0, -2
	for {
		if nl != -1 && nl < start {
			nl = strings.IndexByte(text[start:], '\n')
			if nl >= 0 {
				nl += start
			}
		}
		end := len(text)
		if nl >= 0 {
			end = nl
		}
		if cr := strings.IndexByte(text[start:end], '\r'); cr >= 0 {
			// "\r\n" or a lone '\r' ends the line.
			end = start + cr
			d.add(start, end, isASCII(text[start:end]))
			start = end + 1
			if start < len(text) && text[start] == '\n' {
				start++
			}
			continue
		}
		d.add(start, end, isASCII(text[start:end]))
		if end == len(text) {
			return d
		}
		start = end + 1
	}
}

func (d *Document) add(start, end int, ascii bool) {
	d.starts = append(d.starts, start)
	d.ends = append(d.ends, end)
	d.ascii = append(d.ascii, ascii)
}

// Text returns the document's full text.
func (d *Document) Text() string { return d.text }

// Len returns the length of the text in bytes.
func (d *Document) Len() int { return len(d.text) }

// LineCount returns the number of LSP lines: the number of line terminators
// plus one. A file ending in a newline has an empty last line; an empty file
// has one empty line.
func (d *Document) LineCount() int { return len(d.starts) }

// HumanLineCount returns the number of lines as an editor's status bar or
// wc -l on a terminated file counts them: LineCount without the empty line
// that follows a final terminator. An empty file has 0 lines.
func (d *Document) HumanLineCount() int {
	n := len(d.starts)
	if d.starts[n-1] == len(d.text) {
		n--
	}
	return n
}

// Line returns the text of the 0-based line without its terminator, or ""
// when the line does not exist.
func (d *Document) Line(line int) string {
	if line < 0 || line >= len(d.starts) {
		return ""
	}
	return d.text[d.starts[line]:d.ends[line]]
}

// LineBounds returns the byte offsets where the 0-based line's text starts
// and ends (the end excludes the terminator). ok is false when the line does
// not exist.
func (d *Document) LineBounds(line int) (start, end int, ok bool) {
	if line < 0 || line >= len(d.starts) {
		return 0, 0, false
	}
	return d.starts[line], d.ends[line], true
}

// LineOf returns the 0-based line holding byte offset off (clamped to the
// text). An offset on a terminator belongs to the line the terminator ends.
func (d *Document) LineOf(off int) int {
	if off <= 0 {
		return 0
	}
	// The last line whose start is <= off.
	return sort.Search(len(d.starts), func(i int) bool { return d.starts[i] > off }) - 1
}

func (d *Document) column(line, col int, enc Encoding) (int, bool) {
	s := d.Line(line)
	if d.ascii[line] {
		if col > len(s) {
			return len(s), false
		}
		return col, true
	}
	return columnToByte(s, col, enc.orDefault())
}

func (d *Document) lineError(p Position) error {
	return &InputError{Err: ErrLineRange, Line: int(p.Line) + 1,
		msg: fmt.Sprintf("position %s: line %d is out of range: the document has %d lines (0-based 0..%d)",
			p, p.Line, len(d.starts), len(d.starts)-1)}
}

// Offset returns the byte offset of the LSP position p counted in enc, with
// the specification's leniency: a character past the end of the line means
// the end of the line, and a character inside a character snaps to its
// start. The position one line past the last line with character 0 is
// accepted as the end of the document, because servers send it for
// whole-document edits. Any other line outside the document is an error
// wrapping ErrLineRange.
func (d *Document) Offset(p Position, enc Encoding) (int, error) {
	if int64(p.Line) >= int64(len(d.starts)) {
		if int64(p.Line) == int64(len(d.starts)) && p.Character == 0 {
			return len(d.text), nil
		}
		return 0, d.lineError(p)
	}
	off, _ := d.column(int(p.Line), int(p.Character), enc)
	return d.starts[p.Line] + off, nil
}

// OffsetExact is Offset without leniency: a character past the end of the
// line or inside a character is an error wrapping ErrColumnRange.
func (d *Document) OffsetExact(p Position, enc Encoding) (int, error) {
	if int64(p.Line) >= int64(len(d.starts)) {
		if int64(p.Line) == int64(len(d.starts)) && p.Character == 0 {
			return len(d.text), nil
		}
		return 0, d.lineError(p)
	}
	off, exact := d.column(int(p.Line), int(p.Character), enc)
	if !exact {
		s := d.Line(int(p.Line))
		return 0, &InputError{Err: ErrColumnRange, Line: int(p.Line) + 1, Text: snippet(s, off),
			msg: fmt.Sprintf("position %s: character %d is not a character boundary of line %d, which is %d %s units long: %q",
				p, p.Character, p.Line, ColumnLen(s, enc), enc.orDefault(), snippet(s, off))}
	}
	return d.starts[p.Line] + off, nil
}

// PositionOf returns the LSP position, counted in enc, of byte offset off.
// Offsets outside the text clamp to its ends; an offset on a line
// terminator (including between "\r" and "\n") is the end of that line, and
// an offset inside a multi-byte character is the start of that character.
func (d *Document) PositionOf(off int, enc Encoding) Position {
	if off < 0 {
		off = 0
	}
	if off > len(d.text) {
		off = len(d.text)
	}
	line := d.LineOf(off)
	start, end := d.starts[line], d.ends[line]
	if off > end {
		off = end
	}
	var col int
	if d.ascii[line] {
		col = off - start
	} else {
		col = ByteToColumn(d.text[start:end], off-start, enc)
	}
	return Position{Line: uint32(line), Character: uint32(col)}
}

// Convert converts p from encoding from to encoding to, with Offset's
// leniency: the result always names a character boundary within the line.
func (d *Document) Convert(p Position, from, to Encoding) (Position, error) {
	if int64(p.Line) < int64(len(d.starts)) && d.ascii[p.Line] {
		// ASCII lines count the same in every encoding; only clamp.
		if n := d.ends[p.Line] - d.starts[p.Line]; int(p.Character) > n {
			p.Character = uint32(n)
		}
		return p, nil
	}
	off, err := d.Offset(p, from)
	if err != nil {
		return Position{}, err
	}
	return d.PositionOf(off, to), nil
}

// ConvertRange converts both ends of r as Convert does.
func (d *Document) ConvertRange(r Range, from, to Encoding) (Range, error) {
	s, err := d.Convert(r.Start, from, to)
	if err != nil {
		return Range{}, err
	}
	e, err := d.Convert(r.End, from, to)
	if err != nil {
		return Range{}, err
	}
	return Range{Start: s, End: e}, nil
}
