package position

import "testing"

// TestOccurrencesCombiningMarks checks identifier boundaries around
// combining marks: a mark belongs to the letter before it, so an identifier
// that continues with (or ends in) a mark is one identifier, as in every
// language whose identifiers follow Unicode's ID_Continue.
func TestOccurrencesCombiningMarks(t *testing.T) {
	for _, tc := range []struct {
		line, name string
		want       []int
		boundary   bool
	}{
		// "cafe" + U+0301 is "café": "cafe" must not match its start.
		{"cafe\u0301 := cafe", "cafe", []int{10}, true},
		// The name ends in U+093F (a spacing mark): the after-check
		// still applies, so the start of "गतिविधि" is not a match.
		{"गतिविधि := गति", "गति", []int{25}, true},
		// A mark before the name joins it to the previous identifier.
		{"e\u0301x x", "x", []int{5}, true},
		// Marks alone do not make a match fail when nothing better exists.
		{"cafe\u0301", "cafe", []int{0}, false},
	} {
		got, b := Occurrences(tc.line, tc.name)
		if b != tc.boundary || !equalInts(got, tc.want) {
			t.Errorf("Occurrences(%q, %q) = %v, %v; want %v, %v", tc.line, tc.name, got, b, tc.want, tc.boundary)
		}
	}
}

func TestFromSymbolCombiningMarks(t *testing.T) {
	d := NewDocumentString("x := गतिविधि + गति\n")
	// "x := " is 5 characters, "गतिविधि" 7 and " + " 3: the second
	// identifier starts at character 15 (0-based).
	got, err := d.FromSymbol(1, "गति", UTF32)
	if want := (Position{0, 15}); err != nil || got != want {
		t.Errorf("FromSymbol(1, %q) = %v, %v; want %v", "गति", got, err, want)
	}
}
