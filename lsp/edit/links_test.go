package edit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplySymbolicLinkEntries deletes, renames and creates through
// symbolic links that are not regular files: a link to a directory, a
// dangling link, and a symlinked folder holding the file.
func TestApplySymbolicLinkEntries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes func(dir string) []DocumentChange
		want    map[string]string // the tree after, without the fixed entries
		wantErr string
	}{
		{"delete link to directory", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "dlink")}}}
		}, map[string]string{"dangling": "link missing"}, ""},
		{"delete dangling link", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "dangling")}}}
		}, map[string]string{"dlink": "link real"}, ""},
		{"rename dangling link", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "dangling"), NewURI: uri(dir, "moved")}}}
		}, map[string]string{"dlink": "link real", "moved": "link missing"}, ""},
		{"rename link to directory", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "dlink"), NewURI: uri(dir, "moved")}}}
		}, map[string]string{"moved": "link real", "dangling": "link missing"}, ""},
		{"create in symlinked folder", func(dir string) []DocumentChange {
			return []DocumentChange{
				{CreateFile: &CreateFile{URI: uri(dir, "dlink/sub/new.txt")}},
				tde(uri(dir, "dlink/a.txt"), te(0, 0, 0, 1, "A")),
			}
		}, map[string]string{"dlink": "link real", "dangling": "link missing", "real/a.txt": "-rw-r--r-- A\n",
			"real/sub": "dir drwxr-xr-x", "real/sub/new.txt": "-rw-r--r-- "}, ""},
		{"rename in symlinked folder", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "dlink/a.txt"), NewURI: uri(dir, "dlink/b.txt")}}}
		}, map[string]string{"dlink": "link real", "dangling": "link missing", "real/a.txt": "", "real/b.txt": "-rw-r--r-- a\n"}, ""},
		{"create below a dangling link", func(dir string) []DocumentChange {
			return []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "dangling/new.txt")}}}
		}, nil, "is not a directory"},
		{"create below a link moved by the edit", func(dir string) []DocumentChange {
			return []DocumentChange{
				{RenameFile: &RenameFile{OldURI: uri(dir, "dlink"), NewURI: uri(dir, "moved")}},
				{CreateFile: &CreateFile{URI: uri(dir, "moved/new.txt")}},
			}
		}, nil, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"real/a.txt": "a\n"})
			for link, target := range map[string]string{"dlink": "real", "dangling": "missing"} {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, dir)
			_, err := Apply(context.Background(), &WorkspaceEdit{DocumentChanges: tc.changes(dir)}, Options{Root: dir})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v; want %q", err, tc.wantErr)
				}
				sameTree(t, before, snapshot(t, dir))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{".": "dir drwxr-xr-x", "real": "dir drwxr-xr-x", "real/a.txt": "-rw-r--r-- a\n"}
			for k, v := range tc.want {
				if v == "" {
					delete(want, k)
					continue
				}
				want[k] = v
			}
			sameTree(t, want, fixDirModes(snapshot(t, dir)))
			assertNoLeftovers(t, dir)
		})
	}
}

// TestApplyRejectsFileLinkAlias edits one file under its own name and
// through a symbolic link to it: in changes both lists are computed from
// the same content, so applying one after the other corrupts the file.
func TestApplyRejectsFileLinkAlias(t *testing.T) {
	for _, tc := range []struct {
		name string
		we   func(dir string) *WorkspaceEdit
	}{
		{"changes", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{Changes: map[string][]TextEdit{
				uri(dir, "link.txt"): {te(0, 0, 0, 1, "XYZ")},
				uri(dir, "real.txt"): {te(0, 2, 0, 3, "Q")},
			}}
		}},
		{"document changes, target first", func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{
				tde(uri(dir, "real.txt"), te(0, 2, 0, 3, "Q")),
				tde(uri(dir, "link.txt"), te(0, 0, 0, 1, "XYZ")),
			}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"real.txt": "abc\n"})
			if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
				t.Fatal(err)
			}
			_, err := Apply(context.Background(), tc.we(dir), Options{Root: dir})
			if err == nil || !strings.Contains(err.Error(), "through a symbolic link") {
				t.Fatalf("err = %v; want the alias refused", err)
			}
			if got := read(t, dir, "real.txt"); got != "abc\n" {
				t.Fatalf("real.txt = %q", got)
			}
		})
	}
}

