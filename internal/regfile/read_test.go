//go:build unix

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRead: Read reads a regular file (or a symlink to one) up to its cap
// and refuses, unread, a file over it and anything that is not a regular
// file, saying what it is: a named pipe (without blocking in open), a
// folder, a device. Every error names the file and errors.Is tells it
// apart. Open agrees with Read on what it refuses.
func TestRead(t *testing.T) {
	write := func(text string) func(t *testing.T, path string) string {
		return func(t *testing.T, path string) string {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	fifo := func(t *testing.T, path string) string {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	link := func(target func(t *testing.T, path string) string) func(t *testing.T, path string) string {
		return func(t *testing.T, path string) string {
			if err := os.Symlink(target(t, path+".real"), path); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	tests := []struct {
		name  string
		place func(t *testing.T, path string) string // makes the file at path, returns the name to read
		limit int64
		want  string // the content, or what the error says; PATH is the name read
		is    error
	}{
		{"under the cap", write("package small\n"), 100, "package small\n", nil},
		{"at the cap", write("package small\n"), 14, "package small\n", nil},
		{"no cap", write("package small\n"), -1, "package small\n", nil},
		{"empty", write(""), 0, "", nil},
		{"a symlink to a regular file", link(write("12345678")), 8, "12345678", nil},
		{"over the cap", write("package small\n"), 13, "read PATH: too large: 14 bytes, over the cap of 13 bytes", ErrTooLarge},
		{"over the cap in KiB", write(strings.Repeat("x", 3000)), 2048, "read PATH: too large: 2.9 KiB (3000 bytes), over the cap of 2.0 KiB", ErrTooLarge},
		{"a symlink to a file over the cap", link(write("123456789")), 8, "read PATH: too large: 9 bytes, over the cap of 8 bytes", ErrTooLarge},
		{"a named pipe with no writer", fifo, -1, "open PATH: not a regular file (a named pipe)", ErrNotRegular},
		{"a symlink to a named pipe", link(fifo), -1, "open PATH: not a regular file (a named pipe)", ErrNotRegular},
		{"a directory", func(t *testing.T, path string) string {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}, -1, "open PATH: not a regular file (a directory)", ErrNotRegular},
		{"a character device", func(*testing.T, string) string { return "/dev/zero" }, -1, "open PATH: not a regular file (a character device)", ErrNotRegular},
		{"a symlink to /dev/zero", func(t *testing.T, path string) string {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
			return path
		}, 8, "open PATH: not a regular file (a character device)", ErrNotRegular},
		{"nothing", func(_ *testing.T, path string) string { return path }, -1, "open PATH: no such file", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.place(t, filepath.Join(t.TempDir(), "f"))
			b, fi, err := Read(path, tt.limit)
			if tt.is == nil {
				if err != nil || string(b) != tt.want || fi == nil || fi.Size() != int64(len(b)) {
					t.Fatalf("Read = %q, %v, %v; want %q", b, fi, err, tt.want)
				}
			} else if want := strings.ReplaceAll(tt.want, "PATH", path); !errors.Is(err, tt.is) || !strings.Contains(err.Error(), want) || b != nil {
				t.Fatalf("Read = %q, %v; want an error saying %q", b, err, want)
			}
			f, err := Open(path)
			if err == nil {
				f.Close()
			}
			if openRefuses := tt.is != nil && tt.is != ErrTooLarge; openRefuses != (err != nil) || (openRefuses && !errors.Is(err, tt.is)) {
				t.Fatalf("Open: %v; want %v", err, tt.is)
			}
		})
	}
}
