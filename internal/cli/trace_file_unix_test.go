//go:build unix

package cli

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTraceFileHostile: the trace (every message, credentials included)
// goes to a file only its owner can read, whatever another local user
// left at its path: an old trace readable by all, possibly held open; a
// symbolic or hard link to a file of ours; a pipe of theirs. What acp-lsp
// is given to write to in place (its own pipe, a device) is used as it is.
func TestTraceFileHostile(t *testing.T) {
	me := os.Geteuid()
	const old, victim = "old trace\n", "victim\n"
	write := func(t *testing.T, path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	same := func(t *testing.T, path, want string) {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
		}
	}
	for _, tc := range []struct {
		name string
		// prepare sets up path in the folder dir and returns what to
		// check once the trace was written, or refused.
		prepare func(t *testing.T, dir, path string) func(t *testing.T)
		uid     int  // whose the trace is
		file    bool // the trace goes to a new private file at path
		refused bool
	}{
		{
			name:    "nothing there",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) { return nil },
			uid:     me, file: true,
		},
		{
			// Another user opened it while it was readable: they must
			// read nothing of the new trace.
			name: "an old trace readable by all, held open by a reader",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				write(t, path, old, 0o644)
				r, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				return func(t *testing.T) {
					if b, _ := io.ReadAll(r); string(b) != old {
						t.Errorf("the reader of the old file read %q", b)
					}
				}
			},
			uid: me, file: true,
		},
		{
			name: "a symbolic link to a file of ours",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				v := filepath.Join(dir, "victim")
				write(t, v, victim, 0o600)
				if err := os.Symlink(v, path); err != nil {
					t.Fatal(err)
				}
				return func(t *testing.T) { same(t, v, victim) }
			},
			uid: me, refused: true,
		},
		{
			name: "a symbolic link to nothing yet",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				v := filepath.Join(dir, "planted")
				if err := os.Symlink(v, path); err != nil {
					t.Fatal(err)
				}
				return func(t *testing.T) {
					if _, err := os.Lstat(v); !os.IsNotExist(err) {
						t.Errorf("the link's target was created (%v)", err)
					}
				}
			},
			uid: me, refused: true,
		},
		{
			name: "a hard link to a file of ours",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				v := filepath.Join(dir, "victim")
				write(t, v, victim, 0o600)
				if err := os.Link(v, path); err != nil {
					t.Fatal(err)
				}
				return func(t *testing.T) { same(t, v, victim) }
			},
			uid: me, file: true,
		},
		{
			name: "someone else's pipe, with a reader",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				r := fifo(t, path)
				return func(t *testing.T) {
					if b, _ := io.ReadAll(r); len(b) > 0 {
						t.Errorf("someone else's pipe got %q", b)
					}
				}
			},
			uid: me + 1, refused: true,
		},
		{
			name: "our own pipe, with a reader",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) {
				r := fifo(t, path)
				return func(t *testing.T) {
					if b, _ := io.ReadAll(r); string(b) != "new trace\n" {
						t.Errorf("our pipe got %q", b)
					}
				}
			},
			uid: me,
		},
		{
			name:    "a folder",
			prepare: func(t *testing.T, dir, path string) func(t *testing.T) { return nil },
			uid:     me, refused: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "trace.ndjson")
			if tc.name == "a folder" {
				path = dir
			}
			check := tc.prepare(t, dir, path)
			f, err := createPrivate(path, tc.uid)
			if tc.refused {
				if err == nil {
					f.Close()
					t.Fatal("accepted")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString("new trace\n"); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			if tc.file {
				fi, err := os.Lstat(path)
				if err != nil {
					t.Fatal(err)
				}
				if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
					t.Errorf("the trace is %v, want a file only its owner reads (-rw-------)", fi.Mode())
				}
				same(t, path, "new trace\n")
			}
			if check != nil {
				check(t)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name()[0] == '.' {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// fifo makes a named pipe at path and opens its reading end (without
// waiting for a writer); the end is closed when the test ends.
func fifo(t *testing.T, path string) *os.File {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
