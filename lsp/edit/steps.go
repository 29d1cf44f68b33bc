package edit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
)

// step is one change to the disk with its inverse. do and undo are called
// from one goroutine; undo is only called after do succeeded.
type step interface {
	do(FS) error
	undo(FS) error
	String() string
}

// writeStep replaces (or creates) a file's content through a temporary
// file and a rename.
type writeStep struct {
	path    string
	data    []byte
	mode    fs.FileMode
	before  []byte // content expected on disk before, when existed
	existed bool
}

func (w *writeStep) String() string { return "write " + w.path }

func (w *writeStep) do(fsys FS) error {
	if w.existed {
		if err := unchanged(fsys, w.path, w.before); err != nil {
			return err
		}
	} else if _, err := fsys.Lstat(w.path); err == nil {
		return fmt.Errorf("%s: %w", w.path, ErrExists)
	}
	return writeAtomic(fsys, w.path, w.data, w.mode)
}

func (w *writeStep) undo(fsys FS) error {
	if !w.existed {
		return fsys.Remove(w.path)
	}
	return writeAtomic(fsys, w.path, w.before, w.mode)
}

// unchanged checks that path still has the content validation read, just
// before a step replaces or moves it. A file now over the read cap is
// changed too: validation read it under the cap.
func unchanged(fsys FS, path string, want []byte) error {
	cur, err := fsys.ReadFile(path)
	if errors.Is(err, regfile.ErrTooLarge) {
		return fmt.Errorf("%s: %w: %w", path, ErrChanged, err)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, want) {
		return fmt.Errorf("%s: %w", path, ErrChanged)
	}
	return nil
}

// writeAtomic writes data to a fresh temporary file next to path, sets its
// mode (the umask does not apply to Chmod) and renames it over path.
func writeAtomic(fsys FS, path string, data []byte, mode fs.FileMode) error {
	tmp := filepath.Join(filepath.Dir(path), hiddenName("tmp", path))
	if err := fsys.WriteFile(tmp, data, mode); err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	if err := fsys.Chmod(tmp, mode); err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	if err := fsys.Rename(tmp, path); err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	return nil
}

// mkdirStep creates a missing parent directory.
type mkdirStep struct{ path string }

func (m *mkdirStep) String() string     { return "mkdir " + m.path }
func (m *mkdirStep) do(fsys FS) error   { return fsys.Mkdir(m.path, 0o755) }
func (m *mkdirStep) undo(fsys FS) error { return fsys.Remove(m.path) }

// moveStep renames a file or directory; it refuses to replace anything,
// because a rename over an existing file cannot be undone.
type moveStep struct {
	from, to string
	// expect, when check is set, is the content the moved file must
	// still have.
	expect []byte
	check  bool
}

func (m *moveStep) String() string { return "move " + m.from + " to " + m.to }

func (m *moveStep) do(fsys FS) error {
	if m.check {
		if err := unchanged(fsys, m.from, m.expect); err != nil {
			return err
		}
	}
	if _, err := fsys.Lstat(m.to); err == nil {
		return fmt.Errorf("%s: %w", m.to, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fsys.Rename(m.from, m.to)
}

func (m *moveStep) undo(fsys FS) error { return fsys.Rename(m.to, m.from) }

// hiddenName returns a fresh name for a temporary or moved-aside copy of
// path, in the same directory so renames stay on one file system. It starts
// with a dot and does not end in path's extension, so that language servers
// and build tools watching "*.go" or "*.ts" ignore it.
func hiddenName(kind, path string) string {
	return ".acp-lsp-" + kind + "-" + filepath.Base(path) + "-" + randomHex()
}
