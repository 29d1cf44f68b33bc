package lsp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// TestWaitPushTiming runs the push-diagnostics wait in fake time: when a
// verdict is reached and which one, for versioned, unversioned (settle
// window), stale, missing and loading servers and a server that exits.
// Each event happens at a fixed fake time; the answer's time is exact.
func TestWaitPushTiming(t *testing.T) {
	const settle = 300 * time.Millisecond
	const deadline = 2 * time.Second
	type event struct {
		at      time.Duration
		version int // 0: unversioned
		n       int // diagnostics
		kind    string
	}
	pub := func(at time.Duration, version, n int) event { return event{at, version, n, "publish"} }
	begin := func(at time.Duration) event { return event{at, 0, 0, "begin"} }
	end := func(at time.Duration) event { return event{at, 0, 0, "end"} }
	for _, tc := range []struct {
		name    string
		before  []event // before the document was synced
		events  []event
		verdict Verdict
		at      time.Duration // when the answer comes
		n       int
		version int32
	}{
		{"versioned, current", nil, []event{pub(100*time.Millisecond, 2, 1)}, Fresh, 100 * time.Millisecond, 1, 2},
		{"versioned, older first", nil, []event{pub(100*time.Millisecond, 1, 3), pub(400*time.Millisecond, 2, 1)}, Fresh, 400 * time.Millisecond, 1, 2},
		{"versioned, only older", nil, []event{pub(100*time.Millisecond, 1, 3)}, Stale, deadline, 3, 1},
		{"unversioned settles after the last", nil, []event{pub(100*time.Millisecond, 0, 0), pub(250*time.Millisecond, 0, 2)}, Fresh, 250*time.Millisecond + settle, 2, 0},
		{"unversioned before the sync does not count", []event{pub(0, 0, 5)}, nil, Stale, deadline, 5, 0},
		{"nothing", nil, nil, Timeout, deadline, 0, 0},
		{"nothing while loading", nil, []event{{50 * time.Millisecond, 0, 0, "begin"}}, Indexing, deadline, 0, 0},
		{"server exits", nil, []event{{700 * time.Millisecond, 0, 0, "exit"}}, Failed, 700 * time.Millisecond, 0, 0},
		{"connection lost", nil, []event{{900 * time.Millisecond, 0, 0, "lose"}}, Failed, 900 * time.Millisecond, 0, 0},
		// An empty list published while loading is provisional.
		{"empty while loading, errors after", nil, []event{begin(50 * time.Millisecond), pub(100*time.Millisecond, 2, 0), end(500 * time.Millisecond), pub(550*time.Millisecond, 2, 1)}, Fresh, 550 * time.Millisecond, 1, 2},
		{"empty while loading, nothing after", nil, []event{begin(50 * time.Millisecond), pub(100*time.Millisecond, 2, 0), end(500 * time.Millisecond)}, Fresh, 500*time.Millisecond + settle, 0, 2},
		{"empty while loading until the deadline", nil, []event{begin(50 * time.Millisecond), pub(100*time.Millisecond, 2, 0)}, Indexing, deadline, 0, 0},
		{"unversioned empty while loading", nil, []event{begin(50 * time.Millisecond), pub(100*time.Millisecond, 0, 0), end(400 * time.Millisecond)}, Fresh, 400*time.Millisecond + settle, 0, 0},
		{"errors while loading are not provisional", nil, []event{begin(50 * time.Millisecond), pub(100*time.Millisecond, 2, 2)}, Fresh, 100 * time.Millisecond, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, p := bareProc()
				// A real connection over an in-memory pipe, so that losing
				// it can be one of the events.
				client, server := net.Pipe()
				p.conn = jsonrpc2.NewConn(t.Context(), jsonrpc2.NewBufferedStream(client, frameCodec{}), jsonrpc2.HandlerWithError(
					func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
				defer p.conn.Close()
				defer server.Close()
				const uri = "file:///w/a.fk"
				apply := func(ev event) {
					switch ev.kind {
					case "publish":
						diags := "["
						for i := range ev.n {
							if i > 0 {
								diags += ","
							}
							diags += `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"m` + strconv.Itoa(i) + `"}`
						}
						params := `{"uri":"` + uri + `","diagnostics":` + diags + `]`
						if ev.version != 0 {
							params += `,"version":` + strconv.Itoa(ev.version)
						}
						p.publishDiagnostics(json.RawMessage(params + "}"))
					case "begin":
						p.onProgress(json.RawMessage(`{"token":"t","value":{"kind":"begin","title":"Loading"}}`))
					case "end":
						p.onProgress(json.RawMessage(`{"token":"t","value":{"kind":"end"}}`))
					case "exit":
						close(p.done)
					case "lose":
						server.Close()
					}
				}
				for _, ev := range tc.before {
					apply(ev)
				}
				d := document{path: "/w/a.fk", uri: uri, version: 2, sentSeq: p.diags.current()}
				go func() {
					start := time.Now()
					for _, ev := range tc.events {
						time.Sleep(ev.at - time.Since(start))
						apply(ev)
					}
				}()
				ctx, cancel := context.WithTimeout(t.Context(), deadline)
				defer cancel()
				start := time.Now()
				fd := s.waitPush(ctx, p, d, settle, FileDiagnostics{Diagnostics: json.RawMessage("[]")})
				if took := time.Since(start); fd.Verdict != tc.verdict || took != tc.at || fd.Version != tc.version || len(messages(t, fd.Diagnostics)) != tc.n {
					t.Fatalf("%+v after %v; want %s with %d diagnostics, version %d, after %v", fd, took, tc.verdict, tc.n, tc.version, tc.at)
				}
				if fd.Verdict != Fresh && fd.Detail == "" {
					t.Fatalf("verdict %s without detail", fd.Verdict)
				}
				synctest.Wait() // the event goroutine has finished
			})
		})
	}
}

