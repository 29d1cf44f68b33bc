//go:build unix

package conductor

import (
	"os"
	"syscall"
)

// pollable returns a non-blocking duplicate of f when f is a pipe or a
// socket. The O_NONBLOCK flag belongs to the open file description, which
// only this process reads (children get their own pipes).
func pollable(f *os.File) (*os.File, bool) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil, false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	nfd := -1
	if err := sc.Control(func(fd uintptr) {
		d, err := syscall.Dup(int(fd))
		if err != nil {
			return
		}
		syscall.CloseOnExec(d)
		if err := syscall.SetNonblock(d, true); err != nil {
			syscall.Close(d)
			return
		}
		nfd = d
	}); err != nil || nfd < 0 {
		return nil, false
	}
	// NewFile sees the non-blocking descriptor and registers it with the
	// poller, so Close makes a blocked Read return.
	return os.NewFile(uintptr(nfd), f.Name()), true
}

// setBlocking puts f's descriptor back into blocking mode.
func setBlocking(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
	}
}
