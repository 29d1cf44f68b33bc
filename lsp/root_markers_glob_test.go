package lsp

import (
	"path/filepath"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
)

// TestRootMarkerPatterns: a marker with a pattern ("*.sln", "*.cabal")
// marks a root when a name in the folder matches it, as C#, Haskell,
// OCaml and Swift projects are named after themselves; both FindRoot and
// the survey's project-marker rule read it so.
func TestRootMarkerPatterns(t *testing.T) {
	ws := disk.Tree(t, map[string]string{
		"App.sln":            "",
		"src/Lib/Lib.csproj": "",
		"src/Lib/A.cs":       "class A {}\n",
		"src/Tool/B.cs":      "class B {}\n",
	})
	markers := []string{"*.sln", "*.csproj"}
	for _, tc := range []struct{ file, want string }{
		{"src/Lib/A.cs", "src/Lib"},
		{"src/Tool/B.cs", "."},
	} {
		if got := FindRoot(filepath.Join(ws, tc.file), ws, markers); got != filepath.Join(ws, tc.want) {
			t.Errorf("FindRoot(%s) = %s, want %s", tc.file, got, filepath.Join(ws, tc.want))
		}
	}
	sv := &Survey{Root: ws}
	if got := sv.marker(ServerConfig{RootMarkers: []string{".git", "*.csproj", "*.sln"}}); got != "*.sln" {
		t.Errorf("survey marker %q, want *.sln", got)
	}
}
