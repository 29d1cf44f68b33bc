package editorconfig

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExpr bounds the regular expression of one glob: matching takes time
// in proportion to its size, and numeric ranges make it grow.
const maxExpr = 64 << 10

// compileGlob translates a section name to a regular expression over the
// slash-separated path of a file relative to the .editorconfig's folder;
// nil matches nothing. Go's regexp runs in time linear in the path, where
// a backtracking glob matcher can take exponential time on a pattern
// such as *a*a*a*a*b, and these patterns come from any file on disk.
func compileGlob(glob string) *regexp.Regexp {
	if glob == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	if strings.Contains(glob, "/") {
		// Anchored at the .editorconfig's folder; a leading slash only
		// says so.
		glob = strings.TrimPrefix(glob, "/")
		if rest, ok := strings.CutPrefix(glob, "**/"); ok {
			b.WriteString("(?:.*/)?")
			glob = rest
		}
	} else {
		// A bare name matches at any depth below the file.
		b.WriteString("(?:.*/)?")
	}
	t := newTranslator(glob)
	t.run(0, len(glob))
	if t.b.Len() > maxExpr {
		return nil
	}
	b.WriteString(t.b.String())
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		// Nested too deep, or not UTF-8: no file can be meant.
		return nil
	}
	return re
}

// translator writes the regular expression of a glob. Its work is linear
// in the glob's length, whatever the glob: brace pairs are matched once
// up front, and a bracket that opens no class tells the ones after it.
type translator struct {
	s string
	b strings.Builder
	// closeAt[i] is the index of the brace closing the one at s[i], -1
	// when it has none (or s[i] is no brace).
	closeAt []int
	// noClass: no bracket before this index opens a class, since a scan
	// from an earlier one ran there without finding its end.
	noClass int
}

func newTranslator(s string) *translator {
	t := &translator{s: s, closeAt: make([]int, len(s))}
	var open []int
	for i := 0; i < len(s); i++ {
		t.closeAt[i] = -1
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				t.closeAt[i] = -1
			}
		case '{':
			open = append(open, i)
		case '}':
			if n := len(open); n > 0 {
				t.closeAt[open[n-1]] = i
				open = open[:n-1]
			}
		}
	}
	return t
}

// run translates s[lo:hi].
func (t *translator) run(lo, hi int) {
	s, b := t.s, &t.b
	for i := lo; i < hi; {
		switch s[i] {
		case '\\':
			if i+1 == hi {
				b.WriteString(`\\`)
				i++
				continue
			}
			_, n := utf8.DecodeRuneInString(s[i+1 : hi])
			b.WriteString(regexp.QuoteMeta(s[i+1 : i+1+n]))
			i += 1 + n
		case '*':
			j := i
			for j < hi && s[j] == '*' {
				j++
			}
			if j-i >= 2 {
				b.WriteString(".*")
			} else {
				b.WriteString("[^/]*")
			}
			i = j
		case '/':
			// a/**/b also matches a/b: ** stands for any number of
			// folders there, none included.
			j := i + 1
			for j < hi && s[j] == '*' {
				j++
			}
			if j-i >= 3 && j < hi && s[j] == '/' {
				b.WriteString("(?:/|/.*/)")
				i = j + 1
				continue
			}
			b.WriteByte('/')
			i++
		case '?':
			b.WriteString("[^/]")
			i++
		case '[':
			if i >= t.noClass {
				if n, ok := t.bracket(i, hi); ok {
					i += n
					continue
				}
			}
			b.WriteString(`\[`)
			i++
		case '{':
			if j := t.closeAt[i]; j > 0 && j < hi {
				if from, to, ok := numRange(s[i+1 : j]); ok {
					b.WriteString(rangeRegexp(from, to))
					i = j + 1
					continue
				}
				if parts := t.commas(i+1, j); len(parts) > 0 {
					b.WriteString("(?:")
					start := i + 1
					for _, c := range append(parts, j) {
						t.run(start, c)
						if c != j {
							b.WriteByte('|')
						}
						start = c + 1
					}
					b.WriteByte(')')
					i = j + 1
					continue
				}
			}
			// No closing brace, or no comma: a brace of the name,
			// as in the spec's {single}.
			b.WriteString(`\{`)
			i++
		default:
			_, n := utf8.DecodeRuneInString(s[i:hi])
			b.WriteString(regexp.QuoteMeta(s[i : i+n]))
			i += n
		}
	}
}

// commas returns the indexes of the commas in s[lo:hi] outside nested
// braces and escapes.
func (t *translator) commas(lo, hi int) []int {
	var at []int
	for j := lo; j < hi; j++ {
		switch t.s[j] {
		case '\\':
			j++
		case '{':
			if c := t.closeAt[j]; c > 0 {
				j = c
			}
		case ',':
			at = append(at, j)
		}
	}
	return at
}

