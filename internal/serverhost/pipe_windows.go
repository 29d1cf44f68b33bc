package serverhost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The host listens on a named pipe of its own making rather than
// go-winio's listener: winio creates its first instance without read or
// write access, which Windows keeps from clients but Wine 8 connects the
// first client to, so under Wine (where the Windows tests run) the first
// call hangs for good. Go's os.NewFile takes an overlapped handle into the
// runtime's I/O completion port, so a connected instance is an *os.File.

// pipeBuffer is each pipe instance's in and out buffer size.
const pipeBuffer = 64 << 10

// pipeAddr is a named pipe's address.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

// pipeConn is one connected pipe instance.
type pipeConn struct {
	*os.File
	name string
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.name) }

// pipeListener serves a named pipe: one instance waits for a client at a
// time; once one connects, the next is made.
type pipeListener struct {
	name string
	sa   *windows.SecurityAttributes
	stop windows.Handle // set by Close: ends a waiting Accept

	mu        sync.Mutex
	h         windows.Handle // the instance waiting for a client
	accepting bool
	closed    bool
}

// listen makes the named pipe of socket (pipeName): only the user (its
// SID, with no other entry and nothing inherited) may open it, clients on
// other machines are refused, and the name must be free (a pipe someone
// made first is never served).
func listen(socket string) (net.Listener, error) {
	name, err := pipeName(socket)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	own, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + own.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", name, err)
	}
	l := &pipeListener{name: name, sa: &windows.SecurityAttributes{
		Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}}
	if l.h, err = l.instance(true); err != nil {
		return nil, fmt.Errorf("listen %s: %w", name, err)
	}
	if l.stop, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(l.h)
		return nil, fmt.Errorf("listen %s: %w", name, err)
	}
	return l, nil
}

// instance makes a pipe instance, the first one or a further one.
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return 0, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	return windows.CreateNamedPipe(name, flags,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
}

// Accept waits for a client on the waiting instance and returns it
// connected, with the next instance waiting.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.accepting = true
	h := l.h
	l.mu.Unlock()
	err := l.connect(h)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accepting = false
	if err == nil && !l.closed {
		var next windows.Handle
		if next, err = l.instance(false); err == nil {
			l.h = next
			return &pipeConn{File: os.NewFile(uintptr(h), l.name), name: l.name}, nil
		}
	}
	if l.closed {
		err = net.ErrClosed
	}
	windows.CloseHandle(h)
	windows.CloseHandle(l.stop)
	l.h = 0
	l.closed = true
	return nil, fmt.Errorf("accept %s: %w", l.name, err)
}

// connect waits for a client to connect to h, or for Close.
func (l *pipeListener) connect(h windows.Handle) error {
	for {
		ev, err := windows.CreateEvent(nil, 1, 0, nil)
		if err != nil {
			return err
		}
		ov := windows.Overlapped{HEvent: ev}
		err = windows.ConnectNamedPipe(h, &ov)
		if err == windows.ERROR_IO_PENDING {
			var w uint32
			w, err = windows.WaitForMultipleObjects([]windows.Handle{ev, l.stop}, false, windows.INFINITE)
			if err == nil && w == windows.WAIT_OBJECT_0+1 {
				windows.CancelIoEx(h, &ov)
			}
			var n uint32
			err = windows.GetOverlappedResult(h, &ov, &n, true)
		}
		windows.CloseHandle(ev)
		switch err {
		case nil, windows.ERROR_PIPE_CONNECTED:
			return nil
		case windows.ERROR_NO_DATA:
			// The client came and went before it was seen: wait for the next.
			windows.DisconnectNamedPipe(h)
			continue
		}
		return err
	}
}

// Close stops listening: the waiting instance closes, so once every
// connected one is closed too the pipe's name is free.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	windows.SetEvent(l.stop)
	if !l.accepting { // else Accept closes them as it returns
		windows.CloseHandle(l.h)
		windows.CloseHandle(l.stop)
		l.h = 0
	}
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// waitNamedPipe is WaitNamedPipeW, which x/sys/windows does not have.
var waitNamedPipe = windows.NewLazySystemDLL("kernel32.dll").NewProc("WaitNamedPipeW")

// pipeWait bounds one wait for a free instance of a busy pipe (all taken
// for the moment between a client's connect and the host's next
// instance); ctx bounds the whole dial.
const pipeWait = time.Second

// dial connects to the host's named pipe of socket, and refuses a pipe
// served by a process of another user (one who made the name first). The
// host may only identify the client, never act as it.
func dial(ctx context.Context, socket string) (net.Conn, error) {
	name, err := pipeName(socket)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", name, err)
	}
	for {
		h, err := windows.CreateFile(name16, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == nil {
			c := &pipeConn{File: os.NewFile(uintptr(h), name), name: name}
			if err := checkPeer(c, true); err != nil {
				c.Close()
				return nil, fmt.Errorf("dial %s: %w", name, err)
			}
			return c, nil
		}
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("dial %s: %w", name, &os.PathError{Op: "open", Path: name, Err: err})
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dial %s: %w", name, err)
		}
		// Blocks until an instance is free (or the pipe is gone, or the
		// wait ends); then the open is tried again.
		waitNamedPipe.Call(uintptr(unsafe.Pointer(name16)), uintptr(pipeWait/time.Millisecond))
	}
}
