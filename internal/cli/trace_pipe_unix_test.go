//go:build unix

package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTracePipeWithoutReader: -trace naming a named pipe nobody reads is
// refused at once (exit 2, saying so) instead of waiting in open for a
// reader that may never come, with the editor waiting on acp-lsp's start.
// Before, the open blocked forever, and SIGTERM did not end it.
func TestTracePipeWithoutReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-trace", path, "--", "cat"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if want := "log.trace_file: " + path + ": a named pipe with no reader"; code != ExitUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("exit code %d, stderr:\n%s\nwant %d and %q", code, errb.String(), ExitUsage, want)
	}
}

// TestTraceToPipe: a trace goes to a named pipe of ours only when it has
// a reader, and then whole: the pipe is opened without blocking, yet a
// trace larger than the pipe holds (64 KiB), read while it is written,
// arrives complete: a write waits for the reader, it does not fail with
// EAGAIN. A device opened so, which the runtime cannot wait on
// (/dev/null), blocks again.
func TestTraceToPipe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		device string // the trace goes to this device, else to a new pipe
		reader bool
		trace  int // bytes written
		want   string
	}{
		{name: "no reader", want: "a named pipe with no reader"},
		{name: "a trace larger than the pipe holds", reader: true, trace: 1 << 20},
		{name: "a device", device: os.DevNull, trace: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.device
			if path == "" {
				path = filepath.Join(t.TempDir(), "trace.pipe")
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var r *os.File
			if tc.reader {
				var err error
				if r, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
					t.Fatal(err)
				}
				defer r.Close()
			}
			f, err := createPrivate(path, os.Geteuid())
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("createPrivate = %v; want an error saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan int, 1)
			if r != nil {
				// Read once the pipe has a writer: before, a read is the end.
				go func() {
					n, _ := io.Copy(io.Discard, r)
					got <- int(n)
				}()
			} else {
				got <- tc.trace
				if fl := flags(t, f); fl&unix.O_NONBLOCK != 0 {
					t.Errorf("%s left non-blocking (flags %#x)", path, fl)
				}
			}
			if n, err := f.Write(bytes.Repeat([]byte("x"), tc.trace)); n != tc.trace || err != nil {
				t.Errorf("wrote %d bytes of %d: %v", n, tc.trace, err)
			}
			f.Close()
			if n := <-got; n != tc.trace {
				t.Errorf("the reader got %d bytes of %d", n, tc.trace)
			}
		})
	}
}

// flags returns f's file status flags.
func flags(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	var ferr error
	if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return fl
}
