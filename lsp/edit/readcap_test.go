package edit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
)

// huge is the size of the over-cap file the tests below make: sparse, so
// it costs no disk, and far enough over the cap that reading it shows in
// the allocation count.
const huge = 256 << 20

// sparse makes (or grows) path to size bytes without writing them.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestEditFileOverCap: an edit that reads a workspace file over the cap
// (to edit it, or to check it before a rename, a delete or an overwrite
// moves it) is refused as a whole with a *regfile.SizeError naming the
// file, its size and the cap, from its size alone: refusing a 256 MiB file
// allocates nothing near its size, and nothing is written. A file that
// grows past the cap after validation, before Apply or while it runs, is a
// file changed since (ErrChanged), found without reading it whole. Before,
// every such read was os.ReadFile: a language server's rename answer
// naming a 2 GiB sparse file grew acp-lsp to 12.8 GB.
func TestEditFileOverCap(t *testing.T) {
	tests := []struct {
		name string
		// big is big.ev's size: huge from the start, or small to grow to
		// huge (grow) after NewPlan ("plan") or at the first write of
		// Apply ("apply").
		big  int64
		grow string
		link bool // link.ev is a symbolic link to big.ev
		edit func(dir string) *WorkspaceEdit
		want error
	}{
		{name: "a text edit", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "big.ev"): {te(0, 0, 0, 0, "X")}}}
		}},
		{name: "a text edit after another file's", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{
				tde(uri(dir, "a.ev"), te(0, 0, 0, 1, "A")),
				tde(uri(dir, "big.ev"), te(0, 0, 0, 0, "X")),
			}}
		}},
		{name: "a text edit through a symbolic link", big: huge, link: true, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "link.ev"): {te(0, 0, 0, 0, "X")}}}
		}},
		{name: "a rename", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "big.ev"), NewURI: uri(dir, "moved.ev")}}}}
		}},
		{name: "a delete", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{DeleteFile: &DeleteFile{URI: uri(dir, "big.ev")}}}}
		}},
		{name: "a rename over it", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{RenameFile: &RenameFile{OldURI: uri(dir, "a.ev"), NewURI: uri(dir, "big.ev"),
				Options: &RenameFileOptions{Overwrite: true}}}}}
		}},
		{name: "a create over it", big: huge, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{{CreateFile: &CreateFile{URI: uri(dir, "big.ev"),
				Options: &CreateFileOptions{Overwrite: true}}}}}
		}},
		{name: "grown past the cap before Apply", big: 6, grow: "plan", want: ErrChanged, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{Changes: map[string][]TextEdit{uri(dir, "big.ev"): {te(0, 0, 0, 0, "X")}}}
		}},
		{name: "grown past the cap while Apply runs", big: 6, grow: "apply", want: ErrChanged, edit: func(dir string) *WorkspaceEdit {
			return &WorkspaceEdit{DocumentChanges: []DocumentChange{
				tde(uri(dir, "a.ev"), te(0, 0, 0, 1, "A")),
				tde(uri(dir, "big.ev"), te(0, 0, 0, 0, "X")),
			}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"a.ev": "alpha\n"})
			big := filepath.Join(dir, "big.ev")
			sparse(t, big, tt.big)
			if tt.link {
				if err := os.Symlink("big.ev", filepath.Join(dir, "link.ev")); err != nil {
					t.Fatal(err)
				}
			}
			// was is the tree the edit must leave: as it is before the
			// edit, grown where the case grows big.ev.
			was := shallow(t, dir)
			ffs := &faultFS{hook: func(call int, op, path string) error {
				if tt.grow == "apply" && call == 1 {
					sparse(t, big, huge)
					was = shallow(t, dir)
				}
				return nil
			}}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := NewPlan(context.Background(), tt.edit(dir), Options{Root: dir, FS: ffs})
			if err == nil {
				if tt.grow == "plan" {
					sparse(t, big, huge)
					was = shallow(t, dir)
				}
				_, err = p.Apply(context.Background())
			}
			runtime.ReadMemStats(&after)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v; want %v", err, tt.want)
				}
			} else {
				var se *regfile.SizeError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v; want a *regfile.SizeError", err)
				}
				if se.Path != big || se.Size != huge || se.Limit != DefaultMaxFileSize {
					t.Errorf("SizeError %+v; want %s, %d bytes over %d", se, big, huge, DefaultMaxFileSize)
				}
				for _, want := range []string{big, "268435456 bytes", "over the cap of 10.0 MiB", "nothing was changed"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q does not say %q", err, want)
					}
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("allocated %d bytes to refuse a %d-byte file", grew, huge)
			}
			sameTree(t, was, shallow(t, dir))
			if got := read(t, dir, "a.ev"); got != "alpha\n" {
				t.Errorf("a.ev = %q; want it unchanged", got)
			}
		})
	}
}

// TestOSReadFileCap: OS reads a file up to its MaxFileSize, 0 meaning
// DefaultMaxFileSize and a negative one no cap, and refuses a larger one
// with a *regfile.SizeError carrying the cap it is over.
func TestOSReadFileCap(t *testing.T) {
	tests := []struct {
		name  string
		os    OS
		size  int64 // sparse when over 1 MiB, else that many bytes of "x"
		limit int64 // the cap refused at; 0: read
	}{
		{"the default cap", OS{}, DefaultMaxFileSize + 1, DefaultMaxFileSize},
		{"at the default cap", OS{}, DefaultMaxFileSize, 0},
		{"a cap of its own", OS{MaxFileSize: 4}, 5, 4},
		{"at a cap of its own", OS{MaxFileSize: 5}, 5, 0},
		{"no cap", OS{MaxFileSize: -1}, DefaultMaxFileSize + 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if tt.size > 1<<20 {
				sparse(t, path, tt.size)
			} else if err := os.WriteFile(path, []byte(strings.Repeat("x", int(tt.size))), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := tt.os.ReadFile(path)
			if tt.limit == 0 {
				if err != nil || int64(len(b)) != tt.size {
					t.Fatalf("ReadFile = %d bytes, %v; want %d bytes", len(b), err, tt.size)
				}
				return
			}
			var se *regfile.SizeError
			if !errors.As(err, &se) || se.Limit != tt.limit || se.Size != tt.size || b != nil {
				t.Fatalf("ReadFile = %d bytes, %v; want a *regfile.SizeError over %d", len(b), err, tt.limit)
			}
		})
	}
}
