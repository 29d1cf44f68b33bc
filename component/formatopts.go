package component

import (
	"cmp"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/editorconfig"
)

// formattingOptions returns the FormattingOptions that format sends for the
// file at path. Editors send the user's settings; acp-lsp has none, and
// servers that honour the options (typescript-language-server among
// them) re-indent the whole file to whatever tabSize says. So it sends
// the project's settings: its .editorconfig, and what that leaves out
// read from the file's own indentation.
func (s *Session) formattingOptions(path string) map[string]any {
	ec, err := editorconfig.Resolve(path)
	if err != nil {
		// The properties of the files that could be read still hold.
		s.c.log.Warn("format: .editorconfig", "file", path, "err", err)
	}
	return formatOptions(ec, func() string {
		doc, err := s.readDoc(path)
		if err != nil {
			return ""
		}
		return doc.Text()
	})
}

// formatOptions builds FormattingOptions from the .editorconfig properties
// ec, falling back on the indentation of the file's text (read only when
// ec does not settle it), then on 4 spaces. The optional fields are set
// only when ec gives them: an absent field leaves the server's default,
// where false would ask for the opposite.
func formatOptions(ec *editorconfig.Properties, text func() string) map[string]any {
	guess := sync.OnceValues(func() (string, int) { return guessIndent(text()) })
	style := ec.IndentStyle
	if style == "" {
		style, _ = guess()
	}
	var size int
	if style == "tab" {
		// A tab's width: the text cannot tell it.
		size = cmp.Or(ec.TabWidth, ec.IndentSize, 4)
	} else {
		size = ec.IndentSize
		if size == 0 {
			_, size = guess()
		}
		size = cmp.Or(size, ec.TabWidth, 4)
	}
	opts := map[string]any{"tabSize": size, "insertSpaces": style != "tab"}
	if b := ec.TrimTrailingWhitespace; b != nil {
		opts["trimTrailingWhitespace"] = *b
	}
	if b := ec.InsertFinalNewline; b != nil {
		opts["insertFinalNewline"] = *b
	}
	return opts
}

// guessLines bounds the lines guessIndent reads: the first few thousand
// lines tell as well as all of a generated file's.
const guessLines = 10000

// guessIndent reads a file's indentation: style is "tab" or "space" by
// what more indented lines start with, step the most common increase of
// leading spaces from one line to the next (1 to 8; the smaller on a tie).
// Either is zero when the text gives no evidence. Blank lines say
// nothing, and lines starting with * continue a block comment, aligned
// one column past its opening.
func guessIndent(text string) (style string, step int) {
	var tabs, spaces int
	var steps [9]int
	prev := -1 // leading spaces of the last line indented with spaces alone
	for n := 0; text != "" && n < guessLines; n++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		body := strings.TrimLeft(line, " \t")
		if strings.TrimSpace(body) == "" || body[0] == '*' {
			continue
		}
		lead := line[:len(line)-len(body)]
		switch {
		case lead == "":
		case lead[0] == '\t':
			tabs++
		default:
			spaces++
		}
		if strings.IndexByte(lead, '\t') >= 0 {
			prev = -1
			continue
		}
		if d := len(lead) - prev; prev >= 0 && d >= 1 && d < len(steps) {
			steps[d]++
		}
		prev = len(lead)
	}
	switch {
	case tabs > spaces:
		style = "tab"
	case spaces > tabs:
		style = "space"
	}
	for d := 1; d < len(steps); d++ {
		if steps[d] > steps[step] {
			step = d
		}
	}
	return style, step
}