// TestUnifiedDiffLineEndings checks that every line of a diff ends in "\n"
// (or carries the no-newline marker), whatever the file's line endings.
func TestUnifiedDiffLineEndings(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after string
		want          string
	}{
		{"lone CR", "x\ry\rz\r", "x\rY\rz\r",
			"--- a\n+++ b\n@@ -1 +1 @@\n-x\ry\rz\r\n\\ No newline at end of file\n+x\rY\rz\r\n\\ No newline at end of file\n"},
		{"CR at end of file", "a\nb\r", "a\nc\r",
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\r\n\\ No newline at end of file\n+c\r\n\\ No newline at end of file\n"},
		{"CRLF", "a\r\nb\r\n", "a\r\nB\r\n",
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := UnifiedDiff("a", "b", []byte(tc.before), []byte(tc.after))
			if got != tc.want {
				t.Fatalf("diff = %q; want %q", got, tc.want)
			}
		})
	}
}

// TestPreviewShowsDeletionBeforeRename renames onto a path deleted earlier
// in the same edit: the report must still show the deleted content, as it
// does for the same change written as a rename with overwrite.
func TestPreviewShowsDeletionBeforeRename(t *testing.T) {
	files := map[string]string{"a": "old a\n", "b": "b\n", "d/x": "old x\n", "e/x": "e x\n"}
	for _, tc := range []struct {
		name    string
		changes func(dir string) []DocumentChange
		want    []string // lines of the summary
	}{
		{"rename with overwrite", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "b"), NewURI: uri(dir, "a"), Options: &RenameFileOptions{Overwrite: true}}}}
		}, []string{"delete a, +0 -1 lines", "rename a (from b)"}},
		{"delete then rename", func(dir string) []DocumentChange {
			return []DocumentChange{
				{DeleteFile: &DeleteFile{URI: uri(dir, "a")}},
				{RenameFile: &RenameFile{OldURI: uri(dir, "b"), NewURI: uri(dir, "a")}},
			}
		}, []string{"delete a, +0 -1 lines", "rename a (from b)"}},
		{"edit, delete folder, rename folder onto it", func(dir string) []DocumentChange {
			return []DocumentChange{
				tde(uri(dir, "d/x"), te(0, 0, 0, 3, "new")),
				tde(uri(dir, "e/x"), te(0, 0, 0, 1, "E")),
				{DeleteFile: &DeleteFile{URI: uri(dir, "d"), Options: &DeleteFileOptions{Recursive: true}}},
				{RenameFile: &RenameFile{OldURI: uri(dir, "e"), NewURI: uri(dir, "d")}},
			}
		}, []string{"delete d", "rename d (from e)", "edit+delete d/x: 1 edit, +0 -1 lines", "edit d/x (from e/x): 1 edit, +1 -1 lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, files)
			plan, err := NewPlan(context.Background(), &WorkspaceEdit{DocumentChanges: tc.changes(dir)}, Options{Root: dir})
			if err != nil {
				t.Fatal(err)
			}
			res := plan.Result()
			got := res.Summary(dir)
			for _, line := range tc.want {
				if !strings.Contains(got, line+"\n") {
					t.Errorf("summary lacks %q:\n%s", line, got)
				}
			}
			if strings.Count(res.Diff(), "-old ") != 1 {
				t.Errorf("diff does not show the deleted content once:\n%s", res.Diff())
			}
		})
	}
}

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
