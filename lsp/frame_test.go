package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

func TestReadFrame(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"result":null}`
	frame := "Content-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg
	for _, tc := range []struct {
		name, in string
		bodies   []string // bodies read before the final error
		err      error    // final error: io.EOF, io.ErrUnexpectedEOF or ErrProtocol
		detail   string   // in the ErrProtocol message
	}{
		{"one frame", frame, []string{msg}, io.EOF, ""},
		{"two frames", frame + frame, []string{msg, msg}, io.EOF, ""},
		{"content type header", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame, []string{msg}, io.EOF, ""},
		{"lower-case name, no space", "content-length:" + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg, []string{msg}, io.EOF, ""},
		{"empty stream", "", nil, io.EOF, ""},
		{"cut in the header", "Content-Len", nil, io.ErrUnexpectedEOF, ""},
		{"cut in the body", frame[:len(frame)-3], nil, io.ErrUnexpectedEOF, ""},
		{"plain text line", "panic: runtime error\n", nil, ErrProtocol, "no CRLF"},
		{"plain text, no newline", "hello", nil, ErrProtocol, "not an LSP frame"},
		{"garbage after a frame", frame + "oops\r\n\r\n", []string{msg}, ErrProtocol, "not an LSP header"},
		{"no Content-Length", "Content-Type: x\r\n\r\n", nil, ErrProtocol, "without Content-Length"},
		{"negative length", "Content-Length: -1\r\n\r\n", nil, ErrProtocol, "bad Content-Length"},
		{"length not a number", "Content-Length: ten\r\n\r\n", nil, ErrProtocol, "bad Content-Length"},
		{"length too big", "Content-Length: 99999999999\r\n\r\n", nil, ErrProtocol, "exceeds"},
		{"header line too long", "X-" + strings.Repeat("a", 5000) + ": b\r\n", nil, ErrProtocol, "longer than"},
		{"too many headers", strings.Repeat("X: y\r\n", maxHeaders+1), nil, ErrProtocol, "header lines"},
		{"space in a name", "Content Length: 3\r\n\r\n", nil, ErrProtocol, "not an LSP header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tc.in))
			var got []string
			var err error
			for {
				var b []byte
				if b, err = readFrame(r); err != nil {
					break
				}
				got = append(got, string(b))
			}
			if !equalStrings(got, tc.bodies) || !errors.Is(err, tc.err) || !strings.Contains(errString(err), tc.detail) {
				t.Fatalf("bodies %q, error %v; want %q, %v (%q)", got, err, tc.bodies, tc.err, tc.detail)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFrameCodec: what jsonrpc2 writes, the strict reader reads; a body
// that is not a JSON-RPC message is ErrProtocol and reported.
func TestFrameCodec(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	req := &jsonrpc2.Request{Method: "textDocument/hover", ID: jsonrpc2.ID{Num: 7}}
	if err := (frameCodec{}).WriteObject(w, req); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	buf.WriteString("Content-Length: 11\r\n\r\n{not json!}")
	var reported []error
	c := frameCodec{onError: func(err error) { reported = append(reported, err) }}
	r := bufio.NewReader(&buf)
	var got jsonrpc2.Request
	if err := c.ReadObject(r, &got); err != nil || got.Method != req.Method || got.ID != req.ID {
		t.Fatalf("read %+v, %v", got, err)
	}
	err := c.ReadObject(r, &got)
	if !errors.Is(err, ErrProtocol) || len(reported) != 1 || reported[0] != err {
		t.Fatalf("garbage body: %v, reported %v", err, reported)
	}
	if err := c.ReadObject(r, &got); err != io.EOF || len(reported) != 1 {
		t.Fatalf("end of stream: %v, reported %v", err, reported)
	}
}

// FuzzReadFrame: any bytes from a server end in frames, EOF or a clear
// error; never a panic, and a body is never bigger than the limit. A body
// read back from its own frame is the same body.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 2\r\nContent-Type: x\r\n\r\n{}Content-Length: 1\r\n\r\n1"))
	f.Add([]byte("hello\n"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		for range 64 {
			body, err := readFrame(r)
			if err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF && !errors.Is(err, ErrProtocol) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				return
			}
			if len(body) > maxFrameBytes || len(body) > len(in) {
				t.Fatalf("body of %d bytes from %d input bytes", len(body), len(in))
			}
			again, err := readFrame(bufio.NewReader(strings.NewReader("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip: %q, %v", again, err)
			}
		}
	})
}

// BenchmarkReadFrame compares the strict reader with jsonrpc2's own on the
// same stream of diagnostics-sized messages (what a busy server sends).
//
//	go test -run XXX -bench ReadFrame ./lsp/
func BenchmarkReadFrame(b *testing.B) {
	var one bytes.Buffer
	one.WriteString(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///w/a.go","diagnostics":[`)
	for i := range 200 {
		if i > 0 {
			one.WriteByte(',')
		}
		one.WriteString(`{"range":{"start":{"line":` + strconv.Itoa(i) + `,"character":4},"end":{"line":` + strconv.Itoa(i) + `,"character":9}},"severity":1,"message":"undefined: x"}`)
	}
	one.WriteString(`]}}`)
	frame := []byte("Content-Length: " + strconv.Itoa(one.Len()) + "\r\n\r\n" + one.String())
	stream := bytes.Repeat(frame, 64)
	for _, tc := range []struct {
		name  string
		codec jsonrpc2.ObjectCodec
	}{{"strict", frameCodec{}}, {"jsonrpc2", jsonrpc2.VSCodeObjectCodec{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			for b.Loop() {
				r := bufio.NewReader(bytes.NewReader(stream))
				for range 64 {
					var req jsonrpc2.Request
					if err := tc.codec.ReadObject(r, &req); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
