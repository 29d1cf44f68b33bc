package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime/debug"
	"slices"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultMaxLine is the default cap on one NDJSON line: prompts embed whole
// files and images, so it is far above the 10 MiB of the Go ACP SDK.
const DefaultMaxLine = 256 << 20

// readBuf is the read buffer of a LineReader: a pipe holds 64 KiB, so one
// read can take everything a fast writer has queued.
const readBuf = 128 << 10

// ErrLineTooLong is returned (wrapped) by LineReader.ReadLine for a line over
// the cap. The rest of that line is discarded, so the next ReadLine returns
// the following line: a huge message is lost, the connection is not.
var ErrLineTooLong = errors.New("line too long")

// LineTooLongError is the error of a line over the cap; errors.Is matches
// ErrLineTooLong. Head holds the line's first bytes (at most headSize),
// enough to tell which request a dropped message was or answered.
type LineTooLongError struct {
	Max  int
	Head []byte
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("read line: %v (over %d bytes)", ErrLineTooLong, e.Max)
}

// Unwrap returns ErrLineTooLong.
func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }

// headSize is how much of a line over the cap is kept (LineTooLongError):
// JSON-RPC peers write "jsonrpc", "id" and "method" before the payload.
const headSize = 4 << 10

// tooLong returns the error of a line over the cap starting with first.
func (lr *LineReader) tooLong(first []byte) error {
	return &LineTooLongError{Max: lr.max, Head: bytes.Clone(first[:min(len(first), headSize)])}
}

// LineReader reads newline-delimited JSON messages. It is not safe for
// concurrent use.
type LineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	slab []byte // shared backing of small lines (see carve)
}

// Small lines are copied into shared slabs instead of one allocation
// each: an agent streaming session/update costs one allocation per
// about fifty messages, not one per message. A line kept by someone
// keeps its slab alive (at most slabSize bytes), never more.
const (
	slabSize    = 16 << 10
	slabMaxLine = 2 << 10
)

// carve returns a copy of line, carved from the current slab when it is
// small. The copy's capacity ends with it, so an append to it reallocates
// instead of overwriting the next line.
func (lr *LineReader) carve(line []byte) []byte {
	n := len(line)
	if n > slabMaxLine {
		return bytes.Clone(line)
	}
	if cap(lr.slab)-len(lr.slab) < n {
		lr.slab = make([]byte, 0, slabSize)
	}
	s := len(lr.slab)
	lr.slab = append(lr.slab, line...)
	return lr.slab[s : s+n : s+n]
}

// NewLineReader returns a LineReader over r accepting lines up to max bytes
// (DefaultMaxLine when max <= 0).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{r: bufio.NewReaderSize(r, readBuf), max: max}
}

// ReadLine returns the next non-blank line without its line terminator
// (LF or CRLF). The returned slice is a copy owned by the caller: later
// reads never overwrite it (small lines share a backing array, but each
// slice's capacity ends with its line, so appending to it copies). At the end of input it returns io.EOF; a last line without a
// newline is returned first.
func (lr *LineReader) ReadLine() ([]byte, error) {
	line, _, err := lr.readLine(false)
	return line, err
}

// readLine is ReadLine; with lend set, a line found whole in the read
// buffer is returned in place (lent reports it), valid only until the
// next read, and not copied.
func (lr *LineReader) readLine(lend bool) (line []byte, lent bool, err error) {
	for {
		frag, err := lr.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line, err := lr.readLong(frag)
			if err != nil {
				return nil, false, err
			}
			if line == nil {
				continue // blank
			}
			return line, false, nil
		}
		if err != nil && (err != io.EOF || len(frag) == 0) {
			return nil, false, err
		}
		// The common case: the whole line is in the read buffer; one copy,
		// into the slab, or none when lent.
		if len(frag) > lr.max+2 {
			return nil, false, lr.tooLong(frag)
		}
		line := trimEOL(frag)
		if len(line) > lr.max {
			return nil, false, lr.tooLong(frag)
		}
		if len(line) == 0 || line[0] != '{' && isBlank(line) {
			continue
		}
		if lend {
			return line[:len(line):len(line)], true, nil
		}
		return lr.carve(line), false, nil
	}
}

