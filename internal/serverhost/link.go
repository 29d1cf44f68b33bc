package serverhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// The host and its clients talk over a link of their own rather than
// JSON-RPC: a warm call through the host must cost little more than the
// same call in process, and a JSON-RPC library decodes every message
// twice (once to tell a request from a response, with the result into
// maps) and encodes it through maps. A frame is a fixed binary head, the
// method name, a small JSON meta (the call's own fields) and raw bytes
// carried as they are: the server's params and result, never decoded or
// re-encoded on the way.
//
//	kind(1) id(8) len(method)(2) len(meta)(4) len(raw)(4) method meta raw

// Frame kinds.
const (
	kindCall   byte = 1 // a call; answered by a reply or an error with its id
	kindNotify byte = 2 // a notification: no answer
	kindReply  byte = 3
	kindError  byte = 4 // meta is a wireError
)

// frameHead is the length of a frame's fixed head.
const frameHead = 1 + 8 + 2 + 4 + 4

// maxFrame bounds a frame's meta and raw together: a diagnostics report
// of a large workspace is megabytes; a length beyond this is a broken
// peer, refused before anything is allocated.
const maxFrame = 256 << 20

// errLinkClosed: the link ended (the peer went away or Close was called).
var errLinkClosed = errors.New("server host link closed")

// message is one frame.
type message struct {
	kind   byte
	id     uint64
	method string
	meta   []byte
	raw    []byte
}

// readFrame reads one frame.
func readFrame(r io.Reader) (message, error) {
	var h [frameHead]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return message{}, err
	}
	m := message{kind: h[0], id: binary.BigEndian.Uint64(h[1:9])}
	nm, nmeta, nraw := int(binary.BigEndian.Uint16(h[9:11])), int64(binary.BigEndian.Uint32(h[11:15])), int64(binary.BigEndian.Uint32(h[15:19]))
	if m.kind < kindCall || m.kind > kindError {
		return message{}, fmt.Errorf("read frame: unknown kind %d", m.kind)
	}
	if nmeta+nraw > maxFrame {
		return message{}, fmt.Errorf("read frame: %d bytes exceed the %d-byte limit", nmeta+nraw, maxFrame)
	}
	buf, err := readN(r, int64(nm)+nmeta+nraw)
	if err != nil {
		return message{}, fmt.Errorf("read frame: %w", err)
	}
	m.method = string(buf[:nm])
	if nmeta > 0 {
		m.meta = buf[nm : int64(nm)+nmeta : int64(nm)+nmeta]
	}
	if nraw > 0 {
		m.raw = buf[int64(nm)+nmeta:]
	}
	return m, nil
}

// readN reads n bytes. Past a megabyte the buffer grows with what
// arrives, so a length a broken peer claims allocates nothing it does
// not send.
func readN(r io.Reader, n int64) ([]byte, error) {
	if n <= 1<<20 {
		buf := make([]byte, n)
		_, err := io.ReadFull(r, buf)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf, err
	}
	var b bytes.Buffer
	if _, err := io.CopyN(&b, r, n); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b.Bytes(), nil
}

// appendFrame appends m's frame to b.
func appendFrame(b []byte, m message) ([]byte, error) {
	if len(m.method) > 0xffff || len(m.meta)+len(m.raw) > maxFrame {
		return b, fmt.Errorf("write frame %s: too large", m.method)
	}
	b = append(b, m.kind)
	b = binary.BigEndian.AppendUint64(b, m.id)
	b = binary.BigEndian.AppendUint16(b, uint16(len(m.method)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(m.meta)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(m.raw)))
	b = append(b, m.method...)
	b = append(b, m.meta...)
	return append(b, m.raw...), nil
}

// wireError is an error frame's meta: the error's message as the host had
// it and its type (errorData).
type wireError struct {
	Message string    `json:"message"`
	Data    errorData `json:"data"`
}

func (e *wireError) Error() string { return e.Message }

// link is one connection of the host to a client. Calls and replies are
// matched by id; frames are written whole under a lock; what is read
// other than replies goes to the handler, in the order read, on the
// reading goroutine (a handler answering a call does so on a goroutine
// of its own).
type link struct {
	conn   net.Conn
	handle func(message)
	ids    atomic.Uint64

	wmu sync.Mutex
	wb  []byte

	mu      sync.Mutex
	pending map[uint64]chan message
	done    chan struct{} // closed when the link ended
	err     error         // why (under mu, set before done closes)
}

