package cli

import (
	"io/fs"
	"os"
)

// inPlaceFlags is 0: Windows' open has neither O_NOFOLLOW nor O_NONBLOCK
// (the symbolic link is still refused by the Lstat before, and a named
// pipe is never written in place, see ownedBy).
const inPlaceFlags = 0

// noReader reports false: named pipes are not opened on Windows.
func noReader(error) bool { return false }

// setBlocking has nothing to clear: the file was opened blocking.
func setBlocking(*os.File) error { return nil }

// ownedBy reports false: a named pipe's owner is in its security
// descriptor, which is not read yet, so the trace is not handed to a pipe
// that may be someone else's.
func ownedBy(fs.FileInfo, int) bool { return false }
