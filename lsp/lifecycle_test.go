package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestFaultLifecycle: nothing starts before it is needed; Prewarm starts
// the server without opening a document; initialize carries the client's
// real capabilities and the project's workspace folder; Close ends with
// shutdown then exit, and the process is gone.
func TestFaultLifecycle(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, nil)
	if st := e.m.Servers(); len(st) != 0 {
		t.Fatalf("servers before any use %+v", st)
	}
	if msgs := e.messages(); len(msgs) != 0 {
		t.Fatalf("a process started before any use: %+v", msgs)
	}
	if err := e.m.Prewarm(t.Context(), e.file); err != nil {
		t.Fatal(err)
	}
	if st := e.status(); st.State != StateRunning || st.OpenDocuments != 0 || st.PID == 0 {
		t.Fatalf("after Prewarm %+v", st)
	}
	e.wantHover()
	e.close()
	msgs := e.messages()
	if n := len(fakelsp.Starts(msgs)); n != 1 {
		t.Fatalf("%d processes, want 1", n)
	}
	init := fakelsp.Requests(msgs, "initialize")
	if len(init) != 1 {
		t.Fatalf("initialize requests %+v", init)
	}
	for _, want := range []string{
		`"positionEncodings":["utf-8","utf-16"]`, `"versionSupport":true`, `"workDoneProgress":true`,
		`"configuration":true`, `"applyEdit":true`, `"didChangeWatchedFiles":{"dynamicRegistration":true`,
		`"diagnostic":{"dynamicRegistration":true`, `"workspaceFolders":[{"uri":"` + fileURI(e.root) + `","name":"` + filepath.Base(e.root) + `"}]`,
		`"rootUri":"` + fileURI(e.root) + `"`,
	} {
		if !strings.Contains(compact(init[0].Params), want) {
			t.Errorf("initialize params lack %s: %s", want, init[0].Params)
		}
	}
	methods := fakelsp.Methods(msgs)
	if i := slices.Index(methods, "shutdown"); i < 0 || i+1 >= len(methods) || methods[i+1] != "exit" {
		t.Fatalf("the session did not end with shutdown, exit: %v", methods)
	}
}

// compact removes the JSON whitespace the client's capability literal has.
func compact(raw []byte) string {
	return strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(string(raw))
}