// readLong collects a line longer than the read buffer, starting with
// first. It returns nil for a blank line. A line over the cap is read to
// its end and discarded.
//
// Past growChunk bytes the line is collected in chunks that double the
// total, never past the cap, and is copied once, whole, at the end: a
// line over the cap holds at most the cap while it is read, and is
// dropped as soon as it is known to be over (one buffer growing by
// doubling held up to three times the cap, 823 MiB for 256), then that
// memory goes back to the OS.
func (lr *LineReader) readLong(first []byte) ([]byte, error) {
	var full [][]byte // chunks filled before buf
	size := 0         // bytes in full
	// first is the read buffer's, overwritten by the next read.
	head := bytes.Clone(first[:min(len(first), headSize)])
	buf := append(lr.buf[:0], first...)
	tooLong := len(buf) > lr.max+2
	for {
		frag, err := lr.r.ReadSlice('\n')
		if !tooLong {
			if size+len(buf)+len(frag) > lr.max+2 {
				tooLong = true
				full, buf = nil, nil
			} else {
				for len(frag) > 0 {
					if len(buf) == cap(buf) {
						if cap(buf) < growChunk {
							buf = slices.Grow(buf, min(max(cap(buf), 64<<10), growChunk))
						} else {
							full = append(full, buf)
							size += len(buf)
							buf = make([]byte, 0, min(size, lr.max+2-size))
						}
					}
					k := copy(buf[len(buf):cap(buf)], frag)
					buf, frag = buf[:len(buf)+k], frag[k:]
				}
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		break
	}
	if tooLong {
		lr.buf = nil
		// The chunks are garbage now; a huge line is rare and hostile,
		// so the cost of a collection is worth the memory back.
		debug.FreeOSMemory()
		return nil, &LineTooLongError{Max: lr.max, Head: head}
	}
	if len(full) > 0 {
		whole := make([]byte, 0, size+len(buf))
		for _, c := range full {
			whole = append(whole, c...)
		}
		buf = append(whole, buf...)
	}
	line := bytes.TrimRight(buf, "\r\n")
	if len(line) > lr.max {
		lr.keep(buf)
		return nil, &LineTooLongError{Max: lr.max, Head: head}
	}
	if isBlank(line) {
		lr.keep(buf)
		return nil, nil
	}
	if cap(buf) > 1<<20 {
		// Hand the big buffer over instead of copying it; the next long
		// line starts a new one, so a huge buffer is never pinned.
		lr.buf = nil
		return line[:len(line):len(line)], nil
	}
	lr.keep(buf)
	return bytes.Clone(line), nil
}

// growChunk is the size up to which a long line grows in one buffer
// (copied as it doubles, and kept for the next long line); past it the
// line is collected in chunks (see readLong).
const growChunk = 1 << 20

func (lr *LineReader) keep(buf []byte) {
	if cap(buf) > 1<<20 {
		buf = nil // do not pin a huge buffer after a huge message
	}
	lr.buf = buf[:0]
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// trimEOL is bytes.TrimRight(b, "\r\n") without building the cut set
// for every line.
func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Kind says what a JSON-RPC message is.
type Kind uint8

const (
	// KindInvalid is a JSON object that is no JSON-RPC message.
	KindInvalid Kind = iota
	// KindRequest has a method and an id.
	KindRequest
	// KindNotification has a method and no id.
	KindNotification
	// KindResponse has an id and a result or an error.
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one JSON-RPC message as it travels the chain: the raw bytes and
// what a cheap top-level scan found in them. Params, result and error are
// located, never decoded.
type Message struct {
	// Raw is the whole JSON object exactly as it will be written. Treat it
	// as immutable: build a changed message with the With* methods.
	Raw []byte
	// Kind is request, notification or response.
	Kind Kind
	// ID is the raw JSON of the id (nil for a notification). Ids of any type
	// are kept byte for byte.
	ID json.RawMessage
	// Method is the method of a request or notification; for a response
	// delivered to a component, the method of the request it answers (when
	// known).
	Method string

	params, result, errv span
	id                   span

	scanned bool // parse found one valid JSON object

	// lent, when set, is the line reader whose read buffer Raw points
	// into (see Stream.lend): Raw is valid only until that reader's next
	// read. Only the goroutine delivering m (the reader's) sees such a
	// message; before m can outlive the delivery (queued for another
	// goroutine, handed to a component's handler) own copies Raw.
	lent *LineReader

	sent   atomic.Bool          // passed on by the handler now holding it
	credit atomic.Pointer[gate] // flow-control credit, released once delivered
	charge *gate                // a lent message's gate, charged by own (see Chain.read)
	ctl    *control             // chain control message (never on the wire)

	// req is the chain's number for a request as it was delivered to the
	// component now holding it, kept by the With* copies: sending a
	// request with this number on is passing that request on, while a
	// request the component made itself (number 0) is its own, whatever
	// its id (see node.register).
	req uint64
}

// own makes m independent of the read buffer it was lent from (see
// Message.lent): Raw (and ID) move to a copy. It must run on the
// goroutine that read m.
func (m *Message) own() {
	lr := m.lent
	if lr == nil {
		return
	}
	m.lent = nil
	if g := m.charge; g != nil {
		m.charge = nil
		g.charge(len(m.Raw))
		m.credit.Store(g)
	}
	m.Raw = lr.carve(m.Raw)
	if m.id.ok() {
		m.ID = m.Raw[m.id.start:m.id.end:m.id.end]
	}
}

// replacedBy returns nm, a copy made to travel in m's place (renumbered,
// say), with m's flow-control credit, which nm gives back when it is
// delivered: m itself is dropped and never delivered, and a credit
// dropped with it would count against its side for good.
func (m *Message) replacedBy(nm *Message) *Message {
	nm.credit.Store(m.credit.Swap(nil))
	return nm
}

// release returns m's flow-control credit, once.
func (m *Message) release() {
	// Most messages carry no credit (lent, see Chain.read): a load is
	// cheaper than the swap.
	if m.credit.Load() == nil {
		return
	}
	if g := m.credit.Swap(nil); g != nil {
		g.release(len(m.Raw))
	}
}

type span struct{ start, end int }

func (s span) ok() bool { return s.end > s.start }

// Params returns the raw params (nil when absent).
func (m *Message) Params() json.RawMessage { return m.slice(m.params) }

// Result returns the raw result of a response (nil when absent or an error).
func (m *Message) Result() json.RawMessage { return m.slice(m.result) }

// Error returns the raw error object of a response (nil when absent).
func (m *Message) Error() json.RawMessage { return m.slice(m.errv) }

func (m *Message) slice(s span) json.RawMessage {
	if !s.ok() {
		return nil
	}
	return m.Raw[s.start:s.end:s.end]
}

// ParseError is returned by Parse for bytes that are not one JSON-RPC message.
type ParseError struct {
	Offset int
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("parse message: %s at offset %d", e.Reason, e.Offset)
}

// Parse scans raw as one JSON-RPC message. It validates the JSON syntax of
// the whole text but decodes only the top-level "id" and "method"; raw is
// retained (not copied) by the returned Message.
func Parse(raw []byte) (*Message, error) {
	m := &Message{}
	if err := m.parse(raw, ""); err != nil {
		if m.scanned {
			return m, err // valid JSON, not a message
		}
		return nil, err
	}
	return m, nil
}

// parse is Parse into m (a zero Message). It returns *ParseError; m is
// marked scanned when raw was one valid JSON object. A method spelled
// exactly as hint, a method name without a backslash (the last one a
// reader saw), is taken as hint: no lookup and no allocation for a stream
// of one method, whatever its name.
func (m *Message) parse(raw []byte, hint string) error {
	m.Raw = raw
	s := scanner{b: raw}
	s.ws()
	if !s.eat('{') {
		return s.fail("expected a JSON object")
	}
	var hasMethod, hasID bool
	var notMessage error // valid so far, but no message: told once scanned
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			ks := s.i
			if err := s.str(); err != nil {
				return err
			}
			key := raw[ks:s.i]
			s.ws()
			if !s.eat(':') {
				return s.fail("expected ':'")
			}
			s.ws()
			vs := s.i
			if err := s.value(0); err != nil {
				return err
			}
			v := span{vs, s.i}
			switch string(key) {
			case `"id"`:
				m.ID = raw[vs:s.i:s.i]
				m.id = span{vs, s.i}
				hasID = true
			case `"method"`:
				if raw[vs] != '"' {
					notMessage = &ParseError{vs, "method is not a string"}
					break
				}
				if hint != "" && string(raw[vs+1:s.i-1]) == hint {
					m.Method = hint
				} else {
					meth, err := unquote(raw[vs:s.i])
					if err != nil {
						return &ParseError{vs, "bad method string"}
					}
					m.Method = meth
				}
				hasMethod = true
			case `"params"`:
				m.params = v
			case `"result"`:
				m.result = v
			case `"error"`:
				m.errv = v
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return s.fail("expected ',' or '}'")
		}
	}
	s.ws()
	if s.i != len(raw) {
		return s.fail("trailing data after the object")
	}
	m.scanned = true
	if notMessage != nil {
		return notMessage
	}
	switch {
	case hasMethod && hasID:
		m.Kind = KindRequest
	case hasMethod:
		m.Kind = KindNotification
	case hasID && (m.result.ok() || m.errv.ok()):
		m.Kind = KindResponse
	default:
		return &ParseError{0, "neither a request, a notification nor a response"}
	}
	return nil
}

// knownMethods interns the method names of ACP and the proxy-chain
// protocol, so scanning the most frequent messages allocates no string.
var knownMethods = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"initialize", "authenticate", "session/new", "session/load", "session/resume",
		"session/fork", "session/list", "session/close", "session/prompt", "session/update",
		"session/cancel", "session/set_mode", "session/set_model", "session/set_config_option",
		"session/request_permission", "fs/read_text_file", "fs/write_text_file",
		"terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit",
		"terminal/kill", MethodCancelRequest, "proxy/initialize", "proxy/successor",
		"_proxy/initialize", "_proxy/successor",
	} {
		m[s] = s
	}
	return m
}()

func unquote(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		if s, ok := knownMethods[string(q[1:len(q)-1])]; ok {
			return s, nil
		}
		// Invalid UTF-8 takes the decoder's path (bytes become U+FFFD),
		// so a name reads the same here as anywhere JSON is decoded.
		if utf8.Valid(q) {
			return string(q[1 : len(q)-1]), nil
		}
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// scanner validates JSON syntax without building values. Its methods
// wrap functions that take and return the index (skipWS, skipStr,
// skipValue): kept in a register instead of behind a pointer, the scan
// of a message costs a fifth less.
type scanner struct {
	b []byte
	i int
}

const maxDepth = 10000

func (s *scanner) fail(reason string) error { return &ParseError{s.i, reason} }

func (s *scanner) ws() { s.i = skipWS(s.b, s.i) }

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// at records where a scan stopped and turns its failure reason into an
// error.
func (s *scanner) at(i int, why string) error {
	s.i = i
	if why != "" {
		return s.fail(why)
	}
	return nil
}

func (s *scanner) str() error { return s.at(skipStr(s.b, s.i)) }

func (s *scanner) value(depth int) error { return s.at(skipValue(s.b, s.i, depth)) }

// skipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		// One comparison for the usual case, a token right away.
		if c := b[i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
		i++
	}
	return i
}

// skipStr returns the index after the JSON string starting at b[i], or
// where it is wrong and why.
func skipStr(b []byte, i int) (int, string) {
	if i >= len(b) || b[i] != '"' {
		return i, "expected a string"
	}
	i++
	for {
		// Eight bytes at a time: special8's lowest mark is exactly the
		// first byte that ends the plain run (a quote, a backslash, a
		// control character), found without going back byte by byte.
		for i+8 <= len(b) {
			if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < len(b) && plainByte(b[i]) {
			i++
		}
		if i >= len(b) {
			return i, "unterminated string"
		}
	special:
		switch b[i] {
		case '"':
			return i + 1, ""
		case '\\':
			i++
			if i >= len(b) {
				return i, "unterminated escape"
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 > len(b) {
					return i, "short \\u escape"
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return i, "bad \\u escape"
					}
				}
				i += 5
			default:
				return i, "bad escape"
			}
		default:
			return i, "control character in string"
		}
	}
}

func plainByte(c byte) bool { return c != '"' && c != '\\' && c >= 0x20 }

// special8 marks, with 0x80 in its byte, the first of the eight bytes
// packed in x that is '"', '\\' or below 0x20, and returns 0 when there is
// none. It is the has-zero-byte trick applied three times: a subtraction
// borrows only out of a byte it marks, so any false mark lies above a true
// one, and the lowest mark, the only one read, is exact. (Marking every
// such byte exactly took three more operations per word.)
func special8(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lo * '"')
	b := x ^ (lo * '\\')
	return ((q-lo)&^q | (b-lo)&^b | (x-lo*0x20)&^x) & hi
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipValue returns the index after the JSON value starting at b[i], or
// where it is wrong and why.
func skipValue(b []byte, i, depth int) (int, string) {
	if depth > maxDepth {
		return i, "nesting too deep"
	}
	if i >= len(b) {
		return i, "unexpected end"
	}
	var why string
	switch c := b[i]; {
	case c == '"':
		return skipStr(b, i)
	case c == '{':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, ""
		}
		for {
			if i, why = skipStr(b, skipWS(b, i)); why != "" {
				return i, why
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, "expected ':'"
			}
			if i, why = skipValue(b, skipWS(b, i+1), depth+1); why != "" {
				return i, why
			}
			i = skipWS(b, i)
			if i < len(b) {
				switch b[i] {
				case ',':
					i++
					continue
				case '}':
					return i + 1, ""
				}
			}
			return i, "expected ',' or '}'"
		}
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, ""
		}
		for {
			if i, why = skipValue(b, skipWS(b, i), depth+1); why != "" {
				return i, why
			}
			i = skipWS(b, i)
			if i < len(b) {
				switch b[i] {
				case ',':
					i++
					continue
				case ']':
					return i + 1, ""
				}
			}
			return i, "expected ',' or ']'"
		}
	case c == 't':
		return skipLit(b, i, "true")
	case c == 'f':
		return skipLit(b, i, "false")
	case c == 'n':
		return skipLit(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNum(b, i)
	}
	return i, "unexpected character"
}

