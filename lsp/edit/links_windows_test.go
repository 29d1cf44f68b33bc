package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalLinksOnWindows: on Windows EvalLinks walks a path itself (to
// follow junctions, which EvalSymlinks leaves) and then spells it as
// EvalSymlinks does; where there is no junction the two answer alike, and
// the boundary answers a path in another case in the file system's
// spelling.
func TestEvalLinksOnWindows(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "Sub", "Deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Sub", "a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		`Sub\a.go`, `sub\A.GO`, `Sub/Deeper/../a.go`, `.\Sub\\Deeper`, `Sub\missing.go`, `Sub\a.go\x`, `..`,
	} {
		path := filepath.Join(dir, p)
		want, werr := filepath.EvalSymlinks(path)
		got, err := EvalLinks(path)
		if got != want || (err == nil) != (werr == nil) || errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
			t.Errorf("EvalLinks(%q) = %q, %v; EvalSymlinks answers %q, %v", p, got, err, want, werr)
		}
	}
	resolve, err := RootResolver(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.ToLower(filepath.Join(dir, `SUB\A.GO`))
	if got, err := resolve(other); err != nil || got != filepath.Join(dir, "Sub", "a.go") {
		t.Errorf("RootResolver(%q)(%q) = %q, %v; want %q", dir, other, got, err, filepath.Join(dir, "Sub", "a.go"))
	}
	if got, err := resolve(filepath.Dir(dir)); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("RootResolver(%q)(%q) = %q, %v; want %v", dir, filepath.Dir(dir), got, err, ErrOutsideRoot)
	}
}
