package fakelsp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DiagnosticMessage is the message of the diagnostic the server reports for
// every line containing the word ERROR. Its range covers that word.
const DiagnosticMessage = "fakelsp: ERROR on this line"

// HoverPrefix starts the hover text; the word under the cursor follows.
const HoverPrefix = "fakelsp hover: "

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type diagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
}

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
func offset(enc, text string, p position) int {
	lines := splitLines(text)
	if p.Line >= len(lines) {
		return len(text)
	}
	off := 0
	for _, l := range lines[:p.Line] {
		off += len(l) + 1
	}
	return off + byteIndex(enc, lines[p.Line], p.Character)
}

func diagnosticsFor(enc, text string) []diagnostic {
	out := []diagnostic{}
	for i, line := range splitLines(text) {
		b := strings.Index(line, "ERROR")
		if b < 0 {
			continue
		}
		start := units(enc, line[:b])
		out = append(out, diagnostic{
			Range:    lspRange{position{i, start}, position{i, start + len("ERROR")}},
			Severity: 1,
			Source:   "fakelsp",
			Message:  DiagnosticMessage,
		})
	}
	return out
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordAt returns the identifier at p and its range, or "" if none.
func wordAt(enc, text string, p position) (string, lspRange) {
	lines := splitLines(text)
	if p.Line < 0 || p.Line >= len(lines) {
		return "", lspRange{}
	}
	line := lines[p.Line]
	i := byteIndex(enc, line, p.Character)
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
		return "", lspRange{}
	}
	return line[start:end], lspRange{
		position{p.Line, units(enc, line[:start])},
		position{p.Line, units(enc, line[:end])},
	}
}

// funcDecl finds "func NAME" lines: the fake's notion of a declaration.
func funcDecls(enc, text string) (names []string, ranges []lspRange, sel []lspRange) {
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
		ranges = append(ranges, lspRange{position{i, 0}, position{i, units(enc, line)}})
		sel = append(sel, lspRange{position{i, units(enc, line[:b])}, position{i, units(enc, line[:b+end])}})
	}
	return names, ranges, sel
}