// bracket writes the [seq] or [!seq] at s[at:hi] as a class, returning the
// bytes it takes; ok is false when it is no class: unclosed, or holding a
// slash, which no glob matches (the spec's test suite reads such a
// bracket as a character of the name).
func (t *translator) bracket(at, hi int) (n int, ok bool) {
	s := t.s[:hi]
	i := at + 1
	neg := i < len(s) && s[i] == '!'
	if neg {
		i++
	}
	type span struct{ lo, hi rune }
	var spans []span
	// A ] first is a member, as in POSIX, so [!]] and []] work.
	for first := true; ; first = false {
		if i >= len(s) {
			t.noClass = i
			return 0, false
		}
		if s[i] == ']' && !first {
			break
		}
		lo, k := escRune(s, i)
		if lo == '/' {
			t.noClass = i
			return 0, false
		}
		i += k
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			r, k := escRune(s, i+1)
			if r == '/' {
				t.noClass = i + 1
				return 0, false
			}
			hi = r
			i += 1 + k
		}
		spans = append(spans, span{lo, hi})
	}
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteString("^/")
	}
	empty := true
	for _, sp := range spans {
		if sp.lo > sp.hi {
			continue // [z-a] holds nothing
		}
		empty = false
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, sp.lo, sp.hi)
	}
	b.WriteByte(']')
	if empty && !neg {
		t.b.WriteString(`[^\x00-\x{10ffff}]`)
	} else {
		t.b.WriteString(b.String())
	}
	return i + 1 - at, true
}

// escRune decodes the rune at s[i], after a backslash escaping it.
func escRune(s string, i int) (rune, int) {
	if s[i] == '\\' && i+1 < len(s) {
		r, n := utf8.DecodeRuneInString(s[i+1:])
		return r, n + 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// numRange parses the inside of {n1..n2}. The spec calls n1 > n2
// invalid: such braces, like ones holding letters, are read as they are
// written.
func numRange(s string) (lo, hi int64, ok bool) {
	if len(s) > 42 { // two int64s and ".."
		return 0, 0, false
	}
	a, z, found := strings.Cut(s, "..")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseInt(a, 10, 64)
	hi, err2 := strconv.ParseInt(z, 10, 64)
	if err1 != nil || err2 != nil || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// rangeRegexp matches the integers lo..hi written the plain way: no
// leading zeros or plus sign, which no one writes in a file name meant
// by {1..10}.
func rangeRegexp(lo, hi int64) string {
	var alts []string
	if lo < 0 {
		// The negative part, as a minus and the magnitudes.
		top := magnitude(lo)
		var bottom uint64 = 1
		if hi < 0 {
			bottom = magnitude(hi)
		}
		alts = append(alts, "-(?:"+strings.Join(uintRange(bottom, top), "|")+")")
	}
	if hi >= 0 {
		alts = append(alts, uintRange(uint64(max(lo, 0)), uint64(hi))...)
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// magnitude is -x for a negative x, math.MinInt64 included.
func magnitude(x int64) uint64 { return uint64(-(x + 1)) + 1 }

// uintRange returns alternatives matching lo..hi, one or more for each
// count of digits.
func uintRange(lo, hi uint64) []string {
	var alts []string
	for {
		a := strconv.FormatUint(lo, 10)
		end := hi
		if len(a) < len(strconv.FormatUint(hi, 10)) {
			end = pow10(len(a)) - 1
		}
		alts = append(alts, sameLength(a, strconv.FormatUint(end, 10))...)
		if end == hi {
			return alts
		}
		lo = end + 1
	}
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// sameLength returns alternatives matching the digit strings a..b, which
// have the same length: a prefix they share, then the lowest first digit
// with the rest of a..9…9, the middle first digits with any rest, and the
// highest first digit with 0…0..the rest of b.
func sameLength(a, b string) []string {
	if a == b {
		return []string{a}
	}
	if a[0] == b[0] {
		var alts []string
		for _, r := range sameLength(a[1:], b[1:]) {
			alts = append(alts, a[:1]+r)
		}
		return alts
	}
	rest := len(a) - 1
	zeros, nines := strings.Repeat("0", rest), strings.Repeat("9", rest)
	var alts []string
	first, last := a[0], b[0]
	if a[1:] != zeros {
		for _, r := range sameLength(a[1:], nines) {
			alts = append(alts, a[:1]+r)
		}
		first++
	}
	var tail []string
	if b[1:] != nines {
		for _, r := range sameLength(zeros, b[1:]) {
			tail = append(tail, b[:1]+r)
		}
		last--
	}
	if first <= last {
		mid := fmt.Sprintf("[%c-%c]", first, last)
		if rest > 0 {
			mid += fmt.Sprintf("[0-9]{%d}", rest)
		}
		alts = append(alts, mid)
	}
	return append(alts, tail...)
}
