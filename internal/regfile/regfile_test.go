package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFile: only a regular file of at most the cap is read; anything
// else is an error naming the file that errors.Is tells apart, returned
// without blocking.
func TestReadFile(t *testing.T) {
	const limit = 8
	tests := []struct {
		name  string
		place func(t *testing.T, path string) error
		want  error // nil: reads "12345678"
	}{
		{"a regular file at the cap", func(t *testing.T, path string) error {
			return os.WriteFile(path, []byte("12345678"), 0o644)
		}, nil},
		{"a symlink to a regular file", func(t *testing.T, path string) error {
			if err := os.WriteFile(path+".real", []byte("12345678"), 0o644); err != nil {
				return err
			}
			return os.Symlink(path+".real", path)
		}, nil},
		{"a file over the cap", func(t *testing.T, path string) error {
			return os.WriteFile(path, []byte("123456789"), 0o644)
		}, ErrTooLarge},
		{"a FIFO with no writer", func(t *testing.T, path string) error { return syscall.Mkfifo(path, 0o644) }, ErrNotRegular},
		{"a directory", func(t *testing.T, path string) error { return os.Mkdir(path, 0o755) }, ErrNotRegular},
		{"a symlink to /dev/zero", func(t *testing.T, path string) error { return os.Symlink("/dev/zero", path) }, ErrNotRegular},
		{"nothing", func(t *testing.T, path string) error { return nil }, os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if err := tt.place(t, path); err != nil {
				t.Fatal(err)
			}
			b, err := ReadFile(path, limit)
			switch {
			case tt.want == nil && (err != nil || string(b) != "12345678"):
				t.Fatalf("read %q, %v; want the content", b, err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("read %q, %v; want %v", b, err, tt.want)
			case err != nil && !strings.Contains(err.Error(), path+": "):
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}
