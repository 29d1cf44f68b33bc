//go:build unix

package conductor

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestInput: over a pipe, reads go straight through and Close ends a
// blocked read; over any other reader, the copy does the same.
func TestInput(t *testing.T) {
	pipe := func(t *testing.T) (io.Reader, io.WriteCloser) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r, w
	}
	ioPipe := func(t *testing.T) (io.Reader, io.WriteCloser) {
		r, w := io.Pipe()
		t.Cleanup(func() { r.Close(); w.Close() })
		return struct{ io.Reader }{r}, w
	}
	for name, mk := range map[string]func(*testing.T) (io.Reader, io.WriteCloser){"os pipe": pipe, "other reader": ioPipe} {
		t.Run(name, func(t *testing.T) {
			src, w := mk(t)
			in := Input(src)
			if f, isFile := src.(*os.File); isFile {
				if _, direct := in.(*os.File); !direct {
					t.Fatalf("Input(%s) = %T, want a pollable *os.File", f.Name(), in)
				}
			}
			go io.WriteString(w, "hello\n")
			buf := make([]byte, 6)
			if _, err := io.ReadFull(in, buf); err != nil || string(buf) != "hello\n" {
				t.Fatalf("read %q, %v", buf, err)
			}
			// A read blocked on an idle writer ends when the reader is closed.
			errc := make(chan error, 1)
			go func() {
				_, err := in.Read(buf)
				errc <- err
			}()
			in.Close()
			if err := <-errc; err == nil {
				t.Fatal("blocked read returned no error after Close")
			}
		})
	}
	t.Run("end of input", func(t *testing.T) {
		in := Input(strings.NewReader("x"))
		b, err := io.ReadAll(in)
		if err != nil || !bytes.Equal(b, []byte("x")) {
			t.Fatalf("%q %v", b, err)
		}
		if _, err := in.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("after the end: %v", err)
		}
	})
}

// TestOutput: a pipe is written through a non-blocking duplicate, and
// restore leaves the pipe blocking, as the process found it; any other
// writer is used as it is.
func TestOutput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// os.Pipe's ends are non-blocking; an inherited stdout is not (Fd
	// puts w into blocking mode).
	w.Fd()
	tests := []struct {
		name    string
		w       io.Writer
		dup     bool
		blocked bool // whether w's descriptor must block after restore
	}{
		{name: "os pipe", w: w, dup: true, blocked: true},
		{name: "other writer", w: io.Discard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, restore := output(tt.w)
			if f, ok := out.(*os.File); tt.dup && (!ok || f == tt.w) {
				t.Fatalf("output = %T, want a duplicate *os.File", out)
			}
			if !tt.dup && out != tt.w {
				t.Fatalf("output = %T, want the writer itself", out)
			}
			if tt.dup && !nonblocking(t, w) {
				t.Error("the duplicate is blocking")
			}
			if _, err := io.WriteString(out, "x\n"); err != nil {
				t.Fatal(err)
			}
			restore()
			if tt.blocked && nonblocking(t, w) {
				t.Error("still non-blocking after restore")
			}
		})
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "x\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	// Not f.Fd(): it puts the descriptor into blocking mode.
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl uintptr
	var e syscall.Errno
	sc.Control(func(fd uintptr) { fl, _, e = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	if e != 0 {
		t.Fatal(e)
	}
	return fl&syscall.O_NONBLOCK != 0
}

// TestOutputSharedWithStderr: an output that is stderr's pipe too (2>&1)
// is written as it is, never made non-blocking: the agent inherits stderr
// and writes it in blocking mode.
func TestOutputSharedWithStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Fd() // blocking, as an inherited descriptor is
	d, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	same := os.NewFile(uintptr(d), "stdout")
	defer same.Close()
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()
	for _, f := range []*os.File{w, same} {
		out, restore := output(f)
		if out != io.Writer(f) {
			t.Errorf("output(%s) = %v, want the file itself", f.Name(), out)
		}
		restore()
		if nonblocking(t, w) {
			t.Errorf("output(%s) made stderr's pipe non-blocking", f.Name())
		}
	}
}