// newLink makes a link over conn; handle (nil: nothing is expected) gets
// the calls and notifications once start is called. Reading waits for
// start so that what handle uses (the link itself, kept by its owner) is
// set up before the first message can arrive: a client sends its first
// call the moment it connects.
func newLink(conn net.Conn, handle func(message)) *link {
	return &link{conn: conn, handle: handle, pending: map[uint64]chan message{}, done: make(chan struct{})}
}

// start starts reading; once only.
func (l *link) start() { go l.read() }

func (l *link) read() {
	r := bufio.NewReaderSize(l.conn, 64<<10)
	for {
		m, err := readFrame(r)
		if err != nil {
			l.end(err)
			return
		}
		switch m.kind {
		case kindReply, kindError:
			l.mu.Lock()
			ch := l.pending[m.id]
			delete(l.pending, m.id)
			l.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		default:
			if l.handle != nil {
				l.handle(m)
			}
		}
	}
}

// end closes the link for err, failing the calls waiting.
func (l *link) end(err error) {
	l.mu.Lock()
	select {
	case <-l.done:
		l.mu.Unlock()
		return
	default:
	}
	l.err = err
	close(l.done)
	l.pending = nil
	l.mu.Unlock()
	l.conn.Close()
}

// Close ends the link.
func (l *link) Close() error {
	l.end(errLinkClosed)
	return nil
}

// Done is closed when the link ended.
func (l *link) Done() <-chan struct{} { return l.done }

func (l *link) write(m message) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	b, err := appendFrame(l.wb[:0], m)
	if err != nil {
		return err
	}
	_, err = l.conn.Write(b)
	if cap(b) <= 64<<10 {
		l.wb = b // kept for the next frame unless it was a huge one
	}
	if err != nil {
		l.end(err)
		return fmt.Errorf("%w: %v", errLinkClosed, err)
	}
	return nil
}

// metaOf encodes a frame's meta (nil: none).
func metaOf(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Call sends method with meta and raw and waits for the answer: its
// reply, a *wireError the peer answered with, errLinkClosed (wrapped)
// when the link ended first, or ctx's error. id, when not 0, is the
// call's id (so a cancel can name it).
func (l *link) Call(ctx context.Context, id uint64, method string, meta any, raw []byte) (message, error) {
	b, err := metaOf(meta)
	if err != nil {
		return message{}, fmt.Errorf("%s: %w", method, err)
	}
	if id == 0 {
		id = l.ids.Add(1) | 1<<63 // apart from ids the caller picks
	}
	ch := make(chan message, 1)
	l.mu.Lock()
	if l.pending == nil {
		err := l.err
		l.mu.Unlock()
		return message{}, fmt.Errorf("%w: %v", errLinkClosed, err)
	}
	l.pending[id] = ch
	l.mu.Unlock()
	if err := l.write(message{kind: kindCall, id: id, method: method, meta: b, raw: raw}); err != nil {
		return message{}, err
	}
	select {
	case m := <-ch:
		if m.kind == kindError {
			we := &wireError{}
			if err := json.Unmarshal(m.meta, we); err != nil {
				return message{}, fmt.Errorf("%s: bad error frame: %w", method, err)
			}
			return message{}, we
		}
		return m, nil
	case <-l.done:
		l.mu.Lock()
		err := l.err
		l.mu.Unlock()
		return message{}, fmt.Errorf("%w: %v", errLinkClosed, err)
	case <-ctx.Done():
		l.mu.Lock()
		if l.pending != nil {
			delete(l.pending, id)
		}
		l.mu.Unlock()
		return message{}, ctx.Err()
	}
}

// Notify sends a notification.
func (l *link) Notify(method string, meta any, raw []byte) error {
	b, err := metaOf(meta)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return l.write(message{kind: kindNotify, method: method, meta: b, raw: raw})
}

// Reply answers call id with meta and raw.
func (l *link) Reply(id uint64, meta any, raw []byte) error {
	b, err := metaOf(meta)
	if err != nil {
		return l.ReplyError(id, &wireError{Message: fmt.Sprintf("encode reply: %v", err)})
	}
	return l.write(message{kind: kindReply, id: id, meta: b, raw: raw})
}

// ReplyError answers call id with an error.
func (l *link) ReplyError(id uint64, e *wireError) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return l.write(message{kind: kindError, id: id, meta: b})
}
