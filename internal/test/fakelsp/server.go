// Package fakelsp is a fault-injecting fake language server for testing the
// LSP client. It speaks LSP (Content-Length framing) and answers a small but
// real language: it keeps open documents, reports a diagnostic for every line
// containing ERROR (DiagnosticMessage), answers hover with the word under the
// cursor, definition with the line declaring "func WORD", and documentSymbol
// with every "func NAME" line. A Script makes it misbehave per method: delay,
// never answer, ContentModified/ServerCancelled, crash, garbage output,
// floods, stale or unversioned diagnostics, dynamic registration,
// server→client requests, indexing progress, refusing to exit, not reading
// its input.
//
// It runs in process (Server.Pipe, deterministic under testing/synctest) or
// as a subprocess (Build, then run the binary with -script and -record) for
// process-level faults. Everything it receives is recorded (Server.Received,
// Server.Wait, or ReadRecord on the subprocess's record file).
package fakelsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// Errors Serve returns for the ways a session ends.
var (
	// ErrCrashed: a Behavior with Crash fired.
	ErrCrashed = errors.New("fakelsp: crashed on purpose")
	// ErrExitWithoutShutdown: exit arrived before shutdown (LSP says exit
	// status 1).
	ErrExitWithoutShutdown = errors.New("fakelsp: exit without shutdown")
)

// LSP error codes the server answers with.
const (
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeParseError       = -32700
	CodeRequestCancelled = -32800
	CodeContentModified  = -32801
	CodeServerCancelled  = -32802
)

// Server is one fake language server session. Its methods are safe for
// concurrent use; Serve runs once.
type Server struct {
	script Script
	record io.Writer // may be nil; written under mu

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever received grows
	received []Message
	docs     map[string]*document
	counts   map[string]int
	enc      string
	shutdown bool
	indexing bool
	// created and begun: Indexing.Late's create request and begin sent.
	created, begun bool
	pullOK         bool                     // pull diagnostics registered (dynamic)
	cancels        map[string]chan struct{} // pending delayed requests by id
	answers        map[string]chan Message  // server→client requests by id
	asked          map[string]string        // their methods by id, for the record
	nextID         int

	ready           chan struct{} // closed when the client answered the registration and ClientRequests
	endIndexing     chan struct{}
	endIndexingOnce sync.Once
	// window orders the indexing window's begin (beginLate, on a request's
	// goroutine) and its end (afterInitialized): a real server never ends
	// a window it has not begun, nor begins one after its end.
	window sync.Mutex

	wmu sync.Mutex
	w   io.Writer
}

// New returns a server following script. If record is not nil, every
// received message is also written to it as one JSON line.
func New(script Script, record io.Writer) *Server {
	return &Server{
		script:      script,
		record:      record,
		changed:     make(chan struct{}),
		docs:        map[string]*document{},
		counts:      map[string]int{},
		enc:         "utf-16",
		cancels:     map[string]chan struct{}{},
		answers:     map[string]chan Message{},
		asked:       map[string]string{},
		endIndexing: make(chan struct{}),
		ready:       make(chan struct{}),
	}
}

// Received returns a copy of what the server has received so far.
func (s *Server) Received() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.received...)
}

// Wait blocks until cond holds for the messages received so far (cond is
// called again after every new message) or ctx ends. It never polls, so it
// is durably blocking under testing/synctest.
func (s *Server) Wait(ctx context.Context, cond func([]Message) bool) ([]Message, error) {
	for {
		s.mu.Lock()
		msgs := append([]Message(nil), s.received...)
		ch := s.changed
		s.mu.Unlock()
		if cond(msgs) {
			return msgs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return msgs, ctx.Err()
		}
	}
}

// EndIndexing ends the indexing window now (Script.Indexing).
func (s *Server) EndIndexing() { s.endIndexingOnce.Do(func() { close(s.endIndexing) }) }

// Encoding returns the negotiated position encoding.
func (s *Server) Encoding() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// Pipe serves on an in-memory connection and returns the client's end.
// Closing the client's end ends the session; done receives Serve's result
// once every goroutine of the server has finished.
func (s *Server) Pipe(ctx context.Context) (client io.ReadWriteCloser, done <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ch := make(chan error, 1)
	go func() { ch <- s.Serve(ctx, inR, outW) }()
	return pipeEnd{outR, inW}, ch
}

