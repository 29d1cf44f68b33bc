package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// echoServer listens on a unix socket in a fresh folder and, for each
// connection, runs serve; it returns the socket path.
func echoServer(t *testing.T, serve func(c *net.UnixConn)) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "br")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		serve(c)
		c.Close()
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return path
}

// echo copies the connection back until the bridge half-closes it.
func echo(c *net.UnixConn) { io.Copy(c, c) }

// TestBridge runs `acp-lsp mcp-bridge` in process against a socket and
// checks stdout (the protocol: only what the socket sent), stderr and the
// exit code.
func TestBridge(t *testing.T) {
	big := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"x","params":"`+strings.Repeat("a", 1000)+`"}`+"\n"), 5000)
	partial := append(append([]byte(nil), big...), `{"jsonrpc":"2.0","id":1,"meth`...)
	for _, tc := range []struct {
		name   string
		socket func(t *testing.T) string
		in     func() io.Reader
		out    []byte
		code   int
		stderr string
	}{
		{
			name:   "socket gone",
			socket: func(t *testing.T) string { return filepath.Join(t.TempDir(), "gone.sock") },
			in:     func() io.Reader { return strings.NewReader("{}\n") },
			code:   ExitFailure,
			stderr: "connect to acp-lsp (is the proxy still running?)",
		},
		{
			name:   "megabytes and a partial last line",
			socket: func(t *testing.T) string { return echoServer(t, echo) },
			in:     func() io.Reader { return bytes.NewReader(partial) },
			out:    partial,
			code:   ExitOK,
		},
		{
			// The agent's side broke: the server saw a clean end and
			// answered all it got, but the bridge must not report
			// success for a connection that broke.
			name:   "stdin fails",
			socket: func(t *testing.T) string { return echoServer(t, echo) },
			in: func() io.Reader {
				return io.MultiReader(strings.NewReader("{\"a\":1}\n"), iotest.ErrReader(errors.New("stdin broke")))
			},
			out:    []byte("{\"a\":1}\n"),
			code:   ExitFailure,
			stderr: "stdin broke",
		},
		{
			// The server ends the connection while the agent's stdin
			// stays open: the bridge ends, successfully, without waiting
			// for stdin.
			name: "server closes first",
			socket: func(t *testing.T) string {
				return echoServer(t, func(c *net.UnixConn) { c.Write([]byte("bye\n")) })
			},
			in: func() io.Reader {
				r, w := io.Pipe()
				t.Cleanup(func() { w.Close() })
				return r
			},
			out:  []byte("bye\n"),
			code: ExitOK,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), []string{"mcp-bridge", "--socket", tc.socket(t)}, Stdio{In: tc.in(), Out: &out, Err: &errb})
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !bytes.Equal(out.Bytes(), tc.out) {
				t.Errorf("stdout: %d bytes, want %d", out.Len(), len(tc.out))
			}
			if tc.stderr == "" && errb.Len() > 0 || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q, want it to say %q", errb.String(), tc.stderr)
			}
		})
	}
}
