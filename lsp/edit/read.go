package edit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
)

// DefaultMaxFileSize is the default cap on a workspace file that is read
// (to place a position, to show a result's line) or sent to a language
// server: 10 MiB. Larger files are generated data, not code an agent reads
// through a server (gopls type-checks a 12 MiB literal for seconds), and
// reading one costs its size in memory.
const DefaultMaxFileSize = 10 << 20

// ErrNotRegular is returned (wrapped) by ReadRegular for a path that is
// not a regular file: a folder, a named pipe, a device, a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what a *SizeError matches with errors.Is.
var ErrTooLarge = errors.New("file too large")

// SizeError is ReadRegular's error for a file over its cap; errors.Is
// matches ErrTooLarge.
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

// ReadRegular reads the regular file at path (following links), at most
// limit bytes (no cap when limit is negative), and returns its content and
// the FileInfo of the file it read. It is the one way a workspace file's
// content is read for a language server or a tool answer:
//
//   - it opens without blocking (O_NONBLOCK on Unix), so a named pipe
//     cannot hold it in open, and reads only what the opened file's own
//     stat says is a regular file: anything else is an error wrapping
//     ErrNotRegular that says what it is;
//   - a file over limit is a *SizeError from that stat, before anything is
//     read, and the read goes through a LimitReader, so a file growing
//     after the stat is still cut one byte past the cap (and refused).
func ReadRegular(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("read %s: %s, %w", path, fileKind(fi.Mode()), ErrNotRegular)
	}
	capped := limit >= 0 && limit < math.MaxInt64
	if capped && fi.Size() > limit {
		return nil, fi, &SizeError{Path: path, Size: fi.Size(), Limit: limit}
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
		return nil, fi, &SizeError{Path: path, Size: seen, Limit: limit}
	}
	return b, fi, nil
}

// fileKind names what a file that is not regular is.
func fileKind(m fs.FileMode) string {
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
