//go:build unix

package edit

import (
	"os"
	"syscall"
)

// openFlags open a file for ReadRegular: without blocking, so opening a
// named pipe returns at once instead of waiting for a writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
