package position

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FromUser converts a 1-based line and a 1-based column counted in
// characters (Unicode code points, see the package comment) to an LSP
// position in enc. Column 1 is the first character; the column just after
// the last character (line length + 1) names the end of the line and is
// valid. Anything else is an *InputError that states the valid range and
// quotes the line.
func (d *Document) FromUser(line, column int, enc Encoding) (Position, error) {
	if err := d.checkUserLine(line); err != nil {
		return Position{}, err
	}
	s := d.Line(line - 1)
	n := utf8.RuneCountInString(s)
	if column < 1 || column > n+1 {
		// Quote the part of a long line the column was aiming at.
		focus, _ := ColumnToByte(s, column-1, UTF32)
		text := snippet(s, focus)
		return Position{}, &InputError{Err: ErrColumnRange, Line: line, Text: text,
			msg: fmt.Sprintf("column %d is out of range on line %d: the line has %d character%s (valid columns 1..%d): %q",
				column, line, n, plural(n), n+1, text)}
	}
	off, _ := ColumnToByte(s, column-1, UTF32)
	return Position{Line: uint32(line - 1), Character: uint32(ByteToColumn(s, off, enc))}, nil
}

// ToUser converts an LSP position counted in enc to a 1-based line and
// 1-based column counted in characters, for output. It is lenient as
// Offset is: a character past the end of the line gives the column after
// the last character.
func (d *Document) ToUser(p Position, enc Encoding) (line, column int, err error) {
	off, err := d.Offset(p, enc)
	if err != nil {
		return 0, 0, err
	}
	q := d.PositionOf(off, UTF32)
	return int(q.Line) + 1, int(q.Character) + 1, nil
}

func (d *Document) checkUserLine(line int) error {
	if line >= 1 && line <= len(d.starts) {
		return nil
	}
	h := d.HumanLineCount()
	if h == 0 {
		return &InputError{Err: ErrLineRange, Line: line,
			msg: fmt.Sprintf("line %d is out of range: the file is empty (only line 1 exists)", line)}
	}
	return &InputError{Err: ErrLineRange, Line: line,
		msg: fmt.Sprintf("line %d is out of range: the file has %d line%s (valid lines 1..%d)", line, h, plural(h), h)}
}

