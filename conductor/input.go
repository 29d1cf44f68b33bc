package conductor

import (
	"io"
	"os"
)

// Input returns r as the client side's input for Options.In: a reader
// that Run can close to end a blocked read. When r is a pipe or a socket
// (*os.File) on a Unix system, as an editor's stdin is, it is read directly through the Go
// runtime's poller (the descriptor is duplicated and switched to
// non-blocking mode): no goroutine and no copy stand between the editor and
// the chain. Anything else (a terminal, a regular file, an io.Reader) is
// copied through an io.Pipe by a goroutine, since a blocking read of it
// cannot be interrupted.
func Input(r io.Reader) io.ReadCloser {
	if f, ok := r.(*os.File); ok {
		if in, ok := pollable(f); ok {
			return in
		}
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	return pr
}

// output returns w as the client side's output for Run: when w is a
// pipe or a socket (*os.File), as an editor's stdout is, a non-blocking
// duplicate of it, which the proxy writes with raw system calls and
// waits on through the Go runtime's poller (see proxy.Stream); anything
// else is returned as it is. restore puts the descriptor back into
// blocking mode, as the process found it (the flag belongs to the open
// file description, which whoever started acp-lsp may go on writing to
// after it ended), and closes w, as the chain closed it before it wrote
// through a duplicate.
func output(w io.Writer) (out io.Writer, restore func()) {
	f, ok := w.(*os.File)
	if !ok || sharesStderr(f) {
		return w, func() {}
	}
	nb, ok := pollable(f)
	if !ok {
		return w, func() {}
	}
	return nb, func() {
		nb.Close() // the chain closed it already, unless Run failed early
		setBlocking(f)
		f.Close()
	}
}

// sharesStderr reports whether f is the pipe or socket stderr also
// writes to (2>&1): the agent inherits stderr and writes to it in
// blocking mode, as acp-lsp's logs do, so it must not become
// non-blocking under them (a write would fail with EAGAIN).
func sharesStderr(f *os.File) bool {
	if f == os.Stderr {
		return true
	}
	a, err1 := f.Stat()
	b, err2 := os.Stderr.Stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
