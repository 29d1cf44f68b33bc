package edit

import (
	"errors"
	"io/fs"
	"testing"
)

// TestInRootCaseInsensitive: on a file system that compares names without
// case (macOS' default volumes) a path that names the root in another
// case (or, on APFS, another Unicode normalization) is inside it, and is
// answered in the root's spelling; a link is followed whatever the case
// it is named in, and a name that differs in case on a file system that
// tells names apart by it is another folder.
func TestInRootCaseInsensitive(t *testing.T) {
	entries := map[string]string{
		"/Users/a/w/sub/a.go":     "file",
		"/Users/a/w/out":          "link /etc",
		"/Users/a/w/in":           "link /Users/a/w/sub",
		"/Users/a/w/UP":           "link ../W2",
		"/Users/a/w2/b.go":        "file",
		"/Users/a/wx/c.go":        "file",
		"/Users/a/alias":          "link w",
		"/etc/passwd":             "file",
		"/Users/a/caf\u00e9/d.go": "file",
	}
	folded := newMemFS(t, true, entries)
	cased := newMemFS(t, false, entries)
	cased.add("/Users/a/W", fs.ModeDir, "") // another folder, spelled W
	cased.add("/Users/a/W/a.go", 0, "")
	for _, tc := range []struct {
		name       string
		fsys       *memFS
		root, path string
		want       string // "" for outside
	}{
		{"same spelling", folded, "/Users/a/w", "/Users/a/w/sub/a.go", "/Users/a/w/sub/a.go"},
		{"root in another case", folded, "/Users/a/w", "/users/A/W/sub/a.go", "/Users/a/w/sub/a.go"},
		{"root itself", folded, "/Users/a/w", "/USERS/A/W", "/Users/a/w"},
		{"missing tail", folded, "/Users/a/w", "/Users/a/W/new/file.go", "/Users/a/w/new/file.go"},
		{"the root spelled otherwise", folded, "/users/a/W", "/Users/a/w/sub/a.go", "/users/a/W/sub/a.go"},
		{"names below the root keep theirs", folded, "/Users/a/w", "/Users/a/W/SUB/a.go", "/Users/a/w/SUB/a.go"},
		{"link out spelled in another case", folded, "/Users/a/w", "/Users/a/W/OUT/passwd", ""},
		{"link out, missing tail", folded, "/Users/a/w", "/Users/a/w/Out/new.go", ""},
		{"link in spelled in another case", folded, "/Users/a/w", "/Users/a/W/IN/a.go", "/Users/a/w/sub/a.go"},
		{"relative link to a sibling", folded, "/Users/a/w", "/Users/a/w/up/b.go", ""},
		{"a sibling sharing the prefix", folded, "/Users/a/w", "/Users/a/WX/c.go", ""},
		{"a sibling in another case", folded, "/Users/a/w", "/Users/a/W2/b.go", ""},
		{"above the root", folded, "/Users/a/w", "/users/a", ""},
		{"an alias of the root", folded, "/Users/a/w", "/Users/a/ALIAS/sub/a.go", "/Users/a/w/sub/a.go"},
		{"missing folder in another case", folded, "/Users/a/w", "/Users/B/w/a.go", ""},
		{"root in another normalization", folded, "/Users/a/caf\u00e9", "/Users/a/cafe\u0301/d.go", "/Users/a/caf\u00e9/d.go"},
		{"case-sensitive: W is another folder", cased, "/Users/a/w", "/Users/a/W/a.go", ""},
		{"case-sensitive: a missing W", cased, "/Users/a/w", "/users/a/w/sub/a.go", ""},
		{"case-sensitive: same spelling", cased, "/Users/a/w", "/Users/a/w/sub/a.go", "/Users/a/w/sub/a.go"},
	} {
		got, err := inRoot(tc.fsys, tc.root, tc.path)
		if tc.want == "" {
			if !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("%s: inRoot(%q, %q) = %q, %v; want %v", tc.name, tc.root, tc.path, got, err, ErrOutsideRoot)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: inRoot(%q, %q) = %q, %v; want %q", tc.name, tc.root, tc.path, got, err, tc.want)
		}
	}
}
