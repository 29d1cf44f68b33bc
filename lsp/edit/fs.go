package edit

import (
	"io/fs"
	"os"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
)

// FS is the file system seam Apply works through. OS is the real one;
// tests wrap it to inject failures at any step. Apply calls it from one
// goroutine at a time.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// WriteFile creates name (it never exists: Apply only writes fresh
	// temporary files) with data.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Chmod(name string, mode fs.FileMode) error
	// Rename moves oldpath to newpath, replacing a file at newpath.
	Rename(oldpath, newpath string) error
	Remove(name string) error
	RemoveAll(name string) error
	Mkdir(name string, perm fs.FileMode) error
	EvalSymlinks(path string) (string, error)
}

// OS is the operating system's file system.
type OS struct {
	// MaxFileSize is the largest file ReadFile reads, in bytes (0:
	// DefaultMaxFileSize; negative: no cap). A file the edit names can be
	// anything a language server's answer says, a 2 GiB data file too.
	MaxFileSize int64
}

// Lstat calls os.Lstat.
func (OS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// ReadFile reads name with regfile.Read: a regular file only, opened
// without blocking, and one over MaxFileSize is a *regfile.SizeError from
// its size alone, before anything is read.
func (o OS) ReadFile(name string) ([]byte, error) {
	limit := o.MaxFileSize
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	b, _, err := regfile.Read(name, limit)
	return b, err
}

// ReadDir calls os.ReadDir.
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// WriteFile creates name exclusively, writes data and syncs it, so that the
// rename that follows publishes complete content.
func (OS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Chmod calls os.Chmod.
func (OS) Chmod(name string, mode fs.FileMode) error { return os.Chmod(name, mode) }

// Rename calls os.Rename.
func (OS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove calls os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// RemoveAll calls os.RemoveAll.
func (OS) RemoveAll(name string) error { return os.RemoveAll(name) }

// Mkdir calls os.Mkdir.
func (OS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

// EvalSymlinks calls EvalLinks: filepath.EvalSymlinks, with Windows'
// junctions followed too.
func (OS) EvalSymlinks(path string) (string, error) { return EvalLinks(path) }

// SameFile calls os.SameFile.
func (OS) SameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