type pipeEnd struct {
	*io.PipeReader
	w *io.PipeWriter
}

func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error {
	p.w.Close()
	return p.PipeReader.Close()
}

type wireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// errStopReading and errExit end the read loop in special ways.
var (
	errStopReading = errors.New("stop reading")
	errExit        = errors.New("exit")
	errRefuse      = errors.New("refuse exit")
)

// Serve reads requests from r and writes answers to w until the client
// sends exit (nil, or ErrExitWithoutShutdown), r ends, a Crash fires
// (ErrCrashed) or ctx ends. It closes r and w before returning and returns
// only after every goroutine it started has finished. With RefuseExit or a
// StopReading fault it keeps the session open until ctx ends.
func (s *Server) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	s.w = w
	stop := context.AfterFunc(ctx, func() { r.Close(); w.Close() })
	defer func() {
		cancel()
		stop()
		r.Close()
		w.Close()
		wg.Wait()
	}()
	br := bufio.NewReader(r)
	refused := false
	for {
		body, err := readFrame(br)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if refused || s.script.RefuseExit {
				<-ctx.Done()
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch err := s.handle(ctx, &wg, body); {
		case err == nil:
		case errors.Is(err, errStopReading):
			<-ctx.Done()
			return ctx.Err()
		case errors.Is(err, errRefuse):
			refused = true
		case errors.Is(err, errExit):
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if !down {
				return ErrExitWithoutShutdown
			}
			return nil
		default:
			return err
		}
	}
}

func (s *Server) add(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, m)
	if s.record != nil {
		b, _ := json.Marshal(m)
		s.record.Write(append(b, '\n'))
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return writeFrame(s.w, b)
}

func (s *Server) writeRaw(b string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	io.WriteString(s.w, b)
}

func (s *Server) notify(method string, params any) error {
	return s.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (s *Server) reply(id json.RawMessage, result any) error {
	if result == nil {
		result = json.RawMessage("null")
	}
	return s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *Server) replyError(id json.RawMessage, code int, msg string) error {
	return s.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// call sends a server→client request and waits for its answer.
func (s *Server) call(ctx context.Context, method string, params any) (Message, error) {
	ch, err := s.send(method, params)
	if err != nil {
		return Message{}, err
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return Message{}, ctx.Err()
	}
}

// send sends a server→client request; its answer arrives on the channel.
func (s *Server) send(method string, params any) (chan Message, error) {
	s.mu.Lock()
	s.nextID++
	id := strconv.Itoa(s.nextID)
	ch := make(chan Message, 1)
	s.answers[id] = ch
	s.asked[id] = method
	s.mu.Unlock()
	if params == nil {
		params = json.RawMessage("null")
	}
	if err := s.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params}); err != nil {
		return nil, err
	}
	return ch, nil
}

func (s *Server) handle(ctx context.Context, wg *sync.WaitGroup, body []byte) error {
	var m wireMsg
	if err := json.Unmarshal(body, &m); err != nil {
		raw, _ := json.Marshal(string(body))
		s.add(Message{Kind: "invalid", Params: raw})
		return s.replyError(json.RawMessage("null"), CodeParseError, "fakelsp: parse error: "+err.Error())
	}
	switch {
	case m.Method == "" && m.ID != nil:
		s.mu.Lock()
		ch := s.answers[string(m.ID)]
		delete(s.answers, string(m.ID))
		method := s.asked[string(m.ID)]
		delete(s.asked, string(m.ID))
		s.mu.Unlock()
		msg := Message{Kind: "response", ID: m.ID, Method: method, Result: m.Result, Error: m.Error}
		if ch != nil {
			ch <- msg
		}
		s.add(msg)
		return nil
	case m.ID == nil:
		s.add(Message{Kind: "notification", Method: m.Method, Params: m.Params})
		return s.notification(ctx, wg, m)
	}
	s.add(Message{Kind: "request", ID: m.ID, Method: m.Method, Params: m.Params})
	return s.request(ctx, wg, m)
}

