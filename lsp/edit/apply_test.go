package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

func TestApplyChangesMultiFile(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.go":     "package a\n\nfunc Add(x int) int { return x }\n",
		"b/b.go":   "package b\n\n// 😀 Add 日本\nvar _ = a.Add(1)\n",
		"keep.txt": "untouched\n",
	})
	we := &WorkspaceEdit{Changes: map[string][]TextEdit{
		uri(dir, "a.go"):   {te(2, 5, 2, 8, "Sum")},
		uri(dir, "b/b.go"): {te(2, 6, 2, 9, "Sum"), te(3, 10, 3, 13, "Sum")},
	}}
	res, err := Apply(context.Background(), we, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, dir, "a.go"); got != "package a\n\nfunc Sum(x int) int { return x }\n" {
		t.Errorf("a.go = %q", got)
	}
	if got := read(t, dir, "b/b.go"); got != "package b\n\n// 😀 Sum 日本\nvar _ = a.Sum(1)\n" {
		t.Errorf("b.go = %q", got)
	}
	if len(res.Files) != 2 || res.Files[1].Edits != 2 || res.Files[1].Added != 2 || res.Files[1].Removed != 2 {
		t.Errorf("result = %+v", res.Files)
	}
	want := "edit a.go: 1 edit, +1 -1 lines\nedit b/b.go: 2 edits, +2 -2 lines\n"
	if s := res.Summary(dir); s != want {
		t.Errorf("summary = %q; want %q", s, want)
	}
	if !strings.Contains(res.Diff(), "--- a/b/b.go\n+++ b/b/b.go\n") || !strings.Contains(res.Diff(), "+// 😀 Sum 日本\n") {
		t.Errorf("diff = %s", res.Diff())
	}
	assertNoLeftovers(t, dir)
}

func TestApplyEncodings(t *testing.T) {
	// The same rename expressed in each encoding gives the same file.
	text := "x := \"😀日本\"; y := x\n"
	for enc, r := range map[position.Encoding][2]uint32{
		position.UTF16: {18, 19},
		position.UTF8:  {24, 25},
		position.UTF32: {17, 18},
	} {
		dir := tree(t, map[string]string{"f.go": text})
		we := &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "f.go"): {te(0, 0, 0, 1, "z"), te(0, r[0], 0, r[1], "z")}}}
		if _, err := Apply(context.Background(), we, Options{Encoding: enc}); err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if got := read(t, dir, "f.go"); got != "z := \"😀日本\"; y := z\n" {
			t.Errorf("%s: got %q", enc, got)
		}
	}
}

