package edit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPlanRefusesChangesSinceValidation: a Plan applied after anything it
// read from the disk changed (a file's content or mode, a folder's
// entries, where a link leads, a path that was free) refuses with
// ErrChanged and writes nothing, so an edit the user allowed long after
// seeing it never lands on what they did not see: a folder deleted with a
// file changed or added in it meanwhile, a file created through a link
// that now leads elsewhere.
func TestPlanRefusesChangesSinceValidation(t *testing.T) {
	files := map[string]string{"a.go": "package a\n", "gen/x.go": "package gen\n", "real/k.txt": "k\n", "other/k.txt": "k\n"}
	for _, tc := range []struct {
		name    string
		changes func(dir string) []DocumentChange
		// meanwhile changes the tree between validation and apply.
		meanwhile func(dir string) error
	}{
		{"edited file's content", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "a.go"), te(0, 0, 0, 1, "P"))}
		}, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // mine\n"), 0o644)
		}},
		{"edited file's mode", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "a.go"), te(0, 0, 0, 1, "P"))}
		}, func(dir string) error { return os.Chmod(filepath.Join(dir, "a.go"), 0o755) }},
		{"file changed in a folder deleted", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "gen"), Options: &DeleteFileOptions{Recursive: true}}}}
		}, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "gen", "x.go"), []byte("package gen // mine\n"), 0o644)
		}},
		{"file added to a folder deleted", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "gen"), Options: &DeleteFileOptions{Recursive: true}}}}
		}, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "gen", "new.go"), []byte("package gen\n"), 0o644)
		}},
		{"folder moved with a file added", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "gen"), NewURI: uri(dir, "gen2")}}, tde(uri(dir, "gen2/x.go"), te(0, 0, 0, 1, "P"))}
		}, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "gen", "new.go"), []byte("package gen\n"), 0o644)
		}},
		{"link retargeted under a file created", func(dir string) []DocumentChange {
			return []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "link/new.txt")}}}
		}, func(dir string) error {
			if err := os.Remove(filepath.Join(dir, "link")); err != nil {
				return err
			}
			return os.Symlink("other", filepath.Join(dir, "link"))
		}},
		{"path created meanwhile", func(dir string) []DocumentChange {
			return []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "new.go"), Options: &CreateFileOptions{IgnoreIfExists: true}}}}
		}, func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "new.go"), []byte("package mine\n"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, files)
			if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			p, err := NewPlan(context.Background(), &WorkspaceEdit{DocumentChanges: tc.changes(dir)}, Options{Root: dir})
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.meanwhile(dir); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			if _, err := p.Apply(context.Background()); !errors.Is(err, ErrChanged) {
				t.Errorf("err = %v; want ErrChanged", err)
			}
			sameTree(t, before, snapshot(t, dir))
		})
	}
}