func (s *Server) request(ctx context.Context, wg *sync.WaitGroup, m wireMsg) error {
	if s.holds() && m.Method != "initialize" && m.Method != "shutdown" {
		select {
		case <-s.ready:
		default:
			// Held until the client answered the server's own requests.
			// Faults that end the read loop cannot fire from here.
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-s.ready:
					s.respond(ctx, wg, m)
				case <-ctx.Done():
				}
			}()
			return nil
		}
	}
	return s.respond(ctx, wg, m)
}

// holds reports whether requests wait for the server→client requests sent
// after initialized to be answered.
func (s *Server) holds() bool {
	return s.script.Diagnostics == DiagDynamic || len(s.script.ClientRequests) > 0
}

// count counts a message of method and returns its number and whether
// b's faults apply to it (Behavior.Times).
func (s *Server) count(method string, b Behavior) (int, bool) {
	s.mu.Lock()
	s.counts[method]++
	n := s.counts[method]
	s.mu.Unlock()
	return n, b.Times == 0 || n <= b.Times
}

func (s *Server) respond(ctx context.Context, wg *sync.WaitGroup, m wireMsg) error {
	b := s.script.Methods[m.Method]
	n, faulty := s.count(m.Method, b)
	if !faulty {
		b.Delay = 0
	}
	if faulty {
		switch {
		case b.StopReading:
			return errStopReading
		case b.Crash:
			return fmt.Errorf("%w on %s", ErrCrashed, m.Method)
		case b.Garbage != "":
			s.writeRaw(b.Garbage)
			return nil
		}
		if err := s.flood(m, b); err != nil {
			return err
		}
	}
	s.mu.Lock()
	indexing := s.indexing
	s.mu.Unlock()
	var answer func() error
	switch {
	case b.ContentModifiedWhileIndexing && indexing:
		answer = func() error {
			return s.replyError(m.ID, CodeContentModified, "fakelsp: content modified while indexing")
		}
	case n <= b.ContentModified:
		answer = func() error { return s.replyError(m.ID, CodeContentModified, "fakelsp: content modified") }
	case n <= b.ContentModified+b.ServerCancelled:
		answer = func() error { return s.replyError(m.ID, CodeServerCancelled, "fakelsp: server cancelled") }
	case faulty && b.NeverAnswer:
		return nil
	case b.Error != 0:
		answer = func() error { return s.replyError(m.ID, b.Error, b.ErrorMessage) }
	case b.Result != nil:
		if m.Method == "initialize" {
			// A scripted answer still sets the encoding the fake counts in
			// (Script.PositionEncoding), which the answer should claim.
			s.initialize(m.Params)
		}
		answer = func() error { return s.reply(m.ID, b.Result) }
	default:
		result, code, msg := s.answer(ctx, wg, m)
		if code != 0 {
			answer = func() error { return s.replyError(m.ID, code, msg) }
		} else {
			answer = func() error { return s.reply(m.ID, result) }
		}
	}
	if b.Delay <= 0 {
		if b.Progress != "" {
			tok := "fakelsp/request/" + string(m.ID)
			if err := s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "begin", "title": b.Progress}}); err != nil {
				return err
			}
			defer s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "end"}})
		}
		err := answer()
		if err == nil {
			err = s.beginLate()
		}
		if err == nil && m.Method == "initialize" && s.script.BeforeInitialized {
			err = s.onInitialized(ctx, wg)
		}
		if ix := s.script.Indexing; ix != nil && ix.EndAfter == m.Method && n >= max(ix.EndAfterCount, 1) {
			s.EndIndexing()
		}
		return err
	}
	cancelled := make(chan struct{})
	if !b.IgnoreCancel {
		s.mu.Lock()
		s.cancels[string(m.ID)] = cancelled
		s.mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(time.Duration(b.Delay))
		defer t.Stop()
		select {
		case <-t.C:
			s.dropCancel(m.ID)
			answer()
		case <-cancelled:
			s.replyError(m.ID, CodeRequestCancelled, "fakelsp: request cancelled")
		case <-ctx.Done():
		}
	}()
	return nil
}

func (s *Server) dropCancel(id json.RawMessage) {
	s.mu.Lock()
	delete(s.cancels, string(id))
	s.mu.Unlock()
}

