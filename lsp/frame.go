package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// maxFrameBytes bounds the body of one message from a server. Servers
// answer huge workspaces with frames of tens of megabytes; a length beyond
// this is a broken server, not an answer, and is refused before anything
// is allocated.
const maxFrameBytes = 256 << 20

// maxHeaders bounds the header lines of one frame (LSP defines two).
const maxHeaders = 16

// frameCodec reads and writes LSP's Content-Length frames. Writing is
// jsonrpc2's; reading is strict, because jsonrpc2's reader skips any line
// it does not know and waits for a '\r' that a server printing plain text
// (a panic, a debug line) never sends: the client would hang. Here every
// header line must be "Name: value" ended by CRLF, Content-Length must be
// present and bounded, and the body must be one JSON-RPC message; anything
// else is an ErrProtocol error, reported to onError before the connection
// closes, so callers learn what went wrong instead of "server exited".
type frameCodec struct {
	jsonrpc2.VSCodeObjectCodec
	onError func(error)
}

// ReadObject reads one frame into v, which must be a json.Unmarshaler
// (jsonrpc2's message type is).
func (c frameCodec) ReadObject(r *bufio.Reader, v any) error {
	body, err := readFrame(r)
	if err == nil {
		u, ok := v.(json.Unmarshaler)
		if !ok {
			return fmt.Errorf("read frame: cannot decode into %T", v)
		}
		if uerr := u.UnmarshalJSON(body); uerr != nil {
			err = fmt.Errorf("%w: frame body is not a JSON-RPC message (%v): %s", ErrProtocol, uerr, quoteStart(body))
		}
	}
	if errors.Is(err, ErrProtocol) && c.onError != nil {
		c.onError(err)
	}
	return err
}

// readFrame reads one frame's body. It returns io.EOF when the stream ends
// between frames, io.ErrUnexpectedEOF when it ends inside one (the server
// died while writing), and ErrProtocol errors for bytes that are not a
// frame.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := int64(-1)
	for n := 0; ; n++ {
		line, err := r.ReadSlice('\n')
		switch {
		case err == io.EOF && n == 0 && len(line) == 0:
			return nil, io.EOF
		case err == io.EOF:
			if n == 0 && !looksLikeHeader(line) {
				return nil, fmt.Errorf("%w: output is not an LSP frame: %s", ErrProtocol, quoteStart(line))
			}
			return nil, io.ErrUnexpectedEOF
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, fmt.Errorf("%w: header line longer than %d bytes: %s", ErrProtocol, r.Size(), quoteStart(line))
		case err != nil:
			return nil, err
		}
		if n >= maxHeaders {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrProtocol, maxHeaders)
		}
		text, ok := bytes.CutSuffix(line, []byte("\r\n"))
		if !ok {
			return nil, fmt.Errorf("%w: output is not an LSP header (no CRLF): %s", ErrProtocol, quoteStart(line))
		}
		if len(text) == 0 {
			break
		}
		name, value, ok := strings.Cut(string(text), ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("%w: output is not an LSP header: %s", ErrProtocol, quoteStart(text))
		}
		if strings.EqualFold(name, "Content-Length") {
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%w: bad Content-Length %q", ErrProtocol, strings.TrimSpace(value))
			}
			if v > maxFrameBytes {
				return nil, fmt.Errorf("%w: Content-Length %d exceeds the %d-byte limit", ErrProtocol, v, maxFrameBytes)
			}
			length = v
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: frame without Content-Length", ErrProtocol)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// looksLikeHeader reports whether an unterminated line could be the start
// of a header cut short by the server's exit.
func looksLikeHeader(line []byte) bool {
	h := "content-length:"
	l := strings.ToLower(string(line))
	return strings.HasPrefix(h, l) || strings.HasPrefix(l, h)
}

// quoteStart quotes the first bytes of b for an error message.
func quoteStart(b []byte) string {
	const n = 60
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}
