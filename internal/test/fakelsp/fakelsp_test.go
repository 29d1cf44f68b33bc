package fakelsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}))
}

// testClient is the client side of a Pipe session, driven by hand.
type testClient struct {
	t    *testing.T
	conn io.ReadWriteCloser
	r    *bufio.Reader
	next int
}

func start(t *testing.T, ctx context.Context, s *Server) (*testClient, <-chan error) {
	conn, done := s.Pipe(ctx)
	return &testClient{t: t, conn: conn, r: bufio.NewReader(conn)}, done
}

func (c *testClient) send(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if err := writeFrame(c.conn, b); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// request sends a request and returns its id.
func (c *testClient) request(method string, params any) int {
	c.t.Helper()
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.next
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (c *testClient) read() wireMsg {
	c.t.Helper()
	b, err := readFrame(c.r)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m wireMsg
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("read: %v in %s", err, b)
	}
	return m
}

// reply reads the next message, which must be the answer to id.
func (c *testClient) reply(id int) wireMsg {
	c.t.Helper()
	m := c.read()
	if m.Method != "" || string(m.ID) != itoa(id) {
		c.t.Fatalf("want answer to %d, got %+v", id, m)
	}
	return m
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func (c *testClient) errCode(m wireMsg) int {
	c.t.Helper()
	var e struct {
		Code int `json:"code"`
	}
	if m.Error == nil {
		c.t.Fatalf("want an error, got result %s", m.Result)
	}
	json.Unmarshal(m.Error, &e)
	return e.Code
}

func (c *testClient) initialize(encs ...string) wireMsg {
	c.t.Helper()
	id := c.request("initialize", map[string]any{"capabilities": map[string]any{"general": map[string]any{"positionEncodings": encs}}})
	m := c.reply(id)
	c.notify("initialized", map[string]any{})
	return m
}

func (c *testClient) open(uri, text string, version int) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": version, "text": text}})
}

func (c *testClient) change(uri, text string, version int) {
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{map[string]any{"text": text}}})
}

func (c *testClient) shutdownExit(done <-chan error) {
	c.t.Helper()
	c.reply(c.request("shutdown", nil))
	c.notify("exit", nil)
	if err := <-done; err != nil {
		c.t.Fatalf("Serve after shutdown and exit: %v", err)
	}
	c.conn.Close()
}

type published struct {
	URI         string            `json:"uri"`
	Version     *int              `json:"version"`
	Diagnostics []wire.Diagnostic `json:"diagnostics"`
	Raw         json.RawMessage   `json:"-"`
}

func (c *testClient) publish() published {
	c.t.Helper()
	m := c.read()
	if m.Method != "textDocument/publishDiagnostics" {
		c.t.Fatalf("want publishDiagnostics, got %+v", m)
	}
	var p published
	json.Unmarshal(m.Params, &p)
	return p
}

const uri = "file:///w/a.go"

func TestEncodings(t *testing.T) {
	// "é" is 2 bytes, 1 UTF-16 unit; "😀" is 4 bytes, 2 UTF-16 units, 1
	// code point. ERROR starts after "x := \"é😀\" // ".
	const line = "x := \"é😀\" // ERROR"
	prefix := line[:strings.Index(line, "ERROR")]
	for _, tc := range []struct {
		script, offer string
		want          string
		col           int
	}{
		{"", "utf-8", "utf-16", 14},
		{"utf-8", "utf-8", "utf-8", len(prefix)},
		{"utf-8", "utf-16", "utf-16", 14},
		{"utf-32", "utf-32", "utf-32", 13},
		{"utf-16", "utf-16", "utf-16", 14},
	} {
		t.Run(tc.script+"/"+tc.offer, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(Script{PositionEncoding: tc.script}, nil)
				c, done := start(t, t.Context(), s)
				init := c.initialize(tc.offer)
				var r struct {
					Capabilities struct {
						PositionEncoding string `json:"positionEncoding"`
					} `json:"capabilities"`
				}
				json.Unmarshal(init.Result, &r)
				if r.Capabilities.PositionEncoding != tc.want || s.Encoding() != tc.want {
					t.Fatalf("encoding %q (server %q), want %q", r.Capabilities.PositionEncoding, s.Encoding(), tc.want)
				}
				c.open(uri, "package a\n"+line+"\nfunc Foo() {}\n", 1)
				p := c.publish()
				if len(p.Diagnostics) != 1 || p.Version == nil || *p.Version != 1 {
					t.Fatalf("publish %+v", p)
				}
				d := p.Diagnostics[0]
				if d.Message != DiagnosticMessage || d.Range.Start != pos(1, tc.col) || d.Range.End != pos(1, tc.col+5) {
					t.Fatalf("diagnostic %+v, want line 1 col %d", d, tc.col)
				}
				// Hover on the word ERROR at its reported column.
				id := c.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(1, tc.col+1)})
				var h struct {
					Contents struct{ Value string } `json:"contents"`
					Range    position.Range         `json:"range"`
				}
				json.Unmarshal(c.reply(id).Result, &h)
				if h.Contents.Value != HoverPrefix+"ERROR" || h.Range != d.Range {
					t.Fatalf("hover %+v", h)
				}
				c.shutdownExit(done)
			})
		})
	}
}

func TestAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{}, nil)
		c, done := start(t, t.Context(), s)
		c.initialize()
		c.open(uri, "package a\nfunc Foo() {}\nfunc Bar() { Foo() }\n", 1)
		c.publish()
		var locs []struct {
			URI   string         `json:"uri"`
			Range position.Range `json:"range"`
		}
		json.Unmarshal(c.reply(c.request("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(2, 14)})).Result, &locs)
		if len(locs) != 1 || locs[0].URI != uri || locs[0].Range != (position.Range{Start: pos(1, 5), End: pos(1, 8)}) {
			t.Fatalf("definition %+v", locs)
		}
		var syms []struct{ Name string }
		json.Unmarshal(c.reply(c.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})).Result, &syms)
		if len(syms) != 2 || syms[0].Name != "Foo" || syms[1].Name != "Bar" {
			t.Fatalf("symbols %+v", syms)
		}
		if code := c.errCode(c.reply(c.request("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}}))); code != CodeMethodNotFound {
			t.Fatalf("pull on a push-only server: code %d", code)
		}
		if code := c.errCode(c.reply(c.request("no/such", nil))); code != CodeMethodNotFound {
			t.Fatalf("unknown method: code %d", code)
		}
		c.send(json.RawMessage(`{not json`))
		if code := c.errCode(c.read()); code != CodeParseError {
			t.Fatalf("garbage from the client: code %d", code)
		}
		c.change(uri, "package a\nERROR\n", 2)
		if p := c.publish(); len(p.Diagnostics) != 1 || *p.Version != 2 {
			t.Fatalf("after change %+v", p)
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
		if p := c.publish(); len(p.Diagnostics) != 0 || p.Version != nil {
			t.Fatalf("after close %+v", p)
		}
		if got := Versions(s.Received(), uri); len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Fatalf("versions %v", got)
		}
		c.shutdownExit(done)
	})
}

