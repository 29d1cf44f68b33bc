//go:build linux

package proxy

import (
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// rawFile reads or writes a non-blocking pipe or socket (*os.File, in
// the Go runtime's poller) with raw system calls.
//
// Why not os.File.Read/Write: every ordinary system call goes through
// the runtime's entersyscall, which wakes the sysmon thread whenever the
// process was idle, and sysmon then polls every 20 µs for the next
// millisecond or more. A proxy idles between bursts all the time, so
// that polling alone cost a fifth of its CPU per forwarded message. A
// read or write of a non-blocking descriptor returns at once, so it may
// be raw; waiting is left to the poller (syscall.RawConn), as os.File
// does.
//
// A read also tells apart "nothing buffered in the kernel" from "some
// bytes came": idle runs only when the read would wait, not whenever the
// line reader's buffer is empty, so a writer that keeps the pipe full is
// forwarded with fewer, larger writes.
//
// A read is always tried before waiting, even right after a short read
// emptied the kernel's buffer: os's RawConn.Read resets the descriptor's
// readiness on entry, so an edge that came meanwhile is forgotten, and
// waiting first could wait forever on a pipe that is full again (tried:
// TestLentMessagesQueued hung, writer and reader both in IO wait).
type rawFile struct {
	f    *os.File
	rc   syscall.RawConn
	idle func() // called before a read waits (see Stream.OnIdle)
}

// newRawFile returns x as a rawFile when it is an *os.File whose
// descriptor is non-blocking (os.Pipe, conductor.Input, an editor's
// socket), else nil: a blocking descriptor must not be read raw, since
// the read could hold the runtime's processor for as long as it waits.
// So nothing may call the file's Fd while a stream uses it: Fd puts the
// descriptor into blocking mode.
func newRawFile(x any) *rawFile {
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return nil
	}
	// Only a file in the poller can wait for input or room; clearing the
	// deadlines fails for any other.
	if f.SetDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) {
		fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblock = e == 0 && fl&syscall.O_NONBLOCK != 0
	}); err != nil || !nonblock {
		return nil
	}
	return &rawFile{f: f, rc: rc}
}

// Read implements io.Reader.
func (r *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	// With an idle hook, the first attempt does not wait: the hook runs
	// between the attempts, outside the callback, which holds the
	// descriptor. The hook flushes, and a flush may wait for a peer that
	// does not read: holding the descriptor then, a Close of this file
	// (the chain ending) would wait for it forever.
	wait := r.idle == nil
	var err error
	for {
		wouldBlock := false
		err = r.rc.Read(func(fd uintptr) bool {
			for {
				x, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
				switch e {
				case syscall.EINTR:
					continue
				case syscall.EAGAIN:
					if !wait {
						wouldBlock = true
						return true
					}
					return false // the poller waits for input
				}
				n, errno = int(x), e
				return true
			}
		})
		if !wouldBlock || err != nil {
			break
		}
		r.idle()
		wait = true
	}
	if (err != nil || errno != 0 || n == 0) && r.idle != nil {
		// No more input: the caller may now wait for something else
		// (Process.Read for the child's exit), so what was forwarded
		// goes out first.
		r.idle()
	}
	switch {
	case err != nil:
		// RawConn fails only when the file is closed (no deadlines are set).
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: os.ErrClosed}
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write implements io.Writer: it returns when all of p is written or an
// error occurred, waiting in the poller while the pipe is full.
func (r *rawFile) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := r.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			x, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(x)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the poller waits for room
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, &os.PathError{Op: "write", Path: r.f.Name(), Err: os.ErrClosed}
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: r.f.Name(), Err: errno}
	}
	return n, nil
}