// bareProc is a proc with no process behind it, for driving the client's
// state machines (diagnostics store, progress) directly in fake time.
func bareProc() (*server, *proc) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m := &Manager{log: log, now: time.Now, subs: map[int]chan DiagnosticsEvent{}}
	s := &server{mgr: m, cfg: ServerConfig{Name: "bare"}, log: log}
	p := &proc{srv: s, log: log, done: make(chan struct{}), docs: map[string]*document{}, progress: map[string]*Progress{},
		dynRegs: map[string]Registration{}, changed: make(chan struct{}), loaded: true, answered: map[uint64]*Readiness{}}
	p.diags.init()
	return s, p
}

// pyrightRules are pyright's load signals, compiled.
var pyrightRules = func() loadRules {
	r, err := pyrightDone.compile("pyright")
	if err != nil {
		panic(err)
	}
	return r
}()

// FuzzServerMessages feeds arbitrary params to the handlers of what a
// server sends on its own (notifications and server→client requests other
// than workspace/applyEdit, which writes files): nothing panics, a bad
// request gets a JSON-RPC error rather than a crash, and whatever was
// stored stays readable (diagnostics decode, progress titles list).
func FuzzServerMessages(f *testing.F) {
	methods := []string{"textDocument/publishDiagnostics", "$/progress", "window/logMessage", "workspace/configuration",
		"client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create", "workspace/diagnostic/refresh", "acme/unknown"}
	f.Add(uint8(0), []byte(`{"uri":"file:///w/a.fk","version":3,"diagnostics":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"message":"m"}]}`))
	f.Add(uint8(1), []byte(`{"token":"t","value":{"kind":"begin","title":"x"}}`))
	f.Add(uint8(1), []byte(`{"token":1,"value":{"kind":"end"}}`))
	f.Add(uint8(1), []byte(`{"token":"t","value":{"kind":"report","message":"3/10","percentage":30}}`))
	f.Add(uint8(2), []byte(`{"type":3,"message":"Found 12 source files"}`))
	f.Add(uint8(6), []byte(`{"token":"backgroundIndexProgress"}`))
	f.Add(uint8(3), []byte(`{"items":[{"section":"a"},{}]}`))
	f.Add(uint8(4), []byte(`{"registrations":[{"id":"1","method":"textDocument/diagnostic","registerOptions":{"identifier":"x"}}]}`))
	f.Add(uint8(5), []byte(`{"unregisterations":[{"id":"1","method":"x"}]}`))
	f.Add(uint8(0), []byte(`{"uri":"file:///w/a.fk","diagnostics":null}`))
	f.Add(uint8(0), []byte(`{"uri":"file:///w/a.fk","diagnostics":5}`)) // was stored, then sliced as an array
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		_, p := bareProc()
		p.srv.cfg.Settings = map[string]json.RawMessage{"a": json.RawMessage(`{"b":1}`)}
		p.srv.load, p.loaded = pyrightRules, false // the done log read too
		method := methods[int(which)%len(methods)]
		switch method {
		case "textDocument/publishDiagnostics", "$/progress", "window/logMessage":
			p.notification(method, params)
		default:
			if method == "window/workDoneProgress/create" {
				p.progressCreated(params) // Handle does so before answering
			}
			res, rerr := p.serverRequest(method, params)
			if rerr == nil {
				if _, err := encode(res); err != nil {
					t.Fatalf("%s: answer does not encode: %v", method, err)
				}
			} else if rerr.Code == 0 || rerr.Message == "" {
				t.Fatalf("%s: error without code or message: %+v", method, rerr)
			}
		}
		p.diags.mu.Lock()
		entries := make([]diagEntry, 0, len(p.diags.m))
		for _, e := range p.diags.m {
			entries = append(entries, e)
		}
		p.diags.mu.Unlock()
		for _, e := range entries {
			if !isArray(e.diags) {
				t.Fatalf("stored diagnostics are not a JSON array: %s", e.diags)
			}
		}
		r, _ := p.readiness()
		_ = r.Work()
		p.pullSupported()
	})
}
