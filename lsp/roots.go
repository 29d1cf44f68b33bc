package lsp

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// FindRoot returns the project root for file: the nearest folder, from the
// file's own folder upwards, that holds one of markers, never going above
// ceiling. When no folder up to ceiling holds a marker, FindRoot returns
// ceiling. file must be inside ceiling; both are cleaned absolute paths.
func FindRoot(file, ceiling string, markers []string) string {
	dir := filepath.Dir(file)
	for edit.Within(ceiling, dir) {
		for _, m := range markers {
			if hasMarker(dir, m) {
				return dir
			}
		}
		if dir == ceiling {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ceiling
}

// hasMarker reports whether dir holds the root marker m: a name, or a
// pattern (filepath.Match: "*.sln", "*.cabal") that a name in dir
// matches, for projects named after themselves.
func hasMarker(dir, m string) bool {
	if !strings.ContainsAny(m, `*?[`) {
		_, err := os.Lstat(filepath.Join(dir, m))
		return err == nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if ok, _ := filepath.Match(m, e.Name()); ok {
			return true
		}
	}
	return false
}