func TestRequestFaults(t *testing.T) {
	hover := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(0, 1)}
	for _, tc := range []struct {
		name string
		b    Behavior
		// run drives the client after the document is open and checks.
		run func(t *testing.T, c *testClient, s *Server)
	}{
		{"content modified twice", Behavior{ContentModified: 2}, func(t *testing.T, c *testClient, s *Server) {
			for range 2 {
				if code := c.errCode(c.reply(c.request("textDocument/hover", hover))); code != CodeContentModified {
					t.Fatalf("code %d", code)
				}
			}
			if m := c.reply(c.request("textDocument/hover", hover)); m.Error != nil {
				t.Fatalf("third try: %s", m.Error)
			}
		}},
		{"server cancelled once", Behavior{ServerCancelled: 1}, func(t *testing.T, c *testClient, s *Server) {
			if code := c.errCode(c.reply(c.request("textDocument/hover", hover))); code != CodeServerCancelled {
				t.Fatalf("code %d", code)
			}
			if m := c.reply(c.request("textDocument/hover", hover)); m.Error != nil {
				t.Fatalf("second try: %s", m.Error)
			}
		}},
		{"delay then answer", Behavior{Delay: Duration(time.Minute)}, func(t *testing.T, c *testClient, s *Server) {
			t0 := time.Now()
			c.reply(c.request("textDocument/hover", hover))
			if d := time.Since(t0); d != time.Minute {
				t.Fatalf("answered after %v", d)
			}
		}},
		{"delay, cancelled", Behavior{Delay: Duration(time.Hour)}, func(t *testing.T, c *testClient, s *Server) {
			id := c.request("textDocument/hover", hover)
			c.notify("$/cancelRequest", map[string]any{"id": id})
			if code := c.errCode(c.reply(id)); code != CodeRequestCancelled {
				t.Fatalf("code %d", code)
			}
			if got := CancelledIDs(s.Received()); len(got) != 1 || got[0] != itoa(id) {
				t.Fatalf("cancelled %v", got)
			}
		}},
		{"delay once", Behavior{Delay: Duration(time.Minute), Times: 1}, func(t *testing.T, c *testClient, s *Server) {
			t0 := time.Now()
			c.reply(c.request("textDocument/hover", hover))
			c.reply(c.request("textDocument/hover", hover))
			if d := time.Since(t0); d != time.Minute {
				t.Fatalf("answered after %v", d)
			}
		}},
		{"never answer, once", Behavior{NeverAnswer: true, Times: 1}, func(t *testing.T, c *testClient, s *Server) {
			c.request("textDocument/hover", hover)
			// The second request is answered, proving the first never was.
			id := c.request("textDocument/hover", hover)
			c.reply(id)
		}},
		{"error", Behavior{Error: -32603, ErrorMessage: "boom"}, func(t *testing.T, c *testClient, s *Server) {
			if code := c.errCode(c.reply(c.request("textDocument/hover", hover))); code != -32603 {
				t.Fatalf("code %d", code)
			}
		}},
		{"result", Behavior{Result: json.RawMessage(`[{"uri":"file:///elsewhere.ts","range":{"start":{"line":4,"character":2},"end":{"line":4,"character":5}}}]`)}, func(t *testing.T, c *testClient, s *Server) {
			m := c.reply(c.request("textDocument/hover", hover))
			if m.Error != nil || !strings.Contains(string(m.Result), `"uri":"file:///elsewhere.ts"`) {
				t.Fatalf("want the scripted result, got %s %s", m.Result, m.Error)
			}
		}},
		{"flood progress", Behavior{FloodProgress: 3000}, func(t *testing.T, c *testClient, s *Server) {
			id := c.request("textDocument/hover", hover)
			n := 0
			for m := c.read(); m.Method == "$/progress"; m = c.read() {
				n++
			}
			if n != 3002 {
				t.Fatalf("%d progress notifications", n)
			}
			_ = id
		}},
		{"flood diagnostics", Behavior{FloodDiagnostics: 2000}, func(t *testing.T, c *testClient, s *Server) {
			c.request("textDocument/hover", hover)
			n := 0
			for m := c.read(); m.Method == "textDocument/publishDiagnostics"; m = c.read() {
				n++
			}
			if n != 2000 {
				t.Fatalf("%d publishes", n)
			}
		}},
		{"garbage header", Behavior{Garbage: GarbageHeader}, func(t *testing.T, c *testClient, s *Server) {
			c.request("textDocument/hover", hover)
			if _, err := readFrame(c.r); err == nil {
				t.Fatal("garbage read as a frame")
			}
		}},
		{"garbage body", Behavior{Garbage: GarbageBody}, func(t *testing.T, c *testClient, s *Server) {
			c.request("textDocument/hover", hover)
			b, err := readFrame(c.r)
			if err != nil || json.Valid(b) {
				t.Fatalf("want a frame of invalid JSON, got %q, %v", b, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(Script{Methods: map[string]Behavior{"textDocument/hover": tc.b}}, nil)
				c, done := start(t, t.Context(), s)
				c.initialize()
				c.open(uri, "package a\n", 1)
				c.publish()
				tc.run(t, c, s)
				if tc.b.Garbage != "" {
					c.conn.Close()
					<-done
					return
				}
				c.shutdownExit(done)
			})
		})
	}
}

func TestCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{Methods: map[string]Behavior{"textDocument/hover": {Crash: true}}}, nil)
		c, done := start(t, t.Context(), s)
		c.initialize()
		c.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}})
		if err := <-done; !errors.Is(err, ErrCrashed) {
			t.Fatalf("Serve: %v", err)
		}
		if _, err := readFrame(c.r); !errors.Is(err, io.EOF) {
			t.Fatalf("client read after crash: %v", err)
		}
		c.conn.Close()
	})
}

func TestPublishModes(t *testing.T) {
	type pub struct {
		version int // 0: none
		n       int // diagnostics
	}
	for _, tc := range []struct {
		name   string
		script Script
		want   []pub // after didOpen(v1, no error) and didChange(v2, one error)
	}{
		{"versioned", Script{}, []pub{{1, 0}, {2, 1}}},
		{"unversioned", Script{Publish: PublishUnversioned}, []pub{{0, 0}, {0, 1}}},
		{"stale", Script{Publish: PublishStale}, []pub{{1, 0}, {1, 0}}},
		{"double", Script{DoublePublish: true}, []pub{{1, 0}, {1, 0}, {2, 0}, {2, 1}}},
		{"double, second pass late", Script{DoublePublish: true, PassDelay: Duration(time.Second)}, []pub{{1, 0}, {1, 0}, {2, 0}, {2, 1}}},
		{"double, extra first pass", Script{DoublePublish: true, ExtraPass: true}, []pub{{1, 0}, {1, 0}, {1, 0}, {2, 0}, {2, 0}, {2, 1}}},
		{"unadvertised pull", Script{Diagnostics: DiagUnadvertised}, []pub{{1, 0}, {2, 1}}},
		{"delayed", Script{PublishDelay: Duration(time.Second)}, []pub{{1, 0}, {2, 1}}},
		{"both", Script{Diagnostics: DiagBoth}, []pub{{1, 0}, {2, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(tc.script, nil)
				c, done := start(t, t.Context(), s)
				c.initialize()
				var got []pub
				c.open(uri, "package a\n", 1)
				for range len(tc.want) / 2 {
					p := c.publish()
					got = append(got, pub{deref(p.Version), len(p.Diagnostics)})
				}
				t0 := time.Now()
				c.change(uri, "package a\nERROR\n", 2)
				for range len(tc.want) - len(tc.want)/2 {
					p := c.publish()
					got = append(got, pub{deref(p.Version), len(p.Diagnostics)})
				}
				if d := time.Since(t0); d != time.Duration(tc.script.PublishDelay+tc.script.PassDelay) {
					t.Errorf("published after %v", d)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Fatalf("got %v, want %v", got, tc.want)
					}
				}
				c.shutdownExit(done)
			})
		})
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func TestPullOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{Diagnostics: DiagPull}, nil)
		c, done := start(t, t.Context(), s)
		c.initialize()
		c.open(uri, "ERROR\nERROR\n", 1)
		var r struct {
			Kind  string
			Items []wire.Diagnostic
		}
		// No push: the next message is the pull's answer.
		json.Unmarshal(c.reply(c.request("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}})).Result, &r)
		if r.Kind != "full" || len(r.Items) != 2 {
			t.Fatalf("pull %+v", r)
		}
		c.shutdownExit(done)
	})
}

func TestDynamicRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Script{Diagnostics: DiagDynamic, ClientRequests: []ClientRequest{
			{Method: "workspace/configuration", Params: json.RawMessage(`{"items":[{"section":"fake"}]}`)},
		}}, nil)
		c, done := start(t, t.Context(), s)
		init := c.initialize()
		if strings.Contains(string(init.Result), "diagnosticProvider") {
			t.Fatalf("static diagnosticProvider in %s", init.Result)
		}
		reg := c.read()
		if reg.Method != "client/registerCapability" || !strings.Contains(string(reg.Params), `"textDocument/diagnostic"`) {
			t.Fatalf("want registerCapability, got %+v", reg)
		}
		c.open(uri, "ERROR\n", 1)
		pull := map[string]any{"textDocument": map[string]any{"uri": uri}}
		id := c.request("textDocument/diagnostic", pull) // held until registered
		synctest.Wait()
		c.send(map[string]any{"jsonrpc": "2.0", "id": reg.ID, "result": nil})
		cfg := c.read()
		if cfg.Method != "workspace/configuration" {
			t.Fatalf("want configuration, got %+v", cfg)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": cfg.ID, "result": []any{nil}})
		// The pull is answered only now that both were answered.
		if ans := c.reply(id); ans.Error != nil || !strings.Contains(string(ans.Result), DiagnosticMessage) {
			t.Fatalf("pull answer %+v", ans)
		}
		msgs, _ := s.Wait(t.Context(), func(m []Message) bool { return len(Responses(m)) == 2 })
		if r := Responses(msgs); string(r[1].Result) != "[null]" {
			t.Fatalf("responses %+v", r)
		}
		c.shutdownExit(done)
	})
}

func TestIndexing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration time.Duration
		eager    bool
	}{{"timed", time.Minute, false}, {"until EndIndexing", 0, false}, {"eager", time.Minute, true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(Script{Indexing: &Indexing{Duration: Duration(tc.duration), Eager: tc.eager}}, nil)
				c, done := start(t, t.Context(), s)
				c.initialize()
				create := c.read()
				if create.Method != "window/workDoneProgress/create" {
					t.Fatalf("want create, got %+v", create)
				}
				if !tc.eager {
					c.send(map[string]any{"jsonrpc": "2.0", "id": create.ID, "result": nil})
				}
				if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"begin"`) {
					t.Fatalf("want begin, got %+v", m)
				}
				if tc.eager {
					c.send(map[string]any{"jsonrpc": "2.0", "id": create.ID, "result": nil})
				}
				c.open(uri, "func Foo() {}\nERROR\n", 1) // not pushed while indexing
				hover := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(0, 6)}
				if m := c.reply(c.request("textDocument/hover", hover)); string(m.Result) != "null" {
					t.Fatalf("hover while indexing: %s", m.Result)
				}
				t0 := time.Now()
				if tc.duration == 0 {
					s.EndIndexing()
				}
				if m := c.read(); m.Method != "$/progress" || !strings.Contains(string(m.Params), `"end"`) {
					t.Fatalf("want end, got %+v", m)
				}
				if d := time.Since(t0); d != tc.duration {
					t.Fatalf("indexing ended after %v", d)
				}
				if p := c.publish(); deref(p.Version) != 1 || len(p.Diagnostics) != 1 {
					t.Fatalf("publish after indexing %+v", p)
				}
				if m := c.reply(c.request("textDocument/hover", hover)); !strings.Contains(string(m.Result), HoverPrefix+"Foo") {
					t.Fatalf("hover after indexing: %s", m.Result)
				}
				c.shutdownExit(done)
			})
		})
	}
}

func TestRefuseExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := New(Script{RefuseExit: true, Methods: map[string]Behavior{"shutdown": {NeverAnswer: true}}}, nil)
		c, done := start(t, ctx, s)
		c.initialize()
		c.request("shutdown", nil)
		c.notify("exit", nil)
		c.conn.Close()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Serve returned %v despite RefuseExit", err)
		default:
		}
		cancel() // the in-process SIGKILL
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Serve: %v", err)
		}
	})
}

func TestStopReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := New(Script{Methods: map[string]Behavior{"textDocument/hover": {StopReading: true}}}, nil)
		c, done := start(t, ctx, s)
		c.initialize()
		c.request("textDocument/hover", map[string]any{})
		wrote := make(chan error, 1)
		go func() {
			_, err := c.conn.Write([]byte("Content-Length: 2\r\n\r\n{}"))
			wrote <- err
		}()
		synctest.Wait()
		select {
		case err := <-wrote:
			t.Fatalf("write to a server that stopped reading returned %v", err)
		default:
		}
		cancel()
		if err := <-wrote; err == nil {
			t.Fatal("blocked write ended without error")
		}
		<-done
		c.conn.Close()
	})
}