func TestApplyResourceOperations(t *testing.T) {
	dir := tree(t, map[string]string{
		"old.go":       "package p\n\nvar Old = 1\n",
		"gone.txt":     "bye\n",
		"pkg/x.go":     "package pkg\n",
		"pkg/sub/y.go": "package sub\n",
		"empty/":       "",
	})
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		{CreateFile: &CreateFile{URI: uri(dir, "new/dir/n.go")}},
		tde(uri(dir, "new/dir/n.go"), te(0, 0, 0, 0, "package dir\n")),
		{RenameFile: &RenameFile{OldURI: uri(dir, "old.go"), NewURI: uri(dir, "renamed.go")}},
		tde(uri(dir, "renamed.go"), te(2, 4, 2, 7, "New")),
		{RenameFile: &RenameFile{OldURI: uri(dir, "pkg"), NewURI: uri(dir, "lib")}},
		tde(uri(dir, "lib/sub/y.go"), te(0, 8, 0, 11, "sub2")),
		{DeleteFile: &DeleteFile{URI: uri(dir, "gone.txt")}},
		{DeleteFile: &DeleteFile{URI: uri(dir, "empty")}},
		{DeleteFile: &DeleteFile{URI: uri(dir, "never.txt"), Options: &DeleteFileOptions{IgnoreIfNotExists: true}}},
		{CreateFile: &CreateFile{URI: uri(dir, "lib/x.go"), Options: &CreateFileOptions{IgnoreIfExists: true}}},
	}}
	before := snapshot(t, dir)
	plan, err := NewPlan(context.Background(), we, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	pre := plan.Result()
	sameTree(t, before, snapshot(t, dir))
	if pre.Applied {
		t.Error("preview says applied")
	}
	res, err := Apply(context.Background(), we, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, map[string]string{
		".":            "dir drwxr-xr-x",
		"new":          "dir drwxr-xr-x",
		"new/dir":      "dir drwxr-xr-x",
		"new/dir/n.go": "-rw-r--r-- package dir\n",
		"renamed.go":   "-rw-r--r-- package p\n\nvar New = 1\n",
		"lib":          "dir drwxr-xr-x",
		"lib/x.go":     "-rw-r--r-- package pkg\n",
		"lib/sub":      "dir drwxr-xr-x",
		"lib/sub/y.go": "-rw-r--r-- package sub2\n",
	}, fixDirModes(snapshot(t, dir)))
	if pre.Summary(dir) != res.Summary(dir) || pre.Diff() != res.Diff() {
		t.Errorf("preview and apply differ:\n%s\n%s", pre.Summary(dir), res.Summary(dir))
	}
	got := res.Summary(dir)
	for _, line := range []string{
		"delete empty\n",
		"delete gone.txt, +0 -1 lines\n",
		"rename lib (from pkg)\n",
		"edit lib/sub/y.go (from pkg/sub/y.go): 1 edit, +1 -1 lines\n",
		"create+edit new/dir/n.go: 1 edit, +1 -0 lines\n",
		"rename+edit renamed.go (from old.go): 1 edit, +1 -1 lines\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("summary lacks %q:\n%s", line, got)
		}
	}
	var evs []string
	for _, e := range res.Events {
		rel, _ := filepath.Rel(dir, strings.TrimPrefix(e.URI, "file://"))
		evs = append(evs, fmt.Sprintf("%d %s", e.Type, rel))
	}
	wantEvs := "3 empty,3 gone.txt,3 pkg,1 lib,3 pkg/sub/y.go,1 lib/sub/y.go,1 new/dir/n.go,3 old.go,1 renamed.go"
	if strings.Join(evs, ",") != wantEvs {
		t.Errorf("events = %s; want %s", strings.Join(evs, ","), wantEvs)
	}
}

// fixDirModes hides the umask's effect on the temporary root.
func fixDirModes(m map[string]string) map[string]string {
	for k, v := range m {
		if strings.HasPrefix(v, "dir ") {
			m[k] = "dir drwxr-xr-x"
		}
	}
	return m
}

