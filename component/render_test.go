package component

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipSmallBudget: fitText keeps within the budget and ends with its
// note for every budget, including ones smaller than the note (it
// panicked below 80).
func TestClipSmallBudget(t *testing.T) {
	text := strings.Repeat("é", 200) // two bytes each: cuts must not split one
	for _, budget := range []int{1, 50, 80, 81, 100, 399, 1000} {
		s := &Session{cfg: &Config{Budget: budget}}
		got, _ := s.fitText(text)
		if budget >= len(text) {
			if got != text {
				t.Errorf("budget %d: cut %q", budget, got)
			}
			continue
		}
		if !strings.Contains(got, "note: cut at") || !utf8.ValidString(got) {
			t.Errorf("budget %d: %q", budget, got)
		}
		if kept := strings.Index(got, "\nnote:"); kept > max(budget-80, 0) {
			t.Errorf("budget %d: kept %d bytes", budget, kept)
		}
	}
}
