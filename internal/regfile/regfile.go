// Package regfile reads files whose names acp-lsp does not control: a
// repository's .acp-lsp.toml and .editorconfig, the workspace files the
// tool places positions in and sends to language servers, and any path a
// server's answer names. Such a name can be a symlink to a device
// (/dev/zero never ends), to a pipe (/dev/stdin is acp-lsp's own ACP input;
// a FIFO with no writer blocks whoever opens it) or to a huge file, so only
// a regular file is read, and never past a cap.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// ErrNotRegular is the error of a name that is not a regular file once
// symlinks are followed.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what a *SizeError matches with errors.Is.
var ErrTooLarge = errors.New("file too large")

// SizeError is Read's error for a file over its cap; errors.Is matches
// ErrTooLarge.
type SizeError struct {
	Path string
	// Size is the file's size in bytes; for a file that grew past the cap
	// while it was read, the size seen last.
	Size int64
	// Limit is the cap.
	Limit int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("read %s: too large: %s, over the cap of %s", e.Path, SizeAndBytes(e.Size), ByteSize(e.Limit))
}

// Unwrap returns ErrTooLarge.
func (e *SizeError) Unwrap() error { return ErrTooLarge }

// Open opens name for reading when it is a regular file, following
// symlinks. The open does not block (O_NONBLOCK on Unix: a FIFO put in
// place of the file would block the open itself), and the opened file, not
// the name, is then checked, so nothing swapped in between a check and the
// open is read. Errors are *fs.PathError; one for a name that is not a
// regular file wraps ErrNotRegular and says what it is.
func Open(name string) (*os.File, error) {
	f, _, err := open(name)
	return f, err
}

// open is Open that also returns the opened file's stat (with the error
// of a file that is not regular, too).
func open(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, fi, nil
}

// Read reads the regular file name (see Open) whole, at most limit bytes
// (no cap when limit is negative), and returns its content and the
// FileInfo of the file it read (with the error of a file that is not
// regular or too large, too). A file over limit is a *SizeError from the
// opened file's stat, before anything is read, and the read goes through a
// LimitReader, so a file growing after the stat is still cut one byte past
// the cap (and refused).
func Read(name string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := open(name)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	capped := limit >= 0 && limit < math.MaxInt64
	if capped && fi.Size() > limit {
		return nil, fi, &SizeError{Path: name, Size: fi.Size(), Limit: limit}
	}
	// Sized from the stat, as os.ReadFile is, with a byte to spare to
	// see the end.
	size := max(fi.Size()+1, 512)
	var r io.Reader = f
	if capped {
		r = io.LimitReader(f, limit+1)
		size = min(size, limit+1)
	}
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fi, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
	if capped && int64(len(b)) > limit {
		seen := int64(len(b))
		if st, err := f.Stat(); err == nil {
			seen = max(seen, st.Size())
		}
		return nil, fi, &SizeError{Path: name, Size: seen, Limit: limit}
	}
	return b, fi, nil
}

// kind names what a file that is not regular is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file (" + m.Type().String() + ")"
}

// ByteSize says n bytes as a person reads it: 217 bytes, 4.0 KiB, 12.0 MiB.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// SizeAndBytes is ByteSize with the exact count beside a rounded one:
// 12.0 MiB (12582929 bytes).
func SizeAndBytes(n int64) string {
	s := ByteSize(n)
	if n >= 1<<10 {
		s += fmt.Sprintf(" (%d bytes)", n)
	}
	return s
}