func TestApplyRejects(t *testing.T) {
	files := map[string]string{
		"a.txt":     "alpha\nbeta\n",
		"b.txt":     "日本語\n",
		"plainfile": "I am a file\n",
		"d/x":       "x\n",
	}
	for _, tc := range []struct {
		name    string
		changes func(dir string) []DocumentChange
		opts    func(dir string) Options
		want    error
		msg     string
	}{
		{"overlap", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "b.txt"), te(0, 0, 0, 1, "x")), tde(uri(dir, "a.txt"), te(0, 0, 0, 3, "x"), te(0, 2, 0, 4, "y"))}
		}, nil, ErrOverlap, "text edits 0 (range 0:0-0:3) and 1 (range 0:2-0:4)"},
		{"line out of range", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "a.txt"), te(0, 0, 0, 1, "x")), tde(uri(dir, "b.txt"), te(9, 0, 9, 1, "x"))}
		}, nil, position.ErrLineRange, "change 2 of 2"},
		{"missing file", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "nope.txt"), te(0, 0, 0, 0, "x"))}
		}, nil, ErrNotExist, "nope.txt"},
		{"create exists", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "a.txt"), te(0, 0, 0, 0, "x")), {CreateFile: &CreateFile{URI: uri(dir, "b.txt")}}}
		}, nil, ErrExists, "set overwrite or ignoreIfExists"},
		{"rename onto existing", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "a.txt"), NewURI: uri(dir, "b.txt")}}}
		}, nil, ErrExists, ""},
		{"rename missing", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "zz"), NewURI: uri(dir, "yy")}}}
		}, nil, ErrNotExist, ""},
		{"delete missing", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "zz")}}}
		}, nil, ErrNotExist, "ignoreIfNotExists"},
		{"delete non-empty dir", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "d")}}}
		}, nil, nil, "directory not empty (set recursive)"},
		{"edit after delete", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "a.txt")}}, tde(uri(dir, "a.txt"), te(0, 0, 0, 0, "x"))}
		}, nil, ErrNotExist, ""},
		{"edit under deleted dir", func(dir string) []DocumentChange {
			return []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "d"), Options: &DeleteFileOptions{Recursive: true}}}, tde(uri(dir, "d/x"), te(0, 0, 0, 0, "x"))}
		}, nil, ErrNotExist, ""},
		{"create below a regular file", func(dir string) []DocumentChange {
			return []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "plainfile/child.txt")}}}
		}, nil, nil, "is not a directory"},
		{"edit a directory", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "d"), te(0, 0, 0, 0, "x"))}
		}, nil, nil, "is a directory"},
		{"dir into itself", func(dir string) []DocumentChange {
			return []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "d"), NewURI: uri(dir, "d/e")}}}
		}, nil, nil, "into itself"},
		{"outside root", func(dir string) []DocumentChange {
			return []DocumentChange{tde(uri(dir, "a.txt"), te(0, 0, 0, 0, "x")), tde(URIFromPath(filepath.Join(dir, "..", "escape.txt")), te(0, 0, 0, 0, "x"))}
		}, func(dir string) Options { return Options{Root: filepath.Join(dir, "d")} }, ErrOutsideRoot, ""},
		{"version mismatch", func(dir string) []DocumentChange {
			v := int32(3)
			return []DocumentChange{{TextDocumentEdit: &TextDocumentEdit{TextDocument: VersionedTextDocumentIdentifier{URI: uri(dir, "a.txt"), Version: &v}, Edits: []TextEdit{te(0, 0, 0, 0, "x")}}}}
		}, func(dir string) Options {
			return Options{DocumentVersion: func(string) (int32, bool) { return 4, true }}
		}, ErrVersion, "computed for version 3, the open document is at version 4"},
		{"not a file uri", func(dir string) []DocumentChange {
			return []DocumentChange{tde("untitled:Untitled-1", te(0, 0, 0, 0, "x"))}
		}, nil, nil, "only file:// URIs"},
		{"bad encoding", func(dir string) []DocumentChange { return nil },
			func(dir string) Options { return Options{Encoding: "utf-7"} }, position.ErrEncoding, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, files)
			before := snapshot(t, dir)
			opts := Options{}
			if tc.opts != nil {
				opts = tc.opts(dir)
			}
			we := &WorkspaceEdit{DocumentChanges: tc.changes(dir)}
			validate := func(ctx context.Context, we *WorkspaceEdit, opts Options) error {
				_, err := NewPlan(ctx, we, opts)
				return err
			}
			apply := func(ctx context.Context, we *WorkspaceEdit, opts Options) error {
				_, err := Apply(ctx, we, opts)
				return err
			}
			for _, f := range []func(context.Context, *WorkspaceEdit, Options) error{validate, apply} {
				err := f(context.Background(), we, opts)
				if err == nil {
					t.Fatal("no error")
				}
				if tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("err = %v; want %v", err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("err = %q; want it to contain %q", err, tc.msg)
				}
				sameTree(t, before, snapshot(t, dir))
			}
		})
	}
}

func TestApplyOverwriteOptions(t *testing.T) {
	dir := tree(t, map[string]string{"a": "A\n", "b": "B\n", "c": "C\n"})
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		{RenameFile: &RenameFile{OldURI: uri(dir, "a"), NewURI: uri(dir, "b"), Options: &RenameFileOptions{Overwrite: true}}},
		{CreateFile: &CreateFile{URI: uri(dir, "c"), Options: &CreateFileOptions{Overwrite: true}}},
		{RenameFile: &RenameFile{OldURI: uri(dir, "b"), NewURI: uri(dir, "c"), Options: &RenameFileOptions{IgnoreIfExists: true}}},
	}}
	res, err := Apply(context.Background(), we, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "b") != "A\n" || read(t, dir, "c") != "" {
		t.Fatalf("b=%q c=%q", read(t, dir, "b"), read(t, dir, "c"))
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a still exists: %v", err)
	}
	s := res.Summary(dir)
	for _, want := range []string{"delete b, +0 -1 lines", "rename b (from a)", "create c, +0 -1 lines"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	assertNoLeftovers(t, dir)
}

