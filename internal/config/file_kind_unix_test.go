//go:build unix

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestConfigFileMustBeRegular: the user file and the project file are read
// only when they are regular files of at most MaxFileBytes. A symlink to
// /dev/zero would be read until memory runs out, a FIFO would block the
// open forever, and a file over the cap is refused, each with an error
// naming the file; a file of exactly the cap loads.
func TestConfigFileMustBeRegular(t *testing.T) {
	atCap := "# " + strings.Repeat("x", MaxFileBytes-3) + "\n"
	tests := []struct {
		name  string
		place func(t *testing.T, path string)
		want  string // in the error; "" for none
	}{
		{"a symlink to /dev/zero", func(t *testing.T, path string) { symlink(t, "/dev/zero", path) }, "not a regular file (a character device)"},
		{"a FIFO with no writer", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a named pipe)"},
		{"a directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a directory)"},
		{"a file over the cap", func(t *testing.T, path string) { writeFile(t, path, atCap+"\n") }, fmt.Sprintf("too large: 1.0 MiB (%d bytes), over the cap of 1.0 MiB", MaxFileBytes+1)},
		{"a symlink to a file over the cap", func(t *testing.T, path string) {
			writeFile(t, path+".real", atCap+"#")
			symlink(t, path+".real", path)
		}, fmt.Sprintf("too large: 1.0 MiB (%d bytes), over the cap of 1.0 MiB", MaxFileBytes+1)},
		{"a file of exactly the cap", func(t *testing.T, path string) { writeFile(t, path, atCap) }, ""},
	}
	for _, tt := range tests {
		for _, which := range []string{"user file", "project file"} {
			t.Run(which+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				opts := Options{StateDir: filepath.Join(dir, "state"), Getenv: func(k string) string {
					if k == "HOME" {
						return dir
					}
					return ""
				}}
				var path string
				if which == "user file" {
					path = filepath.Join(dir, "config.toml")
					opts.UserFile = path
				} else {
					opts.Workspace = filepath.Join(dir, "ws")
					if err := os.Mkdir(opts.Workspace, 0o755); err != nil {
						t.Fatal(err)
					}
					path = filepath.Join(opts.Workspace, ProjectFileName)
				}
				tt.place(t, path)
				_, err := Load(opts)
				switch {
				case tt.want == "" && err != nil:
					t.Fatalf("load: %v", err)
				case tt.want == "":
				case err == nil:
					t.Fatalf("loaded, want an error saying %q", tt.want)
				case !strings.Contains(err.Error(), path+": "+tt.want):
					t.Fatalf("error does not say %q of %s:\n%v", tt.want, path, err)
				}
			})
		}
	}
}
