package edit

import (
	"strings"
	"testing"
)

// windowsURIs are the Windows spellings of file URIs and the paths they
// name: drive letters in either case, the colon percent-encoded
// (vscode-uri's "file:///c%3A/..."), UNC shares as a host or after four
// slashes. A drive letter is upper case in the path and in the URI made
// back from it, as filepath.EvalSymlinks writes it, so two spellings of
// one file are one key.
var windowsURIs = []struct{ uri, path, back, err string }{
	{uri: "file:///C:/w/a.go", path: `C:\w\a.go`, back: "file:///C:/w/a.go"},
	{uri: "file:///c:/w/a.go", path: `C:\w\a.go`, back: "file:///C:/w/a.go"},
	{uri: "file:///c%3A/w/a.go", path: `C:\w\a.go`, back: "file:///C:/w/a.go"},
	{uri: "file:///C%3a/w/a%20b.go", path: `C:\w\a b.go`, back: "file:///C:/w/a%20b.go"},
	{uri: "file://localhost/C:/w/x/../a.go", path: `C:\w\a.go`, back: "file:///C:/w/a.go"},
	{uri: "file:///C:/", path: `C:\`, back: "file:///C:/"},
	{uri: "file:///C:/w/a%3Fb%23c.go", path: `C:\w\a?b#c.go`, back: "file:///C:/w/a%3Fb%23c.go"},
	{uri: "file://server/share/w/a.go", path: `\\server\share\w\a.go`, back: "file://server/share/w/a.go"},
	{uri: "file:////server/share/w/a.go", path: `\\server\share\w\a.go`, back: "file://server/share/w/a.go"},
	{uri: "file://server/share", path: `\\server\share\`, back: "file://server/share/"},
	{uri: "file:///w/a.go", err: "not an absolute path"},
	{uri: "file:///C:a.go", err: "not an absolute path"},
	{uri: "file://server/", err: "not an absolute path"},
	{uri: "file:///C:/w/a?b.go", err: "query or fragment"},
	{uri: "http://server/C:/w", err: "only file://"},
}

// TestWindowsURIRules: the Windows rules, as pure string work, checked on
// every platform (the inner loop on Linux catches a mistake; Wine runs
// TestURIsOnWindows against the real thing).
func TestWindowsURIRules(t *testing.T) {
	for _, tc := range windowsURIs {
		got, err := pathFromURI(tc.uri, true)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("pathFromURI(%q) = %q, %v; want an error saying %q", tc.uri, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.path {
			t.Errorf("pathFromURI(%q) = %q, %v; want %q", tc.uri, got, err, tc.path)
			continue
		}
		if back := uriFromPath(got, true); back != tc.back {
			t.Errorf("uriFromPath(%q) = %q, want %q", got, back, tc.back)
		}
	}
}

// TestCleanWindows: cleanWindows agrees with filepath.Clean on Windows
// (the cases' wants are what it returns there), upper-casing the drive.
func TestCleanWindows(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`C:\w\..\a.go`, `C:\a.go`},
		{`c:/w//a/./b`, `C:\w\a\b`},
		{`C:\..`, `C:\`},
		{`\\server\share\w\..\..`, `\\server\share\`},
		{`//server/share/w/`, `\\server\share\w`},
		{`C:w`, ""},
		{`\w`, ""},
		{`\\server`, ""},
		{`\\?\C:\w`, ""},
	} {
		got, ok := cleanWindows(tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("cleanWindows(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzWindowsURI: any URI a Windows server sends either fails or names a
// clean absolute path whose URI names it again.
func FuzzWindowsURI(f *testing.F) {
	for _, tc := range windowsURIs {
		f.Add(tc.uri)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := pathFromURI(uri, true)
		if err != nil {
			return
		}
		if clean, ok := cleanWindows(p); !ok || clean != p {
			t.Fatalf("pathFromURI(%q) = %q, not clean and absolute (%q, %v)", uri, p, clean, ok)
		}
		back := uriFromPath(p, true)
		if again, err := pathFromURI(back, true); err != nil || again != p {
			t.Fatalf("pathFromURI(%q) = %q; its URI %q names %q (%v)", uri, p, back, again, err)
		}
	})
}