func TestApplyKeepsModeAndFollowsSymlinks(t *testing.T) {
	dir := tree(t, map[string]string{"run.sh": "#!/bin/sh\necho hi\n", "real.txt": "one\n"})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	we := &WorkspaceEdit{Changes: map[string][]TextEdit{
		uri(dir, "run.sh"):   {te(1, 5, 1, 7, "bye")},
		uri(dir, "link.txt"): {te(0, 0, 0, 3, "two")},
	}}
	if _, err := Apply(context.Background(), we, Options{Root: dir}); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	if got["run.sh"] != "-rwxr-x--- #!/bin/sh\necho bye\n" || got["link.txt"] != "link real.txt" || got["real.txt"] != "-rw-r--r-- two\n" {
		t.Fatalf("tree = %q", got)
	}
}

func TestApplySymlinkOutOfRoot(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "secret\n"})
	dir := tree(t, map[string]string{"in.txt": "in\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"link.txt", "out/secret.txt", "out/new.txt"} {
		we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
			tde(uri(dir, "in.txt"), te(0, 0, 0, 0, "x")),
			tde(uri(dir, name), te(0, 0, 0, 0, "x")),
		}}
		if name == "out/new.txt" {
			we.DocumentChanges[1] = DocumentChange{CreateFile: &CreateFile{URI: uri(dir, name)}}
		}
		_, err := Apply(context.Background(), we, Options{Root: dir})
		if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("%s: err = %v; want ErrOutsideRoot", name, err)
		}
	}
	if read(t, outside, "secret.txt") != "secret\n" || read(t, dir, "in.txt") != "in\n" {
		t.Fatal("files changed")
	}
}

// faultFS runs the real file system but fails the n-th mutating call, or
// runs hook before it, to drive every step of Apply into failure.
type faultFS struct {
	OS
	n     int // fail the n-th mutating call (1-based); 0 never
	calls int
	hook  func(call int, op, path string) error
}

func (f *faultFS) fault(op, path string) error {
	f.calls++
	if f.hook != nil {
		if err := f.hook(f.calls, op, path); err != nil {
			return err
		}
	}
	if f.calls == f.n {
		return fmt.Errorf("injected failure of %s %s: %w", op, filepath.Base(path), syscall.EIO)
	}
	return nil
}

func (f *faultFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.fault("write", name); err != nil {
		return err
	}
	return f.OS.WriteFile(name, data, perm)
}

func (f *faultFS) Chmod(name string, mode fs.FileMode) error {
	if err := f.fault("chmod", name); err != nil {
		return err
	}
	return f.OS.Chmod(name, mode)
}

func (f *faultFS) Rename(o, n string) error {
	if err := f.fault("rename", o); err != nil {
		return err
	}
	return f.OS.Rename(o, n)
}

func (f *faultFS) Mkdir(name string, perm fs.FileMode) error {
	if err := f.fault("mkdir", name); err != nil {
		return err
	}
	return f.OS.Mkdir(name, perm)
}

// bigEdit touches every kind of step.
func bigEdit(dir string) *WorkspaceEdit {
	return &WorkspaceEdit{DocumentChanges: []DocumentChange{
		tde(uri(dir, "a.go"), te(0, 8, 0, 9, "A"), te(1, 0, 1, 0, "// 日本 😀\n")),
		{CreateFile: &CreateFile{URI: uri(dir, "new/n.go")}},
		tde(uri(dir, "new/n.go"), te(0, 0, 0, 0, "package n\n")),
		{RenameFile: &RenameFile{OldURI: uri(dir, "b.go"), NewURI: uri(dir, "sub/b2.go")}},
		tde(uri(dir, "sub/b2.go"), te(0, 0, 0, 7, "PACKAGE")),
		{DeleteFile: &DeleteFile{URI: uri(dir, "old"), Options: &DeleteFileOptions{Recursive: true}}},
		{RenameFile: &RenameFile{OldURI: uri(dir, "c.go"), NewURI: uri(dir, "d.go"), Options: &RenameFileOptions{Overwrite: true}}},
		tde(uri(dir, "e.go"), te(0, 0, 0, 1, "P")),
	}}
}

