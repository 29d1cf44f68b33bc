// Package regfile reads files whose names a repository controls, such as
// .acp-lsp.toml and .editorconfig. Such a name can be a symlink to a
// device (/dev/zero never ends), to a pipe (/dev/stdin is acp-lsp's own
// ACP input; a FIFO with no writer blocks whoever opens it) or to a huge
// file, so only a regular file is read, and never past a cap.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is the error of a name that is not a regular file once
// symlinks are followed.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the error of a file larger than the cap it is read with.
var ErrTooLarge = errors.New("file too large")

// Open opens name for reading when it is a regular file, following
// symlinks. The open does not block (O_NONBLOCK: a FIFO put in place of the
// file would block the open itself), and the opened file, not the name, is
// then checked, so nothing swapped in between a check and the open is
// read. Errors are *fs.PathError; one for a name that is not a regular file
// wraps ErrNotRegular and says what it is.
func Open(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, nil
}

// ReadFile reads the regular file name (see Open) whole. A file larger than
// limit bytes is refused with an error wrapping ErrTooLarge, after reading
// no more than limit+1 bytes.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (over %d bytes)", ErrTooLarge, limit)}
	}
	return b, nil
}

// kind names a file mode that is not regular for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.Type().String()
}