func (s *Server) flood(m wireMsg, b Behavior) error {
	if b.FloodProgress > 0 {
		tok := "fakelsp/flood"
		if err := s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "begin", "title": "flood"}}); err != nil {
			return err
		}
		for i := range b.FloodProgress {
			if err := s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "report", "message": strconv.Itoa(i)}}); err != nil {
				return err
			}
		}
		if err := s.notify("$/progress", map[string]any{"token": tok, "value": map[string]any{"kind": "end"}}); err != nil {
			return err
		}
	}
	if b.FloodDiagnostics > 0 {
		uri := docURI(m.Params)
		if uri == "" {
			uri = "file:///fakelsp/flood"
		}
		s.mu.Lock()
		var diags []wire.Diagnostic
		version := 0
		if d := s.docs[uri]; d != nil {
			diags, version = diagnosticsFor(s.enc, d.text), d.version
		}
		s.mu.Unlock()
		for range b.FloodDiagnostics {
			if err := s.publish(uri, version, diags); err != nil {
				return err
			}
		}
	}
	return nil
}

func docURI(params json.RawMessage) string {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	json.Unmarshal(params, &p)
	return p.TextDocument.URI
}

func (s *Server) publish(uri string, version int, diags []wire.Diagnostic) error {
	if diags == nil {
		diags = []wire.Diagnostic{}
	}
	p := map[string]any{"uri": uri, "diagnostics": diags}
	if s.script.Publish != PublishUnversioned && version != 0 {
		p["version"] = version
	}
	return s.notify("textDocument/publishDiagnostics", p)
}

func (s *Server) pushes() bool {
	d := s.script.Diagnostics
	return d == "" || d == DiagPush || d == DiagBoth || d == DiagUnadvertised
}

// schedulePush publishes diagnostics for one state of a document, after
// PublishDelay if any.
func (s *Server) schedulePush(ctx context.Context, wg *sync.WaitGroup, uri string, version int, text string) error {
	if !s.pushes() {
		return nil
	}
	s.mu.Lock()
	enc, indexing := s.enc, s.indexing
	s.mu.Unlock()
	if indexing {
		if s.script.Indexing.PublishEmpty {
			return s.publish(uri, version, nil)
		}
		return nil // pushed when indexing ends
	}
	diags := diagnosticsFor(enc, text)
	send := func() error {
		if !s.script.DoublePublish {
			return s.publish(uri, version, diags)
		}
		if err := s.publish(uri, version, nil); err != nil {
			return err
		}
		if s.script.ExtraPass {
			if err := s.publish(uri, version, nil); err != nil {
				return err
			}
		}
		if s.script.PassDelay <= 0 {
			return s.publish(uri, version, diags)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTimer(time.Duration(s.script.PassDelay))
			defer t.Stop()
			select {
			case <-t.C:
				s.publish(uri, version, diags)
			case <-ctx.Done():
			}
		}()
		return nil
	}
	if s.script.PublishDelay <= 0 {
		return send()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(time.Duration(s.script.PublishDelay))
		defer t.Stop()
		select {
		case <-t.C:
			send()
		case <-ctx.Done():
		}
	}()
	return nil
}

// publishAfter publishes diags on uri without a version after delay.
func (s *Server) publishAfter(ctx context.Context, wg *sync.WaitGroup, delay time.Duration, uri string, diags []wire.Diagnostic) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			s.publish(uri, 0, diags)
		case <-ctx.Done():
		}
	}()
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

