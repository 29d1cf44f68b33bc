package conductor

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
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
