package component

import "testing"

// TestNormalizeURIOnWindows: every spelling servers use for one Windows
// file (drive letter case, a percent-encoded colon, a UNC share as host or
// path) is one cache key.
func TestNormalizeURIOnWindows(t *testing.T) {
	for _, group := range [][]string{
		{"file:///C:/w/a.go", "file:///c:/w/a.go", "file:///c%3A/w/a.go", "file:///C:/w/x/../a.go"},
		{"file://server/share/a.go", "file:////server/share/a.go"},
	} {
		want := NormalizeURI(group[0])
		for _, uri := range group[1:] {
			if got := NormalizeURI(uri); got != want {
				t.Errorf("NormalizeURI(%q) = %q, NormalizeURI(%q) = %q: want one key", uri, got, group[0], want)
			}
		}
	}
}