func skipLit(b []byte, i int, w string) (int, string) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, "bad literal"
	}
	return i + len(w), ""
}

func skipNum(b []byte, i int) (int, string) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return i, "bad number"
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return i, "bad fraction"
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, "bad exponent"
		}
	}
	return i, ""
}

// idKey is the map key of a raw id; numbers and strings never share keys
// because strings keep their quotes.
func idKey(id json.RawMessage) string { return string(id) }

// NewRequest builds a request message; params must be valid JSON or nil.
func NewRequest(id json.RawMessage, method string, params json.RawMessage) *Message {
	return mustBuild(id, method, params, nil, nil, true)
}

// NewNotification builds a notification message.
func NewNotification(method string, params json.RawMessage) *Message {
	return mustBuild(nil, method, params, nil, nil, false)
}

// NewResponse builds a success response; a nil result is written as null.
func NewResponse(id json.RawMessage, result json.RawMessage) *Message {
	if result == nil {
		result = json.RawMessage("null")
	}
	return mustBuild(id, "", nil, result, nil, true)
}

// NewErrorResponse builds an error response with a JSON-RPC code.
func NewErrorResponse(id json.RawMessage, code int, message string, data any) *Message {
	e := struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, message, data}
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{code, message})
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	return mustBuild(id, "", nil, nil, b, true)
}

