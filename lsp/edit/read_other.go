//go:build !unix

package edit

import "os"

// openFlags open a file for ReadRegular.
const openFlags = os.O_RDONLY