// ParseSymbol splits a symbol argument "name" or "name#N" (N >= 1, the N-th
// occurrence on the line) into its name and occurrence number (1 when
// absent). A '#' not followed by only digits is part of the name, so names
// such as "C#" or "#include" pass through whole.
func ParseSymbol(s string) (name string, n int, err error) {
	s = strings.TrimSpace(s)
	name, n = s, 1
	if i := strings.LastIndexByte(s, '#'); i > 0 && i < len(s)-1 {
		if k, convErr := strconv.Atoi(s[i+1:]); convErr == nil && isDigits(s[i+1:]) {
			name, n = s[:i], k
			if n < 1 {
				return "", 0, &InputError{Err: ErrSymbolSyntax,
					msg: fmt.Sprintf("symbol %q: occurrence numbers start at 1 (use %s#1 or just %s)", s, name, name)}
			}
		}
	}
	// Models sometimes pad or quote-space names; spaces never start or end
	// an identifier.
	name = strings.TrimSpace(name)
	if name == "" {
		return "", 0, &InputError{Err: ErrSymbolSyntax, msg: fmt.Sprintf("symbol %q: the name is empty", s)}
	}
	return name, n, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isIdent reports whether r can be part of an identifier. Letters, digits
// and '_' cover the identifiers of the languages acp-lsp serves; '$' is left
// out so that "foo" still matches at a boundary in PHP's "$foo". Combining
// marks count too: they belong to the letter before them ("cafe" plus
// U+0301 is one identifier, as are most Indic words, which end in vowel
// signs), so neither "cafe" nor a name ending in a mark matches inside a
// longer identifier.
func isIdent(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// Occurrences returns the byte offsets within line (text of one line) where
// name occurs, not overlapping, left to right. When at least one occurrence
// sits on identifier boundaries (the characters around it are not
// identifier characters, checked only on a side where name itself starts or
// ends with an identifier character), only those are returned and boundary
// is true; otherwise every substring occurrence is returned, so "add" finds
// "add" in "add(address)" once but still finds it in "addAll" when nothing
// better exists.
func Occurrences(line, name string) (offsets []int, boundary bool) {
	if name == "" {
		return nil, false
	}
	first, _ := utf8.DecodeRuneInString(name)
	last, _ := utf8.DecodeLastRuneInString(name)
	checkBefore, checkAfter := isIdent(first), isIdent(last)
	// A match must start and end between characters as the line decodes;
	// a name with a stray byte could otherwise match inside a character.
	var starts []bool
	if !isASCII(line) {
		starts = make([]bool, len(line)+1)
		for i := 0; i < len(line); {
			starts[i] = true
			_, size := utf8.DecodeRuneInString(line[i:])
			i += size
		}
		starts[len(line)] = true
	}
	var all, bounded []int
	for i := 0; i <= len(line)-len(name); {
		j := strings.Index(line[i:], name)
		if j < 0 {
			break
		}
		at := i + j
		if starts != nil && (!starts[at] || !starts[at+len(name)]) {
			i = at + 1
			continue
		}
		all = append(all, at)
		ok := true
		if checkBefore && at > 0 {
			r, _ := utf8.DecodeLastRuneInString(line[:at])
			ok = !isIdent(r)
		}
		if ok && checkAfter && at+len(name) < len(line) {
			r, _ := utf8.DecodeRuneInString(line[at+len(name):])
			ok = !isIdent(r)
		}
		if ok {
			bounded = append(bounded, at)
		}
		i = at + len(name)
	}
	if len(bounded) > 0 {
		return bounded, true
	}
	return all, false
}

// FromSymbol converts a 1-based line and a symbol argument ("name" or
// "name#N", see ParseSymbol and Occurrences) to the LSP position, in enc, of
// the start of the N-th occurrence of name on that line. Errors quote the
// line, list the occurrences found with their 1-based columns, and when the
// name is missing from the line name up to five nearby lines that hold it.
func (d *Document) FromSymbol(line int, symbol string, enc Encoding) (Position, error) {
	name, n, err := ParseSymbol(symbol)
	if err != nil {
		return Position{}, err
	}
	if err := d.checkUserLine(line); err != nil {
		return Position{}, err
	}
	s := d.Line(line - 1)
	offs, _ := Occurrences(s, name)
	if len(offs) == 0 {
		msg := fmt.Sprintf("symbol %q not found on line %d: %q", name, line, snippet(s, 0))
		if near := d.linesWith(name, line, 5); len(near) > 0 {
			msg += fmt.Sprintf("; it occurs on line%s %s", plural(len(near)), joinInts(near))
		}
		return Position{}, &InputError{Err: ErrSymbolNotFound, Line: line, Text: snippet(s, 0), msg: msg}
	}
	cols := make([]int, len(offs))
	for i, o := range offs {
		cols[i] = utf8.RuneCountInString(s[:o]) + 1
	}
	if n > len(offs) {
		return Position{}, &InputError{Err: ErrOccurrence, Line: line, Text: snippet(s, offs[0]), Columns: cols,
			msg: fmt.Sprintf("symbol %q: line %d has %d occurrence%s of %q (at column%s %s), not %d: %q",
				symbol, line, len(offs), plural(len(offs)), name, plural(len(offs)), joinInts(cols), n, snippet(s, offs[0]))}
	}
	return Position{Line: uint32(line - 1), Character: uint32(ByteToColumn(s, offs[n-1], enc))}, nil
}

// linesWith returns up to max 1-based line numbers nearest to around whose
// text holds name at an identifier boundary, in ascending order.
func (d *Document) linesWith(name string, around, max int) []int {
	var found []int
	for i := range d.starts {
		if i+1 == around {
			continue
		}
		s := d.Line(i)
		if !strings.Contains(s, name) {
			continue
		}
		if _, ok := Occurrences(s, name); ok {
			found = append(found, i+1)
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return absInt(found[a]-around) < absInt(found[b]-around) })
	if len(found) > max {
		found = found[:max]
	}
	sort.Ints(found)
	return found
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
