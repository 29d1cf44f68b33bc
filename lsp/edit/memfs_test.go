package edit

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"
)

// memFS is a file system in memory for the boundary's rules: folders,
// files, symbolic links, Windows junctions (mount points: os.Lstat says
// ModeIrregular, not a folder, and os.Readlink reads their target) and
// other irregular entries Readlink cannot read (a OneDrive placeholder),
// with names compared with or without case (and normalization). It
// implements linkFS and boundaryFS.
type memFS struct {
	fold  bool // names compare without case (macOS' and Windows' default volumes)
	nodes map[string]*memNode
}

type memNode struct {
	name   string // as created
	mode   fs.FileMode
	target string // a link's
	id     int    // the node's identity (its inode)
}

// newMemFS makes the entries (absolute slash path → "dir", "file",
// "link TARGET", "junction TARGET" or "irregular"); folders above each
// are made too.
func newMemFS(t *testing.T, fold bool, entries map[string]string) *memFS {
	t.Helper()
	m := &memFS{fold: fold, nodes: map[string]*memNode{}}
	m.add("/", fs.ModeDir, "")
	for p, spec := range entries {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := m.nodes[m.key(d)]; !ok {
				m.add(d, fs.ModeDir, "")
			}
		}
		kind, target, _ := strings.Cut(spec, " ")
		switch kind {
		case "dir":
			m.add(p, fs.ModeDir, "")
		case "file":
			m.add(p, 0, "")
		case "link":
			m.add(p, fs.ModeSymlink, target)
		case "junction":
			m.add(p, fs.ModeIrregular, target)
		case "irregular":
			m.add(p, fs.ModeIrregular, "")
		default:
			t.Fatalf("memFS: %s: unknown entry %q", p, spec)
		}
	}
	return m
}

func (m *memFS) key(p string) string {
	if m.fold {
		// APFS also takes a name in either Unicode normalization: the
		// one decomposition the tests use, é as e and U+0301, is folded.
		return strings.ReplaceAll(strings.ToLower(p), "e\u0301", "\u00e9")
	}
	return p
}

func (m *memFS) add(p string, mode fs.FileMode, target string) {
	m.nodes[m.key(p)] = &memNode{name: path.Base(p), mode: mode, target: target, id: len(m.nodes) + 1}
}

// Lstat looks name up; the folders above it are taken as resolved (all
// the walk and the boundary ask).
func (m *memFS) Lstat(name string) (fs.FileInfo, error) {
	n, ok := m.nodes[m.key(path.Clean(name))]
	if !ok {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
	}
	return memInfo{n}, nil
}

func (m *memFS) Readlink(name string) (string, error) {
	n, ok := m.nodes[m.key(path.Clean(name))]
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrNotExist}
	}
	if n.target == "" {
		// What os.Readlink answers for a reparse point of another kind.
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return n.target, nil
}

func (m *memFS) EvalSymlinks(p string) (string, error) { return evalLinks(m, p) }

func (m *memFS) SameFile(a, b fs.FileInfo) bool {
	x, ok1 := a.(memInfo)
	y, ok2 := b.(memInfo)
	return ok1 && ok2 && x.n == y.n
}

type memInfo struct{ n *memNode }

func (i memInfo) Name() string       { return i.n.name }
func (i memInfo) Size() int64        { return 0 }
func (i memInfo) Mode() fs.FileMode  { return i.n.mode }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.n.mode.IsDir() }
func (i memInfo) Sys() any           { return i.n.id }

// errIs reports whether err is target, or for a nil target no error.
func errIs(err, target error) bool {
	if target == nil {
		return err == nil
	}
	return errors.Is(err, target)
}