func (s *Server) notification(ctx context.Context, wg *sync.WaitGroup, m wireMsg) error {
	if b, ok := s.script.Methods[m.Method]; ok && b.Crash {
		if _, faulty := s.count(m.Method, b); faulty {
			return fmt.Errorf("%w on %s", ErrCrashed, m.Method)
		}
	}
	switch m.Method {
	case "exit":
		if s.script.RefuseExit {
			return errRefuse
		}
		return errExit
	case "initialized":
		if s.script.BeforeInitialized {
			return nil
		}
		return s.onInitialized(ctx, wg)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		ch := s.cancels[string(p.ID)]
		delete(s.cancels, string(p.ID))
		s.mu.Unlock()
		if ch != nil {
			close(ch)
		}
	case "textDocument/didOpen":
		var p struct {
			TextDocument textDocumentItem `json:"textDocument"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return nil
		}
		d := p.TextDocument
		s.mu.Lock()
		s.docs[d.URI] = &document{uri: d.URI, version: d.Version, text: d.Text}
		create := s.script.Indexing != nil && s.script.Indexing.Late && !s.created && s.indexing
		s.created = s.created || create
		s.mu.Unlock()
		if create {
			if _, err := s.send("window/workDoneProgress/create", map[string]any{"token": s.indexToken()}); err != nil {
				return err
			}
		}
		if err := s.schedulePush(ctx, wg, d.URI, d.Version, d.Text); err != nil {
			return err
		}
		for _, e := range s.script.Elsewhere {
			if e.OnOpen {
				s.publishAfter(ctx, wg, time.Duration(e.Delay), e.URI, diagnosticsFor(s.Encoding(), d.Text))
			}
		}
		return nil
	case "textDocument/didChange":
		var p struct {
			TextDocument   textDocumentItem `json:"textDocument"`
			ContentChanges []struct {
				Range *position.Range `json:"range"`
				Text  string          `json:"text"`
			} `json:"contentChanges"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return nil
		}
		s.mu.Lock()
		d := s.docs[p.TextDocument.URI]
		if d == nil {
			s.mu.Unlock()
			return nil
		}
		oldVersion, oldText := d.version, d.text
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				d.text = c.Text
				continue
			}
			a, b := offset(s.enc, d.text, c.Range.Start), offset(s.enc, d.text, c.Range.End)
			if b < a {
				a, b = b, a
			}
			d.text = d.text[:a] + c.Text + d.text[b:]
		}
		d.version = p.TextDocument.Version
		version, text := d.version, d.text
		s.mu.Unlock()
		if s.script.Publish == PublishStale {
			return s.schedulePush(ctx, wg, d.uri, oldVersion, oldText)
		}
		if err := s.schedulePush(ctx, wg, d.uri, version, text); err != nil {
			return err
		}
		for _, e := range s.script.Elsewhere {
			s.publishAfter(ctx, wg, time.Duration(e.Delay), e.URI, diagnosticsFor(s.Encoding(), text))
		}
		return nil
	case "textDocument/didClose":
		uri := docURI(m.Params)
		s.mu.Lock()
		delete(s.docs, uri)
		s.mu.Unlock()
		if s.pushes() {
			return s.publish(uri, 0, nil)
		}
	}
	return nil
}

func (s *Server) indexToken() string {
	if s.script.Indexing != nil && s.script.Indexing.Token != "" {
		return s.script.Indexing.Token
	}
	return "fakelsp/indexing"
}

// indexTitle is the title of the indexing window's progress.
func (s *Server) indexTitle() string {
	if s.script.Indexing.Title != "" {
		return s.script.Indexing.Title
	}
	return "Indexing"
}

// registration registers pull diagnostics (DiagDynamic).
var registration = map[string]any{
	"registrations": []any{map[string]any{
		"id":     "fakelsp/diagnostic",
		"method": "textDocument/diagnostic",
		"registerOptions": map[string]any{
			"documentSelector":      nil,
			"identifier":            "fakelsp",
			"interFileDependencies": false,
			"workspaceDiagnostics":  false,
		},
	}},
}

