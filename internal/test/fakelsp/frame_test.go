package fakelsp

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzReadFrame: whatever a client sends, readFrame returns a body or an
// error without panicking, and a frame written by writeFrame reads back.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"content-length: 2\r\nContent-Type: x\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999\r\n\r\n",
		GarbageHeader,
		GarbageBody,
		"\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		for range 8 {
			if _, err := readFrame(r); err != nil {
				break
			}
		}
		var buf bytes.Buffer
		if err := writeFrame(&buf, in); err != nil {
			t.Fatal(err)
		}
		got, err := readFrame(bufio.NewReader(&buf))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("round trip of %q: %q, %v", in, got, err)
		}
	})
}
