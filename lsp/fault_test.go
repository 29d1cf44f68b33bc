package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// The fault tests run the Manager against internal/test/fakelsp as a real
// subprocess (the Manager only speaks to processes), so they use real time
// with short timeouts; they assert outcomes, never durations. Every test
// ends with Manager.Close and a /proc check that no process of any fake
// started is left; the package's goleak.VerifyTestMain checks goroutines.

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeBinary builds cmd/fakelsp once per test binary. It cannot live in a
// test's TempDir (that vanishes with the first test), so it goes to one
// fixed folder under the OS temp dir, rebuilt (from the build cache) by
// every run and renamed into place, so concurrent test runs are safe.
func fakeBinary(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		// One folder per checkout: two checkouts (git worktrees) testing
		// at once would otherwise run each other's fake.
		wd, _ := os.Getwd()
		sum := sha256.Sum256([]byte(wd))
		dir := filepath.Join(os.TempDir(), "acp-lsp-fakelsp-test-"+hex.EncodeToString(sum[:6]))
		if fakeErr = os.MkdirAll(dir, 0o755); fakeErr == nil {
			fakeBin, fakeErr = fakelsp.BuildTo(dir)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

// faultEnv is one Manager serving *.fk files with the fake in a temporary
// workspace.
type faultEnv struct {
	t      *testing.T
	root   string
	script string
	record string
	file   string
	m      *Manager
}

const fakeText = "package fake\nfunc Foo() {}\nvar x = ERROR\n"

func newFaultEnv(t *testing.T, s fakelsp.Script, tweak func(*Options)) *faultEnv {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return newFaultEnvAt(t, root, s, tweak)
}

// newFaultEnvAt is newFaultEnv over an existing folder (a real path).
func newFaultEnvAt(t *testing.T, root string, s fakelsp.Script, tweak func(*Options)) *faultEnv {
	t.Helper()
	e := &faultEnv{t: t, root: root,
		script: filepath.Join(t.TempDir(), "script.json"), record: filepath.Join(t.TempDir(), "record.jsonl"),
		file: filepath.Join(root, "a.fk")}
	e.setScript(s)
	if err := os.WriteFile(filepath.Join(root, "fake.root"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.write(fakeText)
	opts := Options{
		Roots: []string{root},
		Servers: []ServerConfig{{
			Name: "fakelsp", Command: fakeBinary(t), Args: fakelsp.Args(e.script, e.record),
			Extensions: []string{"fk"}, Language: "fake", RootMarkers: []string{"fake.root"},
			InstallHint: "built by the test from internal/test/fakelsp/cmd/fakelsp",
		}},
		// Generous bounds (the machine may be loaded many times over);
		// tests about timeouts set their own short ones.
		Timeouts: Timeouts{
			Initialize: Duration(30 * time.Second), Request: Duration(30 * time.Second),
			Diagnostics: Duration(30 * time.Second), Shutdown: Duration(300 * time.Millisecond),
			Write: Duration(10 * time.Second), Idle: Duration(-1),
		},
		DiagnosticsSettle: 50 * time.Millisecond,
		// Tests restart servers often, some within a short request
		// timeout; TestRestartBackoffFakeTime is about the delay.
		RestartBackoff: 100 * time.Millisecond,
		// Most tests script the exact traffic, which changes told as they
		// are seen would make depend on timing; TestTellOnWrite turns it
		// back on.
		TellAtRequest: true,
	}
	if tweak != nil {
		tweak(&opts)
	}
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.m = m
	t.Cleanup(func() { e.close() })
	return e
}

func (e *faultEnv) setScript(s fakelsp.Script) {
	e.t.Helper()
	if err := fakelsp.WriteScript(e.script, s); err != nil {
		e.t.Fatal(err)
	}
}

func (e *faultEnv) write(text string) {
	e.t.Helper()
	if err := os.WriteFile(e.file, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// close closes the Manager (once) and checks that no process any fake
// started, nor anything in its process group, is left.
func (e *faultEnv) close() {
	e.t.Helper()
	if e.m == nil {
		return
	}
	err := e.m.Close(context.Background())
	e.m = nil
	if err != nil {
		e.t.Errorf("Close: %v", err)
	}
	for _, st := range fakelsp.Starts(e.messages()) {
		alive, err := fakelsp.Alive(st.PGID)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(alive) > 0 {
			e.t.Errorf("after Close, processes %v of the fake's group %d are still running", alive, st.PGID)
		}
	}
}

func (e *faultEnv) messages() []fakelsp.Message {
	e.t.Helper()
	msgs, err := fakelsp.ReadRecord(e.record)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		e.t.Fatal(err)
	}
	return msgs
}

// prewarm starts the server with the test's own (generous) context, so
// that tests with short request timeouts measure the request, not the
// start of the process on a loaded machine.
func (e *faultEnv) prewarm() {
	e.t.Helper()
	if err := e.m.Prewarm(e.t.Context(), e.file); err != nil {
		e.t.Fatalf("prewarm: %v", err)
	}
}

// hover asks for the hover of Foo (line 1, character 6).
func (e *faultEnv) hover() (json.RawMessage, error) {
	return hover(e.t.Context(), e.m, e.file, Position{Line: 1, Character: 6})
}

// wantHover checks a normal hover answer: the client works. The server
// is started (or restarted) first, so a short request timeout does not
// also bound its start, which a loaded machine can make slow.
func (e *faultEnv) wantHover() {
	e.t.Helper()
	e.prewarm()
	raw, err := e.hover()
	if err != nil {
		e.t.Fatalf("hover: %v", err)
	}
	if !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
		e.t.Fatalf("hover: %s", raw)
	}
}

func (e *faultEnv) status() ServerStatus {
	e.t.Helper()
	st := e.m.Servers()
	if len(st) != 1 {
		e.t.Fatalf("servers %+v", st)
	}
	return st[0]
}

func fileURI(path string) string { return edit.URIFromPath(path) }

func hoverFault(b fakelsp.Behavior) fakelsp.Script {
	return fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/hover": b}}
}

// TestFaultNeverAnswers: a request the server never answers times out with
// ErrTimeout and $/cancelRequest for its id; the next request succeeds on
// the same process.
func TestFaultNeverAnswers(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{NeverAnswer: true, Times: 1}), func(o *Options) {
		o.Timeouts.Request = Duration(time.Second)
	})
	e.prewarm()
	if _, err := e.hover(); !errors.Is(err, ErrTimeout) {
		t.Fatalf("hover: %v, want ErrTimeout", err)
	}
	e.wantHover()
	e.close()
	msgs := e.messages()
	hovers := fakelsp.Requests(msgs, "textDocument/hover")
	if len(hovers) != 2 {
		t.Fatalf("%d hovers", len(hovers))
	}
	if c := fakelsp.CancelledIDs(msgs); !slices.Equal(c, []string{string(hovers[0].ID)}) {
		t.Fatalf("$/cancelRequest for %v, want [%s]", c, hovers[0].ID)
	}
	if n := len(fakelsp.Starts(msgs)); n != 1 {
		t.Fatalf("%d processes started, want 1", n)
	}
}

// TestFaultCallerCancel: the caller's cancellation returns at once with
// context.Canceled and sends $/cancelRequest; the process stays usable.
func TestFaultCallerCancel(t *testing.T) {
	// The fake publishes once when it receives the hover (FloodDiagnostics)
	// so the test knows the request is at the server before cancelling.
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{Delay: fakelsp.Duration(time.Hour), FloodDiagnostics: 1, Times: 1}), nil)
	events, stop := e.m.Subscribe(16)
	defer stop()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := hover(ctx, e.m, e.file, Position{Line: 1, Character: 6})
		done <- err
	}()
	for range 2 { // didOpen's publish, then the hover's
		<-events
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled hover: %v", err)
	}
	e.wantHover()
	e.close()
	msgs := e.messages()
	hovers := fakelsp.Requests(msgs, "textDocument/hover")
	if c := fakelsp.CancelledIDs(msgs); len(hovers) != 2 || !slices.Equal(c, []string{string(hovers[0].ID)}) {
		t.Fatalf("$/cancelRequest for %v; hovers %v", c, hovers)
	}
}

