package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// twoFuncs has two functions: a documentSymbol list of one is incomplete
// (fakelsp.Indexing.Partial).
const twoFuncs = "package fake\nfunc Foo() {}\nfunc Bar() {}\n"

// pyrightDone is the registry's pyright DoneLog, so the fakes play it
// with the very expression pyright runs with.
var pyrightDone = func() LoadSignals {
	for _, c := range DefaultServers() {
		if c.Name == "pyright" {
			return c.Loading
		}
	}
	panic("no pyright in the registry")
}()

func intp(n int) *int { return &n }

// askSymbols asks documentSymbol through Ask and returns the symbols'
// names and the readiness.
func askSymbols(t *testing.T, ctx context.Context, m *Manager, path string) ([]string, Readiness, error) {
	t.Helper()
	a, err := m.Ask(ctx, path, "textDocument/documentSymbol", json.RawMessage(`{"textDocument":{"uri":`+mustString(edit.URIFromPath(path))+`}}`))
	if err != nil {
		return nil, a.Readiness, err
	}
	var syms []struct {
		Name string `json:"name"`
	}
	if err := decode(a.Result, &syms); err != nil {
		t.Fatalf("documentSymbol: %s: %v", a.Result, err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	return names, a.Readiness, nil
}

// TestReadinessOfAnswers (fake time): an answer carries the readiness its
// server had when the answer came: loading, with the progress reported so
// far, while the server reports loading work or, for a server that
// reports none (pyright), until it logs the end of its load; ready, with
// the whole list, after. Work whose title the registry calls quiet is
// not loading.
func TestReadinessOfAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ix     fakelsp.Indexing
		load   LoadSignals
		during Readiness // readiness of the partial answer
	}{
		{"progress", fakelsp.Indexing{Eager: true, Partial: true, Report: "1/2"}, LoadSignals{},
			Readiness{Server: "fakelsp", State: ReadyLoading, Progress: []Progress{{Title: "Indexing", Message: "1/2", Percentage: intp(50)}}}},
		{"done log", fakelsp.Indexing{Silent: true, Partial: true, EndLog: "Found 2 source files"}, pyrightDone,
			Readiness{Server: "fakelsp", State: ReadyLoading}},
		{"done log, progress is not loading", fakelsp.Indexing{Eager: true, Partial: true, EndLog: "No source files found."}, pyrightDone,
			Readiness{Server: "fakelsp", State: ReadyLoading}},
		{"quiet progress", fakelsp.Indexing{Eager: true, Partial: true}, LoadSignals{QuietProgress: `^Index`},
			Readiness{Server: "fakelsp", State: Ready}},
		// clangd creates its background index's token as it opens the
		// first file, and begins it after its first answer.
		{"progress created, not begun", fakelsp.Indexing{Late: true, Partial: true}, LoadSignals{},
			Readiness{Server: "fakelsp", State: ReadyLoading}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, fakelsp.Script{Indexing: &tc.ix}, func(o *Options) { o.Servers[0].Loading = tc.load })
				if err := os.WriteFile(e.file, []byte(twoFuncs), 0o644); err != nil {
					t.Fatal(err)
				}
				names, r, err := askSymbols(t, t.Context(), e.m, e.file)
				if err != nil || len(names) != 1 || !reflect.DeepEqual(r, tc.during) {
					t.Fatalf("while loading: %v %+v %v; want one symbol and %+v", names, r, err, tc.during)
				}
				if st := e.m.Servers()[0]; st.Readiness.State != tc.during.State {
					t.Fatalf("status while loading: %+v, want %s", st.Readiness, tc.during.State)
				}
				e.servers[0].EndIndexing()
				synctest.Wait() // the end is told
				if r, err := e.m.WaitReady(t.Context(), e.file); err != nil || r.State != Ready || len(r.Progress) != 0 {
					t.Fatalf("WaitReady: %+v %v", r, err)
				}
				names, r, err = askSymbols(t, t.Context(), e.m, e.file)
				if want := (Readiness{Server: "fakelsp", State: Ready}); err != nil || len(names) != 2 || !reflect.DeepEqual(r, want) {
					t.Fatalf("after the load: %v %+v %v; want both symbols and %+v", names, r, err, want)
				}
			})
		})
	}
}

