package fakelsp

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// DiagnosticMessage is the message of the diagnostic the server reports for
// every line containing the word ERROR. Its range covers that word.
const DiagnosticMessage = "fakelsp: ERROR on this line"

// HoverPrefix starts the hover text; the word under the cursor follows.
const HoverPrefix = "fakelsp hover: "

type document struct {
	uri     string
	version int
	text    string
}

func splitLines(text string) []string { return strings.Split(text, "\n") }

// units counts s in the encoding's code units.
func units(enc, s string) int {
	switch enc {
	case "utf-8":
		return len(s)
	case "utf-32":
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// byteIndex turns a column in the encoding's units into a byte index in
// line, clamped to the line (servers clamp too).
func byteIndex(enc, line string, col int) int {
	if enc == "utf-8" {
		return min(max(col, 0), len(line))
	}
	n := 0
	for i, r := range line {
		if n >= col {
			return i
		}
		if enc == "utf-16" && r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return len(line)
}

// offset turns a position into a byte offset in text.
func offset(enc, text string, p position.Position) int {
	lines := splitLines(text)
	if int(p.Line) >= len(lines) {
		return len(text)
	}
	off := 0
	for _, l := range lines[:p.Line] {
		off += len(l) + 1
	}
	return off + byteIndex(enc, lines[p.Line], int(p.Character))
}

// pos is the position at 0-based line and column col (in the encoding's
// units).
func pos(line, col int) position.Position {
	return position.Position{Line: uint32(line), Character: uint32(col)}
}

func diagnosticsFor(enc, text string) []wire.Diagnostic {
	out := []wire.Diagnostic{}
	for i, line := range splitLines(text) {
		b := strings.Index(line, "ERROR")
		if b < 0 {
			continue
		}
		start := units(enc, line[:b])
		out = append(out, wire.Diagnostic{
			Range:    position.Range{Start: pos(i, start), End: pos(i, start+len("ERROR"))},
			Severity: 1,
			Source:   "fakelsp",
			Message:  DiagnosticMessage,
		})
	}
	return out
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordAt returns the identifier at p and its range, or "" if none.
func wordAt(enc, text string, p position.Position) (string, position.Range) {
	lines := splitLines(text)
	if int(p.Line) >= len(lines) {
		return "", position.Range{}
	}
	line := lines[p.Line]
	i := byteIndex(enc, line, int(p.Character))
	start, end := i, i
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(line[:start])
		if !isWord(r) {
			break
		}
		start -= n
	}
	for end < len(line) {
		r, n := utf8.DecodeRuneInString(line[end:])
		if !isWord(r) {
			break
		}
		end += n
	}
	if start == end {
		return "", position.Range{}
	}
	return line[start:end], position.Range{
		Start: pos(int(p.Line), units(enc, line[:start])),
		End:   pos(int(p.Line), units(enc, line[:end])),
	}
}

// funcDecl finds "func NAME" lines: the fake's notion of a declaration.
func funcDecls(enc, text string) (names []string, ranges []position.Range, sel []position.Range) {
	for i, line := range splitLines(text) {
		rest, ok := strings.CutPrefix(line, "func ")
		if !ok {
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return !isWord(r) })
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			continue
		}
		b := len("func ")
		names = append(names, rest[:end])
		ranges = append(ranges, position.Range{Start: pos(i, 0), End: pos(i, units(enc, line))})
		sel = append(sel, position.Range{Start: pos(i, units(enc, line[:b])), End: pos(i, units(enc, line[:b+end]))})
	}
	return names, ranges, sel
}
