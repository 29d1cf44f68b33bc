package lsp

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// editMap relates a file's content before an edit to its content after
// it: the changed spans of a diff of the two (lines, then the words of
// each changed run of lines), however the edit was given (text edits or a
// whole new content). A nil editMap is a file the edit does not change.
type editMap struct {
	before, after *position.Document
	spans         []span // sorted, disjoint
}

// span is one change: before[a0:a1] became after[b0:b1] (byte offsets).
type span struct{ a0, a1, b0, b1 int }

// replacements are the words an edit replaced by other words, old → new
// (a rename's Foo → Bar), over every file of the edit.
type replacements map[[2]string]bool

// maxWordDiff bounds the words of a changed run of lines compared word by
// word: a longer run is one change, its words replaced by none.
const maxWordDiff = 20000

// newEditMap diffs before and after, adding the words replaced one for
// one to reps. A changed run of as many lines after as before (a rename's,
// however many lines it touches) is compared line by line.
func newEditMap(before, after string, reps replacements) *editMap {
	m := &editMap{before: position.NewDocumentString(before), after: position.NewDocumentString(after)}
	la, lb := slices.Collect(strings.Lines(before)), slices.Collect(strings.Lines(after))
	offA, offB := prefixLens(la), prefixLens(lb)
	for _, h := range edit.Hunks(la, lb) {
		if h.NA == h.NB {
			for k := range h.NA {
				i, j := h.A+k, h.B+k
				m.addWords(offA[i], offB[j], la[i], lb[j], reps)
			}
			continue
		}
		a0, a1 := offA[h.A], offA[h.A+h.NA]
		b0, b1 := offB[h.B], offB[h.B+h.NB]
		m.addWords(a0, b0, before[a0:a1], after[b0:b1], reps)
	}
	return m
}

// addWords adds the changes of a word diff of a (at a0 before the edit)
// and b (at b0 after it), and the words replaced one for one to reps.
func (m *editMap) addWords(a0, b0 int, a, b string, reps replacements) {
	if a == b {
		return
	}
	wa, wb := words(a), words(b)
	if len(wa)+len(wb) > maxWordDiff {
		m.spans = append(m.spans, span{a0, a0 + len(a), b0, b0 + len(b)})
		return
	}
	pa, pb := prefixLens(wa), prefixLens(wb)
	for _, w := range edit.Hunks(wa, wb) {
		m.spans = append(m.spans, span{a0 + pa[w.A], a0 + pa[w.A+w.NA], b0 + pb[w.B], b0 + pb[w.B+w.NB]})
		if w.NA != w.NB {
			continue
		}
		for k := range w.NA {
			o, n := wa[w.A+k], wb[w.B+k]
			if isWord(o) && isWord(n) {
				reps[[2]string{o, n}] = true
			}
		}
	}
}

// back maps an offset in the content after the edit to the one before:
// unchanged text to itself, the start of a change to its start and
// anything else inside it to its end.
func (m *editMap) back(off int) int {
	d := 0
	for _, s := range m.spans {
		switch {
		case off < s.b0:
			return off + d
		case off == s.b0:
			return s.a0
		case off <= s.b1:
			return s.a1
		}
		d = s.a1 - s.b1
	}
	return off + d
}

// place is where a diagnostic sits, as byte offsets in the content before
// the edit; ok is false when its range is not in the document.
func (m *editMap) place(r position.Range, after bool) (start, end int, ok bool) {
	doc := m.before
	if after {
		doc = m.after
	}
	s, err1 := doc.Offset(r.Start, position.UTF16)
	e, err2 := doc.Offset(r.End, position.UTF16)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if after {
		s, e = m.back(s), m.back(e)
	}
	return s, e, true
}

