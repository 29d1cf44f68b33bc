//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openFlags open a file without blocking, so opening a named pipe returns
// at once instead of waiting for a writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
