package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestRootMustBeFolder: a workspace root is an absolute path to a folder.
// A regular file, a symlink to one, a missing or a relative path is refused by AddRoot and NewManager
// (a file root was the deepest root of the files in its folder, a server's
// working directory, and every start failed with "not a directory").
func TestRootMustBeFolder(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "sub")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	linkToFile, linkToFolder := filepath.Join(dir, "file-link"), filepath.Join(dir, "folder-link")
	if err := os.Symlink(file, linkToFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(folder, linkToFolder); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, root string
		// refusal is what the error says; "" for a root taken.
		refusal string
	}{
		{"a folder", folder, ""},
		{"a symlink to a folder", linkToFolder, ""},
		{"a regular file", file, "not a folder"},
		{"a symlink to a file", linkToFile, "not a folder"},
		{"a missing path", filepath.Join(dir, "missing"), "no such file or directory"},
		{"a relative path", "sub", "not an absolute path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewManager(Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(t.Context())
			check := func(how string, err error) {
				t.Helper()
				if tt.refusal == "" && err != nil {
					t.Errorf("%s: %v", how, err)
				}
				if tt.refusal != "" && (err == nil || !strings.Contains(err.Error(), tt.refusal) || !strings.Contains(err.Error(), tt.root)) {
					t.Errorf("%s: %v, want an error naming %s and saying %q", how, err, tt.root, tt.refusal)
				}
			}
			check("AddRoot", m.AddRoot(tt.root))
			m2, err := NewManager(Options{Roots: []string{tt.root}})
			if err == nil {
				m2.Close(t.Context())
			}
			check("NewManager", err)
		})
	}
}

// TestRootTurnedFileServesNothing: a root that was a folder when added and
// is a regular file now is never a file's root: the file is served by a
// server rooted at the folder root above it, or is outside every root
// when there is none (it used to be the server's root, whose start then
// failed with "fork/exec …: not a directory").
func TestRootTurnedFileServesNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		// withParent adds the folder holding the file as a root too.
		withParent bool
	}{
		{"below a folder root", true},
		{"no other root", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			script := filepath.Join(t.TempDir(), "script.json")
			if err := fakelsp.WriteScript(script, fakelsp.Script{}); err != nil {
				t.Fatal(err)
			}
			cfg := ServerConfig{Name: "fake", Command: fakeBinary(t), Args: fakelsp.Args(script, filepath.Join(t.TempDir(), "record.jsonl")), Extensions: []string{"fk"}}
			m, err := NewManager(Options{Servers: []ServerConfig{cfg}, Timeouts: Timeouts{Request: Duration(time.Minute), Shutdown: Duration(300 * time.Millisecond), Idle: Duration(-1)}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(t.Context())
			turned := filepath.Join(dir, "x.fk")
			if err := os.Mkdir(turned, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := m.AddRoot(turned); err != nil {
				t.Fatal(err)
			}
			if tt.withParent {
				if err := m.AddRoot(dir); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Remove(turned); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(turned, []byte(fakeText), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = documentSymbols(t.Context(), m, turned)
			if !tt.withParent {
				if !errors.Is(err, ErrOutsideWorkspace) {
					t.Errorf("symbols: %v, want %v", err, ErrOutsideWorkspace)
				}
				if st := m.Servers(); len(st) != 0 {
					t.Errorf("servers %+v, want none", st)
				}
				return
			}
			if err != nil {
				t.Errorf("symbols: %v", err)
			}
			if st := m.Servers(); len(st) != 1 || st[0].Root != dir {
				t.Errorf("servers %+v, want one rooted at %s", st, dir)
			}
		})
	}
}
