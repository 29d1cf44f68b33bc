package edit

import (
	"strings"
	"testing"
)

// TestURIsOnWindows: PathFromURI and URIFromPath read and write every
// Windows spelling of a file URI (windowsURIs), as acp-lsp built for
// Windows runs them.
func TestURIsOnWindows(t *testing.T) {
	for _, tc := range windowsURIs {
		got, err := PathFromURI(tc.uri)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("PathFromURI(%q) = %q, %v; want an error saying %q", tc.uri, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.path {
			t.Errorf("PathFromURI(%q) = %q, %v; want %q", tc.uri, got, err, tc.path)
			continue
		}
		if back := URIFromPath(got); back != tc.back {
			t.Errorf("URIFromPath(%q) = %q, want %q", got, back, tc.back)
		}
	}
}

// TestWithinOnWindows: drive letters and names compare without case, and
// another drive or share is never within a root.
func TestWithinOnWindows(t *testing.T) {
	for _, tc := range []struct {
		root, path string
		want       bool
	}{
		{`C:\w`, `C:\w\a.go`, true},
		{`C:\w`, `c:\W\a.go`, true},
		{`C:\w`, `D:\w\a.go`, false},
		{`C:\w`, `C:\wx\a.go`, false},
		{`\\server\share\w`, `\\server\share\w\a.go`, true},
		{`\\server\share\w`, `\\server\other\w\a.go`, false},
		{`C:\w`, `\\server\share\w\a.go`, false},
	} {
		if got := Within(tc.root, tc.path); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.root, tc.path, got, tc.want)
		}
	}
}