var bigTree = map[string]string{
	"a.go":      "package a\n",
	"b.go":      "package b\n",
	"c.go":      "package c\n",
	"d.go":      "package d\n",
	"e.go":      "package e\n",
	"old/x.txt": "x\n",
	"old/y/z":   "z\n",
	"sub/":      "",
}

func TestApplyRollbackEveryStep(t *testing.T) {
	// Count the mutating calls of a clean run, then fail each in turn.
	dir := tree(t, bigTree)
	ffs := &faultFS{}
	if _, err := Apply(context.Background(), bigEdit(dir), Options{FS: ffs}); err != nil {
		t.Fatal(err)
	}
	total := ffs.calls
	if total < 10 {
		t.Fatalf("only %d mutating calls", total)
	}
	for n := 1; n <= total; n++ {
		dir := tree(t, bigTree)
		before := snapshot(t, dir)
		ffs := &faultFS{n: n}
		_, err := Apply(context.Background(), bigEdit(dir), Options{FS: ffs})
		if err == nil {
			// Failures of cleanup after success (removing moved-aside
			// files) are warnings; they are not counted as mutating calls.
			t.Fatalf("call %d: no error", n)
		}
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "rolled back") {
			t.Fatalf("call %d: err = %v", n, err)
		}
		sameTree(t, before, snapshot(t, dir))
	}
}

func TestApplyRealFailureRollsBack(t *testing.T) {
	// Between validation and the last write, the directory holding e.go is
	// replaced by a regular file, so the write fails with ENOTDIR from the
	// kernel — a failure root cannot bypass. Everything done before must be
	// undone.
	dir := tree(t, map[string]string{"a.go": "package a\n", "z/e.go": "package e\n"})
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		tde(uri(dir, "a.go"), te(0, 0, 0, 1, "P")),
		{CreateFile: &CreateFile{URI: uri(dir, "n.go")}},
		tde(uri(dir, "z/e.go"), te(0, 0, 0, 1, "P")),
	}}
	z := filepath.Join(dir, "z")
	ffs := &faultFS{hook: func(call int, op, path string) error {
		if op == "write" && strings.HasPrefix(path, z+string(filepath.Separator)) {
			if err := os.Rename(z, z+".moved"); err != nil {
				return err
			}
			return os.WriteFile(z, []byte("now a file\n"), 0o644)
		}
		return nil
	}}
	_, err := Apply(context.Background(), we, Options{FS: ffs})
	if !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("err = %v; want ENOTDIR", err)
	}
	if read(t, dir, "a.go") != "package a\n" {
		t.Fatalf("a.go not restored: %q", read(t, dir, "a.go"))
	}
	if _, err := os.Lstat(filepath.Join(dir, "n.go")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("created n.go not removed: %v", err)
	}
}

func TestApplyDetectsConcurrentChange(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		tde(uri(dir, "a.go"), te(0, 0, 0, 1, "P")),
		tde(uri(dir, "b.go"), te(0, 0, 0, 1, "P")),
	}}
	ffs := &faultFS{hook: func(call int, op, path string) error {
		if call == 1 {
			// Someone else edits b.go after validation.
			return os.WriteFile(filepath.Join(dir, "b.go"), []byte("package bb\n"), 0o644)
		}
		return nil
	}}
	_, err := Apply(context.Background(), we, Options{FS: ffs})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v; want ErrChanged", err)
	}
	if read(t, dir, "a.go") != "package a\n" || read(t, dir, "b.go") != "package bb\n" {
		t.Fatalf("a=%q b=%q", read(t, dir, "a.go"), read(t, dir, "b.go"))
	}
	assertNoLeftovers(t, dir)
}