// TestFaultContentModified: ContentModified and ServerCancelled answers are
// retried until the server answers.
func TestFaultContentModified(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{ContentModified: 2, ServerCancelled: 1}), nil)
	e.wantHover()
	e.close()
	if n := len(fakelsp.Requests(e.messages(), "textDocument/hover")); n != 4 {
		t.Fatalf("%d hover requests, want 4 (2 ContentModified, 1 ServerCancelled, 1 answer)", n)
	}
}

// TestFaultFloods: thousands of $/progress and publishDiagnostics
// notifications before an answer lose nothing: the answer arrives, no work
// is left "in progress", and diagnostics stay right.
func TestFaultFloods(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{FloodProgress: 5000, FloodDiagnostics: 5000}), func(o *Options) {
		// 10,000 notifications under -race on a loaded machine: bound the
		// request generously, it is the outcome that is checked.
		o.Timeouts.Request = Duration(2 * time.Minute)
	})
	e.prewarm()
	sub, stop := e.m.Subscribe(16) // a slow subscriber must not block the client
	defer stop()
	e.wantHover()
	if st := e.status(); st.Readiness.State != Ready || len(st.Readiness.Progress) != 0 {
		t.Fatalf("work still in progress after the flood ended: %+v", st.Readiness)
	}
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 1 {
		t.Fatalf("diagnostics after the flood %+v", fd)
	}
	_ = sub
	e.wantHover()
}

