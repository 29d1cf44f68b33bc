//go:build !unix

package regfile

import "os"

// openFlags open a file for reading; the opened file's stat refuses what
// is not a regular file.
const openFlags = os.O_RDONLY
