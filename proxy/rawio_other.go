//go:build !linux

package proxy

// rawFile is only used on Linux (see rawio_linux.go); elsewhere streams
// use os.File's own reads and writes.
type rawFile struct {
	idle func()
}

func newRawFile(any) *rawFile { return nil }

func (*rawFile) Read([]byte) (int, error)  { panic("proxy: rawFile on this platform") }
func (*rawFile) Write([]byte) (int, error) { panic("proxy: rawFile on this platform") }