// TestFaultSlowInitialize: initialize slower than its timeout fails with a
// clear error and no process left; once the server is fast again the next
// request works.
func TestFaultSlowInitialize(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{"initialize": {Delay: fakelsp.Duration(time.Hour)}}}, func(o *Options) {
		o.Timeouts.Initialize = Duration(500 * time.Millisecond)
	})
	_, err := e.hover()
	if err == nil || !strings.Contains(err.Error(), "initialize") ||
		!(errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded)) {
		t.Fatalf("hover with a slow initialize: %v", err)
	}
	starts := fakelsp.Starts(e.messages())
	if len(starts) != 1 {
		t.Fatalf("starts %+v", starts)
	}
	if alive, _ := fakelsp.Alive(starts[0].PGID); len(alive) != 0 {
		t.Fatalf("slow server left running after its initialize failed: %v", alive)
	}
	e.setScript(fakelsp.Script{})
	e.wantHover()
}

// TestFaultRefusesExit: a server that ignores shutdown, exit, stdin EOF
// and SIGTERM, and has a child in its group, is gone after Close.
func TestFaultRefusesExit(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{RefuseExit: true, Grandchild: true,
		Methods: map[string]fakelsp.Behavior{"shutdown": {NeverAnswer: true}}}, nil)
	e.wantHover()
	st := fakelsp.Starts(e.messages())
	if alive, _ := fakelsp.Alive(st[0].PGID); len(alive) != 2 {
		t.Fatalf("want the fake and its child in the group, got %v", alive)
	}
	e.close() // checks the group is gone
}

// TestFaultWedgedByTimeouts: a server that stops answering is recycled
// after WedgeAfter timeouts in a row; the next request gets a new process.
func TestFaultWedgedByTimeouts(t *testing.T) {
	e := newFaultEnv(t, hoverFault(fakelsp.Behavior{NeverAnswer: true, IgnoreCancel: true}), func(o *Options) {
		o.Timeouts.Request = Duration(500 * time.Millisecond)
		o.WedgeAfter = 2
	})
	e.prewarm()
	for range 2 {
		if _, err := e.hover(); !errors.Is(err, ErrTimeout) {
			t.Fatalf("hover: %v, want ErrTimeout", err)
		}
	}
	first := fakelsp.Starts(e.messages())[0]
	if alive, _ := fakelsp.Alive(first.PGID); len(alive) != 0 {
		t.Fatalf("wedged server not recycled: %v", alive)
	}
	e.setScript(fakelsp.Script{})
	e.wantHover()
	if n := len(fakelsp.Starts(e.messages())); n != 2 {
		t.Fatalf("%d processes, want 2", n)
	}
}

// TestFaultIndexing: while the server reports indexing, an empty answer is
// an IndexingError and diagnostics have the Indexing verdict, never an
// empty "fresh" list or a plain timeout.
func TestFaultIndexing(t *testing.T) {
	for _, mode := range []fakelsp.DiagnosticsMode{fakelsp.DiagPush, fakelsp.DiagPull, fakelsp.DiagDynamic} {
		t.Run(string(mode), func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{Diagnostics: mode,
				Indexing: &fakelsp.Indexing{Duration: fakelsp.Duration(time.Hour), Eager: true}}, func(o *Options) {
				o.Timeouts.Request = Duration(500 * time.Millisecond)
			})
			e.prewarm()
			_, err := e.hover()
			var ie *IndexingError
			if !errors.As(err, &ie) || !slices.Contains(ie.Work(), "Indexing") {
				t.Fatalf("hover while indexing: %v, want *IndexingError naming Indexing", err)
			}
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Indexing || fd.Detail == "" {
				t.Fatalf("diagnostics while indexing %+v", fd)
			}
		})
	}
}

