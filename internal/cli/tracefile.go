package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// createTrace opens the trace file (log.trace_file) for writing; see
// createPrivate.
func createTrace(path string) (*os.File, error) { return createPrivate(path, os.Geteuid()) }

// createPrivate opens path for a trace of user uid, which holds every
// message, credentials included, so no other local user may read it, in
// a folder like /tmp where they may have put something at path first.
//
// A file, or nothing, at path is replaced by a new file, mode 0600,
// renamed into place: whoever had the old one open (it may have been
// readable by all) reads none of the new trace, and a hard link to
// another file leaves that file alone. A symbolic link is refused,
// neither followed nor replaced. A named pipe is written to in place when
// it is uid's (someone else's would hand the trace on) and has a reader
// (one without is refused at once rather than waited for), a device always
// (only root makes those); anything else is refused.
func createPrivate(path string, uid int) (*os.File, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Mode().IsRegular():
		return replaceFile(path)
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link: give the path of the file itself", path)
	}
	if !inPlace(fi, uid) {
		return nil, fmt.Errorf("%s is not a file, nor a pipe or device of yours", path)
	}
	// inPlaceFlags and the second look: path may have changed since Lstat.
	f, err := os.OpenFile(path, os.O_WRONLY|inPlaceFlags, 0)
	if noReader(err) && fi.Mode()&fs.ModeNamedPipe != 0 {
		return nil, fmt.Errorf("%s: a named pipe with no reader: start its reader first", path)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !inPlace(fi, uid) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", path)
	}
	// A write must wait for a slow reader, not fail with EAGAIN and lose
	// part of the trace. The runtime's poller waits for it (and Close
	// wakes it); where the file is not in the poller (no deadlines: a
	// pipe on macOS, /dev/null), the descriptor blocks again.
	if err := f.SetWriteDeadline(time.Time{}); errors.Is(err, os.ErrNoDeadline) {
		if err := setBlocking(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return f, nil
}

// inPlace reports whether the trace may be written to fi as it is: a
// named pipe of uid's, or a device.
func inPlace(fi fs.FileInfo, uid int) bool {
	switch m := fi.Mode(); {
	case m&fs.ModeDevice != 0:
		return true
	case m&fs.ModeNamedPipe != 0:
		return ownedBy(fi, uid)
	}
	return false
}

// replaceFile creates a new file, mode 0600, and renames it to path.
func replaceFile(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}
