package component

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenameFileMovesTheLink: rename_file of a symbolic link moves the
// link, as mv does, and leaves its target where it is; the server is told
// of the link's move. A link pointing out of the workspace stays refused,
// as every path that resolves outside it is, and nothing moves.
func TestRenameFileMovesTheLink(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name    string
		target  func(root string) string // the link's target, made by the test
		refused bool
	}{
		{"target inside", func(root string) string { return filepath.Join(root, "real.go") }, false},
		{"target outside", func(string) string { return filepath.Join(outside, "real.go") }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s, fb, cs := setup(t, Config{})
			target := tc.target(s.Root)
			if err := os.WriteFile(target, []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(s.Root, "link.go")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			fb.set("workspace/willRenameFiles", `null`)
			fb.set("workspace/didRenameFiles", `null`)
			text, isErr := callTool(t, cs, map[string]any{"action": "rename_file", "file": "link.go", "new_name": "renamed.go", "apply": true})
			if b, err := os.ReadFile(target); err != nil || string(b) != "package main\n" {
				t.Errorf("target moved or changed: %v %q", err, b)
			}
			if tc.refused {
				if !isErr || !strings.Contains(text, "outside the workspace") {
					t.Errorf("rename_file of a link out: %s", text)
				}
				if got, err := os.Readlink(link); err != nil || got != target {
					t.Errorf("link changed: %q %v", got, err)
				}
				return
			}
			if isErr || !strings.Contains(text, "move link.go to renamed.go") {
				t.Fatalf("rename_file: %s", text)
			}
			if _, err := os.Lstat(link); !os.IsNotExist(err) {
				t.Errorf("link still at its old name: %v", err)
			}
			got, err := os.Readlink(filepath.Join(s.Root, "renamed.go"))
			if err != nil || got != target {
				t.Errorf("renamed.go: %q %v, want a link to %s", got, err, target)
			}
			var told string
			for _, r := range fb.requests {
				if strings.HasPrefix(r, "workspace/willRenameFiles ") {
					told = r
				}
			}
			if !strings.Contains(told, "link.go") || strings.Contains(told, "real.go") {
				t.Errorf("server told %s", told)
			}
		})
	}
}