// TestFaultDiagnosticsVerdicts: push with and without versions, stale
// publishes, double publishes, pull-only, dynamic pull registration, and
// a server that never reports. A timeout is never "no diagnostics".
func TestFaultDiagnosticsVerdicts(t *testing.T) {
	edited := "package fake\nvar a = ERROR\nvar b = ERROR\n"
	for _, tc := range []struct {
		name    string
		script  fakelsp.Script
		verdict Verdict
		n       int   // diagnostics after the edit
		version int32 // reported version after the edit (Timeout: the one asked about)
		pulls   bool  // the answer came from textDocument/diagnostic
	}{
		{"versioned push", fakelsp.Script{}, Fresh, 2, 2, false},
		{"unversioned push settles", fakelsp.Script{Publish: fakelsp.PublishUnversioned}, Fresh, 2, 0, false},
		{"unversioned double publish settles on the last", fakelsp.Script{Publish: fakelsp.PublishUnversioned, DoublePublish: true}, Fresh, 2, 0, false},
		{"stale push", fakelsp.Script{Publish: fakelsp.PublishStale}, Stale, 1, 1, false},
		{"pull only", fakelsp.Script{Diagnostics: fakelsp.DiagPull}, Fresh, 2, 2, true},
		{"dynamically registered pull", fakelsp.Script{Diagnostics: fakelsp.DiagDynamic}, Fresh, 2, 2, true},
		{"never reports", fakelsp.Script{Diagnostics: fakelsp.DiagNone}, Timeout, 0, 2, false},
		{"reports too late", fakelsp.Script{PublishDelay: fakelsp.Duration(time.Hour)}, Timeout, 0, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, tc.script, nil)
			e.prewarm()
			opts := DiagnosticsOptions{Timeout: 2 * time.Second}
			if tc.verdict == Timeout || tc.verdict == Stale {
				opts.Timeout = 500 * time.Millisecond
			}
			if tc.script.Diagnostics == fakelsp.DiagDynamic {
				e.wantHover() // answered only once the registration was
			}
			if _, err := e.m.Diagnostics(t.Context(), []string{e.file}, opts); err != nil {
				t.Fatal(err)
			}
			e.write(edited)
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, opts)
			if err != nil {
				t.Fatal(err)
			}
			fd := rep.Files[0]
			if fd.Verdict != tc.verdict || len(messages(t, fd.Diagnostics)) != tc.n || fd.Version != tc.version {
				t.Fatalf("after the edit: %+v; want verdict %s, %d diagnostics, version %d", fd, tc.verdict, tc.n, tc.version)
			}
			if fd.Verdict != Fresh && fd.Detail == "" {
				t.Fatalf("verdict %s without a detail", fd.Verdict)
			}
			for _, msg := range messages(t, fd.Diagnostics) {
				if msg != fakelsp.DiagnosticMessage {
					t.Fatalf("message %q", msg)
				}
			}
			e.close()
			msgs := e.messages()
			if pulled := len(fakelsp.Requests(msgs, "textDocument/diagnostic")) > 0; pulled != tc.pulls {
				t.Fatalf("pulled: %v, want %v", pulled, tc.pulls)
			}
			if v := fakelsp.Versions(msgs, fileURI(e.file)); len(v) != 2 || v[1] <= v[0] {
				t.Fatalf("versions sent %v, want increasing didOpen then didChange", v)
			}
		})
	}
}

// TestFaultServerRequests: the client answers the server's own requests
// (configuration from Settings, progress creation, capability
// registration, an applied workspace edit) before the server answers
// anything else; the answers are checked as the server received them.
func TestFaultServerRequests(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) {
		o.Servers[0].Settings = map[string]json.RawMessage{"fake": json.RawMessage(`{"x":1}`)}
	})
	other := filepath.Join(e.root, "b.fk")
	if err := os.WriteFile(other, []byte("package fake\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	applyEdit, _ := encode(map[string]any{"label": "fake", "edit": map[string]any{"changes": map[string]any{
		fileURI(other): []any{map[string]any{
			"range":   map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 1, "character": 0}},
			"newText": "func Applied() {}\n",
		}},
	}}})
	e.setScript(fakelsp.Script{ClientRequests: []fakelsp.ClientRequest{
		{Method: "workspace/configuration", Params: json.RawMessage(`{"items":[{"section":"fake"},{"section":"other"}]}`)},
		{Method: "window/workDoneProgress/create", Params: json.RawMessage(`{"token":"t1"}`)},
		{Method: "client/registerCapability", Params: json.RawMessage(`{"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.fk"}]}}]}`)},
		{Method: "workspace/applyEdit", Params: applyEdit},
		{Method: "window/showMessageRequest", Params: json.RawMessage(`{"type":1,"message":"reload?","actions":[{"title":"yes"}]}`)},
		{Method: "workspace/workspaceFolders"},
		{Method: "acme/unknownRequest", Params: json.RawMessage(`{}`)},
	}})
	e.wantHover() // answered only after all of them were
	got, err := os.ReadFile(other)
	if err != nil || string(got) != "package fake\nfunc Applied() {}\n" {
		t.Fatalf("b.fk after workspace/applyEdit: %q, %v", got, err)
	}
	if regs := e.status().Registrations; len(regs) != 1 || regs[0].ID != "w1" {
		t.Fatalf("registrations %+v", regs)
	}
	e.close()
	resp := fakelsp.Responses(e.messages())
	want := []string{`[{"x":1},null]`, `null`, `null`, `{"applied":true}`, `null`,
		`[{"uri":"` + fileURI(e.root) + `","name":"` + filepath.Base(e.root) + `"}]`, `error -32601`}
	if len(resp) != len(want) {
		t.Fatalf("responses %+v", resp)
	}
	for i, r := range resp {
		got := string(r.Result)
		if r.Error != nil {
			var re struct {
				Code int `json:"code"`
			}
			_ = decode(r.Error, &re)
			got = "error " + strconv.Itoa(re.Code)
		}
		if got != want[i] {
			t.Errorf("answer %d: %s, want %s", i, got, want[i])
		}
	}
}

