package filewatch

import (
	"encoding/binary"
	"fmt"
)

// parseInotify walks a buffer of struct inotify_event records (wd int32,
// mask uint32, cookie uint32, len uint32, then len bytes of NUL-padded
// name), calling fn for each; it stops with an error at a record that
// does not fit in the buffer.
func parseInotify(b []byte, fn func(wd int32, mask uint32, name string)) error {
	const header = 16
	for len(b) > 0 {
		if len(b) < header {
			return fmt.Errorf("inotify: %d stray bytes", len(b))
		}
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		n := binary.NativeEndian.Uint32(b[12:])
		if uint64(n) > uint64(len(b)-header) {
			return fmt.Errorf("inotify: name of %d bytes in a record of %d", n, len(b)-header)
		}
		name := b[header : header+int(n)]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		fn(wd, mask, string(name))
		b = b[header+int(n):]
	}
	return nil
}