// TestFaultRoots: one process per (server, project root), shared by every
// session whose workspace holds it; the nearest root marker decides the
// project and no file but the ones asked about is opened.
func TestFaultRoots(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, nil)
	proj := filepath.Join(e.root, "proj")
	for name, text := range map[string]string{
		"proj/fake.root": "", "proj/p.fk": "func P() {}\n", "proj/deep/q.fk": "func Q() {}\n", "b.fk": "func B() {}\n",
		"untouched.fk": "func U() {}\n",
	} {
		p := filepath.Join(e.root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A second session whose workspace is the sub-project shares its
	// process with the first.
	if err := e.m.AddRoot(proj); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{e.file, filepath.Join(e.root, "b.fk"), filepath.Join(proj, "p.fk"), filepath.Join(proj, "deep", "q.fk")} {
		if _, err := documentSymbols(t.Context(), e.m, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	st := e.m.Servers()
	if len(st) != 2 || st[0].Root != e.root || st[1].Root != proj || st[0].OpenDocuments != 2 || st[1].OpenDocuments != 2 {
		t.Fatalf("servers %+v, want one for the workspace (a.fk, b.fk) and one for proj (p.fk, q.fk)", st)
	}
	e.close()
	msgs := e.messages()
	if n := len(fakelsp.Starts(msgs)); n != 2 {
		t.Fatalf("%d processes, want 2", n)
	}
	var opened []string
	for _, per := range opensPerStart(msgs) {
		opened = append(opened, per...)
	}
	slices.Sort(opened)
	if !slices.Equal(opened, []string{"a.fk", "b.fk", "p.fk", "q.fk"}) {
		t.Fatalf("opened %v: only the files asked about", opened)
	}
}

// TestFaultSyncByContent: a file touched without a change sends nothing; a
// change sends didChange with the next version and the full text.
func TestFaultSyncByContent(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, nil)
	e.wantHover()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(e.file, later, later); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	e.write(fakeText + "func More() {}\n")
	e.wantHover()
	e.close()
	msgs := e.messages()
	if v := fakelsp.Versions(msgs, fileURI(e.file)); !slices.Equal(v, []int{1, 2}) {
		t.Fatalf("versions %v, want didOpen 1 then didChange 2 only", v)
	}
	for _, m := range msgs {
		if m.Method == "textDocument/didChange" && !strings.Contains(string(m.Params), `func More() {}`) {
			t.Fatalf("didChange without the full text: %s", m.Params)
		}
	}
}

// TestFaultDocumentIdle: a document no request used for DocumentIdle is
// closed on the server when another one is synced; it is reopened when
// used again.
func TestFaultDocumentIdle(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) { o.DocumentIdle = time.Hour })
	var skew atomic.Int64
	e.m.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	other := filepath.Join(e.root, "b.fk")
	if err := os.WriteFile(other, []byte("func Bar() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := documentSymbols(t.Context(), e.m, other); err != nil {
		t.Fatal(err)
	}
	e.wantHover()
	if st := e.status(); st.OpenDocuments != 2 {
		t.Fatalf("open documents %d, want 2", st.OpenDocuments)
	}
	skew.Store(int64(time.Hour + time.Minute))
	e.wantHover() // a.fk is used again: b.fk has been idle for over an hour
	if st := e.status(); st.OpenDocuments != 1 {
		t.Fatalf("open documents after b.fk idled %d, want 1", st.OpenDocuments)
	}
	if _, err := documentSymbols(t.Context(), e.m, other); err != nil {
		t.Fatal(err)
	}
	e.close()
	var got []string
	for _, m := range e.messages() {
		if strings.HasPrefix(m.Method, "textDocument/did") {
			got = append(got, strings.TrimPrefix(m.Method, "textDocument/")+" "+filepath.Base(docURIOf(m.Params)))
		}
	}
	want := []string{"didOpen b.fk", "didOpen a.fk", "didClose b.fk", "didOpen b.fk"}
	if !slices.Equal(got, want) {
		t.Fatalf("document traffic %q, want %q", got, want)
	}
}

// TestFaultCloseDuringStart: Close while a server is still answering
// initialize does not wait for the initialize timeout: the start gives up,
// the process group is killed and the caller gets an error.
func TestFaultCloseDuringStart(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
		// One publish on receipt tells the test initialize is at the server.
		"initialize": {Delay: fakelsp.Duration(time.Hour), FloodDiagnostics: 1},
	}}, func(o *Options) { o.Timeouts.Initialize = Duration(time.Hour) })
	events, stop := e.m.Subscribe(4)
	defer stop()
	prewarm := make(chan error, 1)
	go func() { prewarm <- e.m.Prewarm(t.Context(), e.file) }()
	<-events
	closed := make(chan struct{})
	go func() {
		e.close() // also checks that no process of the fake is left
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute): // a liveness bound, far above any real close
		t.Fatal("Close waited for a server stuck in initialize")
	}
	if err := <-prewarm; err == nil {
		t.Fatal("Prewarm succeeded although the Manager closed during initialize")
	}
}

// TestFaultCallerGivesUpDuringStart: a caller whose context ends
// while its server is still initializing gets its error then (ErrTimeout for
// a deadline) instead of waiting for the initialize timeout; the start goes
// on for the next request, which gets the started server.
func TestFaultCallerGivesUpDuringStart(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
		"initialize": {Delay: fakelsp.Duration(2 * time.Second), FloodDiagnostics: 1},
	}}, func(o *Options) { o.Timeouts.Initialize = Duration(time.Hour) })
	events, stop := e.m.Subscribe(4)
	defer stop()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := hover(ctx, e.m, e.file, Position{Line: 1, Character: 6})
		done <- err
	}()
	<-events // initialize is at the server
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "start fakelsp") {
		t.Fatalf("hover cancelled during start: %v", err)
	}
	e.wantHover() // waits for the same start
	if n := len(fakelsp.Starts(e.messages())); n != 1 {
		t.Fatalf("%d processes, want 1", n)
	}
}