// TestFaultDocumentLimit: beyond MaxOpenDocuments the least recently used
// document is closed on the server, and reopened (a new didOpen) when used
// again.
func TestFaultDocumentLimit(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) { o.MaxOpenDocuments = 1 })
	other := filepath.Join(e.root, "b.fk")
	if err := os.WriteFile(other, []byte("func Bar() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	if _, err := hover(t.Context(), e.m, other, Position{Line: 0, Character: 6}); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	e.close()
	var got []string
	for _, m := range e.messages() {
		if strings.HasPrefix(m.Method, "textDocument/did") {
			got = append(got, strings.TrimPrefix(m.Method, "textDocument/")+" "+filepath.Base(docURIOf(m.Params)))
		}
	}
	// The new document opens first, then the least recently used closes.
	want := []string{"didOpen a.fk", "didOpen b.fk", "didClose a.fk", "didOpen a.fk", "didClose b.fk"}
	if !slices.Equal(got, want) {
		t.Fatalf("document traffic %q, want %q", got, want)
	}
}

func docURIOf(params json.RawMessage) string {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = decode(params, &p)
	return p.TextDocument.URI
}

// TestFaultPositionEncodings: whatever encoding the server picks, positions
// cross the API in UTF-16: the diagnostic after an emoji and CJK text and
// the hover range come back in UTF-16, and a UTF-16 hover position reaches
// the right word.
func TestFaultPositionEncodings(t *testing.T) {
	// "é" is 1 UTF-16 unit, "😀" 2, "日本" 2: ERROR spans UTF-16 columns
	// 16-21 on line 1, the word "名前" 22-24 (bytes: 20-25 and 26-32).
	const text = "package fake\nx := \"é😀日本\" // ERROR 名前\n"
	for _, enc := range []string{"utf-8", "utf-16", "utf-32"} {
		t.Run(enc, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{PositionEncoding: enc}, nil)
			e.write(text)
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var ds []struct {
				Range struct {
					Start Position `json:"start"`
					End   Position `json:"end"`
				} `json:"range"`
			}
			if err := decode(rep.Files[0].Diagnostics, &ds); err != nil || len(ds) != 1 {
				t.Fatalf("diagnostics %s: %v", rep.Files[0].Diagnostics, err)
			}
			if ds[0].Range.Start != (Position{Line: 1, Character: 16}) || ds[0].Range.End != (Position{Line: 1, Character: 21}) {
				t.Fatalf("diagnostic range %+v in UTF-16, want 1:16-1:21", ds[0].Range)
			}
			raw, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 23})
			if err != nil {
				t.Fatal(err)
			}
			var h struct {
				Contents struct {
					Value string `json:"value"`
				} `json:"contents"`
				Range struct {
					Start Position `json:"start"`
					End   Position `json:"end"`
				} `json:"range"`
			}
			if err := decode(raw, &h); err != nil {
				t.Fatal(err)
			}
			if h.Contents.Value != fakelsp.HoverPrefix+"名前" || h.Range.Start != (Position{Line: 1, Character: 22}) || h.Range.End != (Position{Line: 1, Character: 24}) {
				t.Fatalf("hover %s", raw)
			}
			if st := e.status(); string(st.Encoding) != enc && !(enc == "utf-32" && st.Encoding == "utf-16") {
				t.Fatalf("negotiated %q, want %q", st.Encoding, enc)
			}
		})
	}
}
