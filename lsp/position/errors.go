package position

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentinel errors, matched with errors.Is. The errors returned by this
// package wrap one of them in an *InputError whose message tells a model what
// the file or line actually holds.
var (
	// ErrEncoding is an unknown position encoding name.
	ErrEncoding = errors.New("unknown position encoding")
	// ErrLineRange is a line outside the file.
	ErrLineRange = errors.New("line out of range")
	// ErrColumnRange is a column outside the line, or one that does not
	// fall on a character boundary when exactness is required.
	ErrColumnRange = errors.New("column out of range")
	// ErrSymbolNotFound is a symbol that does not occur on the line.
	ErrSymbolNotFound = errors.New("symbol not found")
	// ErrOccurrence is a name#N whose N exceeds the occurrences on the line.
	ErrOccurrence = errors.New("symbol occurrence out of range")
	// ErrSymbolSyntax is a malformed symbol argument (empty, or #0).
	ErrSymbolSyntax = errors.New("bad symbol")
)

// InputError is a position that does not fit the file. Its message is
// written for the model or person who gave the position: it names the valid
// range and quotes the line.
type InputError struct {
	// Err is one of the package's sentinel errors.
	Err error
	// Line is the 1-based line the position named (0 when not applicable).
	Line int
	// Text is the line's text, trimmed and shortened to snippetMax
	// characters (empty when the line does not exist).
	Text string
	// Columns are the 1-based columns (in characters) of the occurrences
	// found, for symbol errors.
	Columns []int
	msg     string
}

// Error returns the model-readable message.
func (e *InputError) Error() string { return e.msg }

// Unwrap returns the sentinel error.
func (e *InputError) Unwrap() error { return e.Err }

// snippetMax bounds quoted line text so an error about a minified file stays
// small.
const snippetMax = 120

// snippet trims line and shortens it to snippetMax characters, keeping the
// part around byte offset focus visible when the line is long.
func snippet(line string, focus int) string {
	// Trim only leading/trailing whitespace; keep the inner text as is.
	lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
	s := strings.TrimFunc(line, unicode.IsSpace)
	focus -= lead
	if utf8.RuneCountInString(s) <= snippetMax {
		return s
	}
	if focus < 0 {
		focus = 0
	}
	if focus > len(s) {
		focus = len(s)
	}
	// Take up to snippetMax/2 characters before focus and the rest after.
	start := focus
	for n := 0; start > 0 && n < snippetMax/2; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	end := start
	for n := 0; end < len(s) && n < snippetMax; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	out := s[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
