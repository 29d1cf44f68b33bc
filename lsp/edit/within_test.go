package edit

import "testing"

// TestWithin: a path is within a root by its name, never by a shared
// prefix of characters ("/wx" is not within "/w", "/w/..a" is).
func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		want       bool
	}{
		{"/w", "/w", true},
		{"/w", "/w/a.go", true},
		{"/w", "/w/..a/b.go", true},
		{"/w", "/wx/a.go", false},
		{"/w", "/", false},
		{"/w/a", "/w/b/a.go", false},
		{"/", "/etc", true},
	} {
		if got := Within(tc.root, tc.path); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.root, tc.path, got, tc.want)
		}
	}
}
