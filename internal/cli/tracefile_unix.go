//go:build unix

package cli

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// inPlaceFlags open a pipe or device in place: O_NOFOLLOW, as path may
// have changed since Lstat; O_NONBLOCK, as opening a pipe for writing
// waits for a reader, which would hold acp-lsp's start for good; without
// one it fails (ENXIO, see noReader).
const inPlaceFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// noReader reports whether err is the failure of opening a named pipe
// with no reader.
func noReader(err error) bool { return errors.Is(err, syscall.ENXIO) }

// setBlocking clears f's O_NONBLOCK.
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

// ownedBy reports whether uid owns fi.
func ownedBy(fi fs.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}