// TestLoadingWait (fake time): a request to a server still loading waits
// at most Timeouts.Loading for its answer, then says "loading" with the
// progress seen so far, cancelled on the server, instead of holding its
// caller to the request timeout; a ready server's slow answer is waited
// for. A server that never reports ready (progress that never ends, a
// done log never written) stays loading: every slow answer says so.
func TestLoadingWait(t *testing.T) {
	slow := map[string]fakelsp.Behavior{"textDocument/documentSymbol": {Delay: fakelsp.Duration(40 * time.Second)}}
	for _, tc := range []struct {
		name     string
		ix       *fakelsp.Indexing
		load     LoadSignals
		progress []Progress
	}{
		{"progress without end", &fakelsp.Indexing{Eager: true, Report: "3/10"}, LoadSignals{},
			[]Progress{{Title: "Indexing", Message: "3/10", Percentage: intp(50)}}},
		{"done log never written", &fakelsp.Indexing{Silent: true}, pyrightDone, nil},
		{"ready", nil, LoadSignals{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, fakelsp.Script{Indexing: tc.ix, Methods: slow}, func(o *Options) {
					o.Servers[0].Loading = tc.load
					o.Timeouts.Request = Duration(time.Minute)
					o.Timeouts.Loading = Duration(10 * time.Second)
				})
				if err := e.m.Prewarm(t.Context(), e.file); err != nil {
					t.Fatal(err)
				}
				synctest.Wait() // the begin is in
				for round := range 2 {
					start := time.Now()
					names, r, err := askSymbols(t, t.Context(), e.m, e.file)
					took := time.Since(start)
					if tc.ix == nil {
						if err != nil || len(names) != 1 || r.State != Ready || took != 40*time.Second {
							t.Fatalf("ready server: %v %+v %v after %v; want its answer after 40s", names, r, err, took)
						}
						continue
					}
					var ie *IndexingError
					if !errors.As(err, &ie) || ie.Server != "fakelsp" || !reflect.DeepEqual(ie.Progress, tc.progress) || took != 10*time.Second {
						t.Fatalf("round %d: %v (%#v) after %v; want *IndexingError with %+v after 10s", round, err, ie, took, tc.progress)
					}
				}
				if tc.ix != nil {
					synctest.Wait()
					cancels := 0
					for _, m := range e.servers[0].Received() {
						if m.Method == "$/cancelRequest" {
							cancels++
						}
					}
					if cancels != 2 {
						t.Fatalf("%d $/cancelRequest sent, want 2", cancels)
					}
				}
			})
		})
	}
}

// TestLoadingTimeoutsDoNotRecycle (fake time): request timeouts while the
// server is loading (its progress never ends, its done log is never
// written) are not a wedge: the server is not recycled however many come
// in a row, where a ready server is, after Options.WedgeAfter of them.
func TestLoadingTimeoutsDoNotRecycle(t *testing.T) {
	never := map[string]fakelsp.Behavior{"textDocument/hover": {NeverAnswer: true}}
	for _, tc := range []struct {
		name    string
		ix      *fakelsp.Indexing
		load    LoadSignals
		started int // servers started by the end
	}{
		{"progress without end", &fakelsp.Indexing{Eager: true}, LoadSignals{}, 1},
		{"done log never written", &fakelsp.Indexing{Silent: true}, pyrightDone, 1},
		{"ready", nil, LoadSignals{}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, fakelsp.Script{Indexing: tc.ix, Methods: never}, func(o *Options) {
					o.Servers[0].Loading = tc.load
					o.Timeouts.Request = Duration(time.Second)
					o.Timeouts.Loading = Duration(-1) // the request timeout itself
					o.WedgeAfter = 2
				})
				for range 3 {
					_, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6})
					var ie *IndexingError
					if tc.ix != nil && !errors.As(err, &ie) || tc.ix == nil && !errors.Is(err, ErrTimeout) {
						t.Fatalf("hover: %v", err)
					}
					synctest.Wait() // a recycle is through
				}
				if n := e.started(); n != tc.started {
					t.Fatalf("%d servers started, want %d", n, tc.started)
				}
			})
		})
	}
}
