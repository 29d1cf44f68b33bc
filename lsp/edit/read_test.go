package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: ReadRegular reads a regular file up to its cap and
// refuses, unread, a file over it and anything that is not a regular file
// (saying what it is): a named pipe (without blocking in open), a folder,
// a device.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.go", "package small\n")
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(pipe, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
		want  string // content, or what the error says
		is    error
	}{
		{"under the cap", small, 100, "package small\n", nil},
		{"at the cap", small, 14, "package small\n", nil},
		{"no cap", small, -1, "package small\n", nil},
		{"empty", write("empty.go", ""), 0, "", nil},
		{"over the cap", small, 13, "read " + small + ": too large: 14 bytes, over the cap of 13 bytes", ErrTooLarge},
		{"over the cap in KiB", write("big.go", strings.Repeat("x", 3000)), 2048, "too large: 2.9 KiB (3000 bytes), over the cap of 2.0 KiB", ErrTooLarge},
		{"named pipe", pipe, -1, "read " + pipe + ": a named pipe, not a regular file", ErrNotRegular},
		{"link to a named pipe", link, -1, "a named pipe, not a regular file", ErrNotRegular},
		{"folder", dir, -1, "a directory, not a regular file", ErrNotRegular},
		{"character device", "/dev/zero", -1, "read /dev/zero: a character device, not a regular file", ErrNotRegular},
		{"missing", filepath.Join(dir, "missing"), -1, "no such file", fs.ErrNotExist},
	} {
		b, fi, err := ReadRegular(tc.path, tc.limit)
		if tc.is == nil {
			if err != nil || string(b) != tc.want || fi == nil || fi.Size() != int64(len(b)) {
				t.Errorf("%s: %q, %v; want %q", tc.name, b, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || b != nil {
			t.Errorf("%s: %q, %v; want an error saying %q", tc.name, b, err, tc.want)
		}
	}
}
