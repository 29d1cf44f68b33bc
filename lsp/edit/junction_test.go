package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// junctionFS is a workspace /w with Windows junctions in it (leading out,
// back in, to another junction, in a loop), symbolic links, and an
// irregular file that is no link (a OneDrive placeholder).
func junctionFS(t *testing.T) *memFS {
	return newMemFS(t, false, map[string]string{
		"/w/sub/a.go":  "file",
		"/w/file.go":   "file",
		"/out/x.go":    "file",
		"/w/jout":      "junction /out",
		"/w/jin":       "junction /w/sub",
		"/w/jchain":    "junction /w/jout",
		"/w/loop":      "junction /w/loop2",
		"/w/loop2":     "junction /w/loop",
		"/w/cloud.go":  "irregular",
		"/w/slink":     "link ../out",
		"/w/sabs":      "link /out",
		"/w/sub/jback": "junction /w",
	})
}

// TestEvalLinksJunctions: the walk follows junctions as it follows
// symbolic links, name by name, and takes an irregular entry Readlink
// cannot read for what it is. filepath.EvalSymlinks stops at a junction
// since Go 1.23 (os.Lstat says ModeIrregular, not a folder): it answers
// the junction itself, and "not a directory" below it.
func TestEvalLinksJunctions(t *testing.T) {
	fsys := junctionFS(t)
	for _, tc := range []struct {
		path, want string
		err        error
	}{
		{"/w/sub/a.go", "/w/sub/a.go", nil},
		{"/w/./sub//a.go", "/w/sub/a.go", nil},
		{"/w/jout", "/out", nil},
		{"/w/jout/x.go", "/out/x.go", nil},
		{"/w/jin/a.go", "/w/sub/a.go", nil},
		{"/w/jchain/x.go", "/out/x.go", nil},
		{"/w/jin/../jout/x.go", "/out/x.go", nil},
		{"/w/sub/jback/jout/x.go", "/out/x.go", nil},
		{"/w/loop/x.go", "", errTooManyLinks},
		{"/w/cloud.go", "/w/cloud.go", nil},
		{"/w/cloud.go/x", "", syscall.ENOTDIR},
		{"/w/file.go/x", "", syscall.ENOTDIR},
		{"/w/slink/x.go", "/out/x.go", nil},
		{"/w/sabs/x.go", "/out/x.go", nil},
		{"/w/missing/x.go", "", fs.ErrNotExist},
		{"/w/jout/missing.go", "", fs.ErrNotExist},
	} {
		got, err := evalLinks(fsys, tc.path)
		if got != tc.want || !errIs(err, tc.err) {
			t.Errorf("evalLinks(%q) = %q, %v; want %q, %v", tc.path, got, err, tc.want, tc.err)
		}
	}
}

// TestInRootJunctions: the workspace boundary sees a junction leave the
// workspace as it sees a symbolic link leave, and lets one that leads
// back in be.
func TestInRootJunctions(t *testing.T) {
	fsys := junctionFS(t)
	for _, tc := range []struct {
		path, want string
		out        bool
	}{
		{"/w/jout", "", true},
		{"/w/jout/x.go", "", true},
		{"/w/jout/new.go", "", true},
		{"/w/jchain/new/deeper.go", "", true},
		{"/w/jin/a.go", "/w/sub/a.go", false},
		{"/w/jin/new.go", "/w/sub/new.go", false},
		{"/w/sub/jback/file.go", "/w/file.go", false},
		{"/w/cloud.go", "/w/cloud.go", false},
	} {
		got, err := inRoot(fsys, "/w", tc.path)
		if tc.out {
			if !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("inRoot(/w, %q) = %q, %v; want %v", tc.path, got, err, ErrOutsideRoot)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("inRoot(/w, %q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// TestEvalLinksAsEvalSymlinks: over the real file system the walk answers
// what filepath.EvalSymlinks answers (it is that walk, with junctions).
func TestEvalLinksAsEvalSymlinks(t *testing.T) {
	dir := tree(t, map[string]string{"real/sub/a.go": "a", "real/file.go": "f"})
	for link, target := range map[string]string{
		"rel": "real", "abs": filepath.Join(dir, "real"), "up": "real/sub/..", "chain": "rel",
		"dangling": "missing", "loop": "loop2", "loop2": "loop", "real/sub/back": "../..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{
		"real/sub/a.go", "rel/sub/a.go", "abs/sub/../file.go", "up/file.go", "chain/sub",
		"real/sub/back/rel/file.go", "dangling", "dangling/x", "loop/x", "real/file.go/x",
		"missing/x", "rel/../rel/./sub//a.go", "..",
	} {
		path := filepath.Join(dir, p)
		want, werr := filepath.EvalSymlinks(path)
		got, err := evalLinks(osLinks{}, path)
		if got != want || (err == nil) != (werr == nil) || errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) || isNotDir(err) != isNotDir(werr) {
			t.Errorf("evalLinks(%q) = %q, %v; EvalSymlinks answers %q, %v", p, got, err, want, werr)
		}
	}
}

// TestIsLinkJunctions: a junction is a link as a symbolic link is; an
// irregular file Readlink cannot read, a folder, a file are not.
func TestIsLinkJunctions(t *testing.T) {
	fsys := junctionFS(t)
	for name, want := range map[string]bool{
		"/w/jout": true, "/w/jin": true, "/w/slink": true, "/w/sabs": true,
		"/w/cloud.go": false, "/w/sub": false, "/w/file.go": false, "/w/missing": false,
	} {
		if got := isLink(fsys, name); got != want {
			t.Errorf("isLink(%q) = %v, want %v", name, got, want)
		}
	}
}
