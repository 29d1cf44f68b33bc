// Package disk writes the files a test works on (a workspace tree, one
// file), for the tests of lsp and internal/filewatch.
package disk

import (
	"os"
	"path/filepath"
	"testing"
)

// Tree writes files (slash-separated names relative to the root, and
// their text) under a fresh temporary root and returns the root, its
// symlinks resolved so that paths compare equal to what servers report.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		Write(t, filepath.Join(root, name), text)
	}
	return root
}

// Write writes text to path, making its folders first.
func Write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
