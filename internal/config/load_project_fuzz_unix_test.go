//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// projectShape is how a fuzzed workspace holds its .acp-lsp.toml.
type projectShape byte

const (
	shapeFile         projectShape = iota // a regular file
	shapeLink                             // a symlink to a file in another folder
	shapeChain                            // a symlink to a symlink to a file
	shapeDangling                         // a symlink to nothing
	shapeLoop                             // a symlink to itself
	shapeDir                              // a folder
	shapeFIFO                             // a FIFO with no writer
	shapeDevice                           // a symlink to /dev/null
	shapeTrustedLink                      // a symlink to another project's trusted file
	shapeLinkedParent                     // a regular file in a folder reached through a symlink
	shapeHuge                             // a regular file one byte over MaxFileBytes
	shapeCount
)

// FuzzLoadProject loads a workspace whose project file has a fuzzed content,
// target name and shape (a file, symlinks of several kinds, a folder, a
// FIFO, a device, an oversized file), trusted in that folder or not and
// edited after or not. Load must return (never block or read without end),
// name the file in read errors, trust the file only when it was trusted in
// that folder with that content, apply no unsafe key of an untrusted file,
// and keep every safe value in its range.
func FuzzLoadProject(f *testing.F) {
	f.Add([]byte("[diagnostics]\ncache_files = 5\n"), "shared.toml", byte(shapeFile), true, false)
	f.Add([]byte(wrapProject), "a.toml", byte(shapeTrustedLink), false, false)
	f.Add([]byte(wrapProject), "a.toml", byte(shapeLink), true, true)
	f.Add([]byte("[tool]\npage_size = 1000\n"), "x", byte(shapeChain), false, false)
	f.Add([]byte("[tool]\nallow_raw_request = true\n"), "..", byte(shapeLinkedParent), true, false)
	for s := shapeDangling; s < shapeCount; s++ {
		f.Add([]byte("[diagnostics]\nwait_budget = \"1s\"\n"), "n", byte(s), s%2 == 0, false)
	}
	f.Fuzz(func(t *testing.T, content []byte, name string, shape byte, trust, edit bool) {
		root := t.TempDir()
		state := filepath.Join(root, "state")
		name = fuzzName(name)
		ws := filepath.Join(root, "ws")
		mkdir(t, ws)
		mkdir(t, filepath.Join(root, "other"))
		pf := filepath.Join(ws, ProjectFileName)
		target := pf // the regular file whose content the project file reads
		switch projectShape(shape % byte(shapeCount)) {
		case shapeFile:
			writeFile(t, pf, string(content))
		case shapeLink:
			target = filepath.Join(root, "other", name)
			writeFile(t, target, string(content))
			symlink(t, target, pf)
		case shapeChain:
			target = filepath.Join(root, "other", name)
			writeFile(t, target, string(content))
			symlink(t, target, target+".link")
			symlink(t, target+".link", pf)
		case shapeDangling:
			symlink(t, filepath.Join(root, "other", name), pf)
		case shapeLoop:
			symlink(t, ProjectFileName, pf)
		case shapeDir:
			mkdir(t, pf)
		case shapeFIFO:
			if err := syscall.Mkfifo(pf, 0o644); err != nil {
				t.Fatal(err)
			}
		case shapeDevice:
			symlink(t, os.DevNull, pf)
		case shapeTrustedLink:
			target = filepath.Join(root, "other", ProjectFileName)
			writeFile(t, target, string(content))
			if err := trustOnDisk(NewTrustStore(state), target, time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join("..", "other", ProjectFileName), pf)
		case shapeLinkedParent:
			real := filepath.Join(root, "other", name)
			mkdir(t, real)
			target = filepath.Join(real, ProjectFileName)
			writeFile(t, target, string(content))
			ws = filepath.Join(root, "linked")
			symlink(t, real, ws)
			pf = filepath.Join(ws, ProjectFileName)
		case shapeHuge:
			writeFile(t, pf, string(content)+"\n#"+strings.Repeat("x", MaxFileBytes))
		}
		trusted := false
		if trust {
			trusted = trustOnDisk(NewTrustStore(state), pf, time.Unix(0, 0)) == nil
		}
		if edit {
			if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
				appendTo(t, target, "\n# edited\n")
				trusted = false
			}
		}

		l, err := Load(Options{Workspace: ws, StateDir: state, Getenv: func(k string) string {
			if k == "HOME" {
				return root // no user file there
			}
			return ""
		}})
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "read project file") && !strings.Contains(msg, pf) {
				t.Fatalf("read error does not name %s: %v", pf, err)
			}
			return
		}
		if l.ProjectFile != pf {
			t.Fatalf("project file %s, want %s", l.ProjectFile, pf)
		}
		if l.ProjectTrust == TrustNoFile {
			if _, err := os.Stat(pf); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("no project file, but stat says %v", err)
			}
			return
		}
		if got := l.ProjectTrust == Trusted; got != trusted {
			t.Fatalf("trust %v, want trusted = %v (shape %d, trust %v, edit %v)", l.ProjectTrust, trusted, shape%byte(shapeCount), trust, edit)
		}
		for key, src := range l.Sources {
			if src.Kind == SourceProject && !trusted && !isSafeKey(key) {
				t.Fatalf("untrusted project file applied %s", key)
			}
		}
		checkRanges(t, l.Config)
	})
}

// fuzzName makes a file name of s: its letters, digits and ._- only.
func fuzzName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, s)
	if len(s) > 40 {
		s = s[:40]
	}
	if strings.Trim(s, ".") == "" || s == ProjectFileName {
		return "t"
	}
	return s
}

// isSafeKey reports whether an untrusted project file may set key.
func isSafeKey(key string) bool {
	for _, l := range leaves() {
		if l.key == key {
			return l.field.Tag.Get("safe") == "true"
		}
	}
	return false
}

// checkRanges fails when an option is past its max tag.
func checkRanges(t *testing.T, cfg Config) {
	t.Helper()
	for _, l := range leaves() {
		m := l.field.Tag.Get("max")
		if m == "" {
			continue
		}
		v := reflect.ValueOf(cfg).FieldByIndex(l.index)
		switch x := v.Interface().(type) {
		case time.Duration:
			if hi, _ := time.ParseDuration(m); x > hi {
				t.Fatalf("%s = %v, over its max %s", l.key, x, m)
			}
		case int:
			if hi, _ := strconv.Atoi(m); x > hi {
				t.Fatalf("%s = %d, over its max %s", l.key, x, m)
			}
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