// onInitialized starts what the server does once initialized (on the
// client's initialized, or right after its initialize answer with
// Script.BeforeInitialized).
func (s *Server) onInitialized(ctx context.Context, wg *sync.WaitGroup) error {
	var registered chan Message
	if s.script.Diagnostics == DiagDynamic {
		var err error
		if registered, err = s.send("client/registerCapability", registration); err != nil {
			return err
		}
	}
	var created chan Message
	if ix := s.script.Indexing; ix != nil && (ix.Silent || ix.Late) {
		s.mu.Lock()
		s.indexing = true
		s.mu.Unlock()
	} else if ix != nil && ix.Eager {
		var err error
		if created, err = s.begin(); err != nil {
			return err
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.afterInitialized(ctx, registered, created)
	}()
	return nil
}

// afterInitialized runs the server→client traffic a real server starts
// once initialized: indexing progress, scripted requests.
func (s *Server) afterInitialized(ctx context.Context, registered, created chan Message) {
	if registered != nil {
		select {
		case ans := <-registered:
			s.mu.Lock()
			s.pullOK = ans.Error == nil
			s.mu.Unlock()
		case <-ctx.Done():
			return
		}
	}
	var indexEnd <-chan time.Time
	if ix := s.script.Indexing; ix != nil {
		switch {
		case ix.Silent, ix.Late:
		case created == nil:
			if _, err := s.call(ctx, "window/workDoneProgress/create", map[string]any{"token": s.indexToken()}); err != nil {
				return
			}
			if err := s.openWindow(); err != nil {
				return
			}
		default:
			select {
			case <-created:
			case <-ctx.Done():
				return
			}
		}
		if ix.Duration > 0 {
			t := time.NewTimer(time.Duration(ix.Duration))
			defer t.Stop()
			indexEnd = t.C
		}
	}
	for _, r := range s.script.ClientRequests {
		if _, err := s.call(ctx, r.Method, r.Params); err != nil {
			return
		}
	}
	close(s.ready)
	if s.script.Indexing == nil {
		return
	}
	select {
	case <-indexEnd:
	case <-s.endIndexing:
	case <-ctx.Done():
		return
	}
	open, err := s.endWindow()
	if err != nil {
		return
	}
	slices.SortFunc(open, func(a, b pending) int { return strings.Compare(a.uri, b.uri) })
	var wg sync.WaitGroup
	for _, d := range open {
		if s.schedulePush(ctx, &wg, d.uri, d.version, d.text) != nil {
			break
		}
	}
	wg.Wait()
}

// endWindow ends the indexing window: its end progress and log, per the
// script; it returns the open documents to push diagnostics for.
func (s *Server) endWindow() ([]pending, error) {
	s.window.Lock()
	defer s.window.Unlock()
	s.mu.Lock()
	s.indexing = false
	var open []pending
	for _, d := range s.docs {
		open = append(open, pending{d.uri, d.text, d.version})
	}
	s.mu.Unlock()
	ix := s.script.Indexing
	if ix.Then != "" {
		if err := s.notify("$/progress", map[string]any{"token": s.indexToken() + "/then", "value": map[string]any{"kind": "begin", "title": ix.Then}}); err != nil {
			return nil, err
		}
	}
	if !ix.Silent {
		if err := s.notify("$/progress", map[string]any{"token": s.indexToken(), "value": map[string]any{"kind": "end", "message": "done"}}); err != nil {
			return nil, err
		}
	}
	if ix.EndLog != "" {
		if err := s.notify("window/logMessage", map[string]any{"type": 3, "message": ix.EndLog}); err != nil {
			return nil, err
		}
	}
	return open, nil
}

// pending is an open document as the indexing window ends.
type pending struct {
	uri, text string
	version   int
}

// begin sends the create request and, at once, the $/progress begin
// (Indexing.Eager); it returns the channel of the create's answer.
func (s *Server) begin() (chan Message, error) {
	ch, err := s.send("window/workDoneProgress/create", map[string]any{"token": s.indexToken()})
	if err != nil {
		return nil, err
	}
	if err := s.openWindow(); err != nil {
		return nil, err
	}
	return ch, nil
}

// beginLate sends Indexing.Late's begin after the first answer.
func (s *Server) beginLate() error {
	s.window.Lock()
	defer s.window.Unlock()
	s.mu.Lock()
	begin := s.script.Indexing != nil && s.script.Indexing.Late && s.created && !s.begun && s.indexing
	s.begun = s.begun || begin
	s.mu.Unlock()
	if !begin {
		return nil
	}
	return s.openWindow()
}

// openWindow opens the indexing window.
func (s *Server) openWindow() error {
	s.mu.Lock()
	s.indexing = true
	s.mu.Unlock()
	if err := s.notify("$/progress", map[string]any{"token": s.indexToken(), "value": map[string]any{"kind": "begin", "title": s.indexTitle(), "percentage": 0}}); err != nil {
		return err
	}
	if r := s.script.Indexing.Report; r != "" {
		return s.notify("$/progress", map[string]any{"token": s.indexToken(), "value": map[string]any{"kind": "report", "message": r, "percentage": 50}})
	}
	return nil
}