// diagMatch returns the diagnostics after an edit not matched by one
// before (added) and those before not matched by one after (removed), as
// JSON arrays. A diagnostic after matches one before with the same
// severity, code and source when
//  1. it sits at the same place once mapped back through the edit (m;
//     nil: the file did not change) and its message is the same, or the
//     same once the edit's word replacements (reps) are applied to the
//     old one: an error that names a renamed symbol is the error it was;
//  2. failing that, its message is the same wherever it sits (the edit
//     moved it in a way the diff cannot follow).
//
// So a new error at the place of an old one is added unless its message
// is the old one's, or the old one's with the edit's own replacements.
func diagMatch(before, after json.RawMessage, m *editMap, reps replacements) (added, removed json.RawMessage) {
	type diag struct {
		raw      json.RawMessage
		key      diagKey
		matched  bool
		at       [4]int // start and end: line and character, or offsets
		hasPlace bool
	}
	parse := func(raw json.RawMessage, isAfter bool) []*diag {
		var rs []json.RawMessage
		_ = decode(raw, &rs)
		out := make([]*diag, 0, len(rs))
		for _, r := range rs {
			var d struct {
				Range    position.Range  `json:"range"`
				Severity int             `json:"severity"`
				Code     json.RawMessage `json:"code"`
				Source   string          `json:"source"`
				Message  string          `json:"message"`
			}
			_ = decode(r, &d)
			x := &diag{raw: r, key: diagKey{d.Severity, string(d.Code), d.Source, d.Message}}
			if m == nil {
				x.at, x.hasPlace = [4]int{int(d.Range.Start.Line), int(d.Range.Start.Character), int(d.Range.End.Line), int(d.Range.End.Character)}, true
			} else {
				s, e, ok := m.place(d.Range, isAfter)
				x.at, x.hasPlace = [4]int{s, 0, e, 0}, ok
			}
			out = append(out, x)
		}
		return out
	}
	bs, as := parse(before, false), parse(after, true)
	pass := func(ok func(a, b *diag) bool) {
		for _, a := range as {
			if a.matched {
				continue
			}
			for _, b := range bs {
				if !b.matched && ok(a, b) {
					a.matched, b.matched = true, true
					break
				}
			}
		}
	}
	samePlace := func(a, b *diag) bool {
		return a.hasPlace && b.hasPlace && a.at == b.at
	}
	sameKind := func(a, b *diag) bool {
		return a.key.severity == b.key.severity && a.key.code == b.key.code && a.key.source == b.key.source
	}
	pass(func(a, b *diag) bool { return a.key == b.key && samePlace(a, b) })
	pass(func(a, b *diag) bool {
		return sameKind(a, b) && samePlace(a, b) && sameModulo(b.key.message, a.key.message, reps)
	})
	pass(func(a, b *diag) bool { return a.key == b.key })
	left := func(ds []*diag) json.RawMessage {
		out := []json.RawMessage{}
		for _, d := range ds {
			if !d.matched {
				out = append(out, d.raw)
			}
		}
		raw, _ := encode(out)
		return raw
	}
	return left(as), left(bs)
}

// sameModulo reports whether message after is message before with some
// of its words replaced as the edit replaced them (reps).
func sameModulo(before, after string, reps replacements) bool {
	if before == after {
		return true
	}
	if len(reps) == 0 {
		return false
	}
	wb, wa := words(before), words(after)
	if len(wb) != len(wa) {
		return false
	}
	for i := range wb {
		if wb[i] != wa[i] && !reps[[2]string{wb[i], wa[i]}] {
			return false
		}
	}
	return true
}

// words splits s into words (runs of letters, digits and '_'), runs of
// white space and single other characters; joined they give s back.
func words(s string) []string {
	var out []string
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		class := runeClass(r)
		if class != 0 {
			for n < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[n:])
				if runeClass(r2) != class {
					break
				}
				n += n2
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// runeClass is 1 for word characters, 2 for white space, 0 otherwise.
func runeClass(r rune) int {
	switch {
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 0
}

func isWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return runeClass(r) == 1
}

// prefixLens returns the offset of every element of parts in their
// concatenation, and its length last.
func prefixLens(parts []string) []int {
	out := make([]int, len(parts)+1)
	for i, p := range parts {
		out[i+1] = out[i] + len(p)
	}
	return out
}
