package edit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyRefusesThroughLinkOutOfRoot: a symlinked folder is followed
// (TestApplySymbolicLinkEntries), but never out of the root: creating,
// renaming into or out of, or editing below a link to an outside folder is
// refused, and neither side changes.
func TestApplyRefusesThroughLinkOutOfRoot(t *testing.T) {
	for _, tc := range []struct {
		name string
		we   func(dir string) *WorkspaceEdit
	}{
		{"create", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "outlink/new.txt")}}}}
		}},
		{"rename into", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "real/a.txt"), NewURI: uri(dir, "outlink/a.txt")}}}}
		}},
		{"rename out of", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "outlink/x.txt"), NewURI: uri(dir, "real/x.txt")}}}}
		}},
		{"edit", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{tde(uri(dir, "outlink/x.txt"), te(0, 0, 0, 1, "A"))}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"real/a.txt": "a\n"})
			out := tree(t, map[string]string{"x.txt": "x\n"})
			if err := os.Symlink(out, filepath.Join(dir, "outlink")); err != nil {
				t.Fatal(err)
			}
			before, beforeOut := snapshot(t, dir), snapshot(t, out)
			_, err := Apply(context.Background(), tc.we(dir), Options{Root: dir})
			if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
				t.Fatalf("err = %v; want the path refused as outside the workspace", err)
			}
			sameTree(t, before, snapshot(t, dir))
			sameTree(t, beforeOut, snapshot(t, out))
		})
	}
}