// NewRequestUnchecked is NewRequest without the validating scan of the
// built message: id and params must each be one valid JSON value taken
// from a parsed message (Message.ID, Message.Params, Fields, GetPath),
// which was validated when it was parsed. Re-wrapping a message (proxy
// envelopes) then costs a copy, not a second scan.
func NewRequestUnchecked(id json.RawMessage, method string, params json.RawMessage) *Message {
	return assemble(id, method, params, nil, nil, true)
}

// NewNotificationUnchecked is NewNotification without the validating scan;
// params must be valid JSON as for NewRequestUnchecked.
func NewNotificationUnchecked(method string, params json.RawMessage) *Message {
	return assemble(nil, method, params, nil, nil, false)
}

// assemble builds a message and records where its parts are, as Parse
// would, without scanning.
func assemble(id json.RawMessage, method string, params, result, errv json.RawMessage, withID bool) *Message {
	m := &Message{}
	b := make([]byte, 0, 64+len(method)+len(id)+len(params)+len(result)+len(errv))
	b = append(b, `{"jsonrpc":"2.0"`...)
	var idS, idE int
	if withID {
		b = append(b, `,"id":`...)
		idS = len(b)
		b = append(b, id...)
		idE = len(b)
	}
	if method != "" {
		b = append(b, `,"method":`...)
		b = appendJSONString(b, method)
		m.Method = method
	}
	part := func(key string, v json.RawMessage) span {
		if v == nil {
			return span{}
		}
		b = append(b, key...)
		s := len(b)
		b = append(b, v...)
		return span{s, len(b)}
	}
	m.params = part(`,"params":`, params)
	m.result = part(`,"result":`, result)
	m.errv = part(`,"error":`, errv)
	b = append(b, '}')
	m.Raw = b
	if withID {
		m.ID = b[idS:idE:idE]
	}
	switch {
	case withID && method != "":
		m.Kind = KindRequest
	case method != "":
		m.Kind = KindNotification
	default:
		m.Kind = KindResponse
	}
	return m
}

