package lsp

import (
	"os"
	"path/filepath"

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
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
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