func TestApplyCanceled(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Apply(ctx, &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "a.go"): {te(0, 0, 0, 1, "P")}}}, Options{})
	if !errors.Is(err, context.Canceled) || read(t, dir, "a.go") != "package a\n" {
		t.Fatalf("err = %v", err)
	}
}

func assertNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	for p := range snapshot(t, dir) {
		if strings.Contains(p, ".acp-lsp-") {
			t.Errorf("leftover %s", p)
		}
	}
}

// failFrom fails every mutating call from the n-th on, so the undo steps
// fail too.
type failFrom struct{ faultFS }

func (f *failFrom) Remove(name string) error {
	if f.calls+1 >= f.n {
		f.calls++
		return fmt.Errorf("injected remove failure: %w", syscall.EIO)
	}
	return f.OS.Remove(name)
}

func TestApplyReportsIncompleteRollback(t *testing.T) {
	dir := tree(t, bigTree)
	ffs := &failFrom{}
	ffs.hook = func(call int, op, path string) error {
		if call >= 6 {
			return fmt.Errorf("injected %s failure: %w", op, syscall.EIO)
		}
		return nil
	}
	_, err := Apply(context.Background(), bigEdit(dir), Options{FS: ffs})
	if err == nil || !strings.Contains(err.Error(), "ROLLBACK INCOMPLETE") || !strings.Contains(err.Error(), "undo ") {
		t.Fatalf("err = %v; want an incomplete rollback naming the undo that failed", err)
	}
}

func TestPlanAppliesWhatWasShown(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a\n\nvar x = 1\n"})
	we := &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "a.go"): {te(2, 4, 2, 5, "y")}}}
	p, err := NewPlan(context.Background(), we, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Result().Diff(), "-var x = 1\n+var y = 1\n") {
		t.Fatalf("diff = %s", p.Result().Diff())
	}
	// The file changes after the user saw the diff: applying must refuse
	// rather than apply the old ranges to new content.
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar zz = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(context.Background()); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v; want ErrChanged", err)
	}
	if _, err := p.Apply(context.Background()); err == nil || !strings.Contains(err.Error(), "already applied") {
		t.Fatalf("second apply: %v", err)
	}
	// A fresh plan on unchanged content applies and says so.
	p, err = NewPlan(context.Background(), &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "a.go"): {te(2, 4, 2, 6, "y")}}}, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Apply(context.Background())
	if err != nil || !res.Applied || p.Result().Applied || read(t, dir, "a.go") != "package a\n\nvar y = 1\n" {
		t.Fatalf("apply: %v %+v %q", err, res, read(t, dir, "a.go"))
	}
}

func TestApplyDeleteChecksContent(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{
		tde(uri(dir, "a.go"), te(0, 0, 0, 1, "P")),
		{DeleteFile: &DeleteFile{URI: uri(dir, "b.go")}},
	}}
	ffs := &faultFS{hook: func(call int, op, path string) error {
		if call == 1 {
			return os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b // new work\n"), 0o644)
		}
		return nil
	}}
	_, err := Apply(context.Background(), we, Options{FS: ffs})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v; want ErrChanged", err)
	}
	if read(t, dir, "a.go") != "package a\n" || read(t, dir, "b.go") != "package b // new work\n" {
		t.Fatal("files changed")
	}
	assertNoLeftovers(t, dir)
}

func TestApplyRejectsAliasedFile(t *testing.T) {
	dir := tree(t, map[string]string{"real/a.go": "package a\n"})
	if err := os.Symlink("real", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	we := &WorkspaceEdit{Changes: map[string][]TextEdit{
		uri(dir, "real/a.go"):  {te(0, 0, 0, 1, "P")},
		uri(dir, "alias/a.go"): {te(0, 8, 0, 9, "b")},
	}}
	_, err := Apply(context.Background(), we, Options{Root: dir})
	if err == nil || !strings.Contains(err.Error(), "through a symbolic link") {
		t.Fatalf("err = %v", err)
	}
	if read(t, dir, "real/a.go") != "package a\n" {
		t.Fatal("file changed")
	}
}