func appendJSONString(b []byte, s string) []byte {
	if isASCIIPlain(s) {
		return strconv.AppendQuote(b, s)
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func mustBuild(id json.RawMessage, method string, params, result, errv json.RawMessage, withID bool) *Message {
	b := make([]byte, 0, 64+len(params)+len(result)+len(errv))
	b = append(b, `{"jsonrpc":"2.0"`...)
	if withID {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	if method != "" {
		b = append(b, `,"method":`...)
		b = strconv.AppendQuote(b, method)
		if !isASCIIPlain(method) {
			q, _ := json.Marshal(method)
			b = append(b[:len(b)-len(strconv.Quote(method))], q...)
		}
	}
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	if result != nil {
		b = append(b, `,"result":`...)
		b = append(b, result...)
	}
	if errv != nil {
		b = append(b, `,"error":`...)
		b = append(b, errv...)
	}
	b = append(b, '}')
	m, err := Parse(b)
	if err != nil {
		panic(fmt.Sprintf("proxy: built an invalid message %q: %v", b, err))
	}
	return m
}

func isASCIIPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// MessageHead is what the first bytes of a message say of it: its id, when
// the whole id comes before the cut, and whether a method, or a result or
// error, came before it.
type MessageHead struct {
	ID     json.RawMessage
	Method bool
	Answer bool
}

// ScanHead reads the top-level members of the JSON object b begins, up to
// where b is cut or stops being valid, for what they say of the message.
func ScanHead(b []byte) MessageHead {
	var h MessageHead
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return h
	}
	i++
	for {
		k := skipWS(b, i)
		j, why := skipStr(b, k)
		if why != "" {
			return h
		}
		key := string(b[k:j])
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return h
		}
		v := skipWS(b, i+1)
		switch key {
		case `"method"`:
			h.Method = true
		case `"result"`, `"error"`:
			h.Answer = true
		}
		end, why := skipValue(b, v, 1)
		i = skipWS(b, end)
		if why != "" || i >= len(b) || b[i] != ',' && b[i] != '}' {
			// Cut inside the value, or right after it: a number cut
			// there would read as another.
			return h
		}
		if key == `"id"` && (b[v] == '"' || b[v] == '-' || '0' <= b[v] && b[v] <= '9' || b[v] == 'n') {
			h.ID = json.RawMessage(bytes.Clone(b[v:end]))
		}
		if b[i] != ',' {
			return h
		}
		i++
	}
}
