package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// budgetEnv is a memEnv with three roots, one server each, whose
// processes weigh rss[root] bytes.
func budgetEnv(t *testing.T, tweak func(*Options), rss map[string]int64) (*memEnv, []string) {
	return budgetEnvScript(t, fakelsp.Script{}, tweak, rss)
}

func budgetEnvScript(t *testing.T, script fakelsp.Script, tweak func(*Options), rss map[string]int64) (*memEnv, []string) {
	t.Helper()
	e := newMemEnv(t, script, tweak)
	files := []string{e.file}
	for range 2 {
		root, err := filepath.EvalSymlinks(t.TempDir())
		must(t, err)
		f := filepath.Join(root, "a.fk")
		must(t, os.WriteFile(f, []byte(fakeText), 0o644))
		must(t, e.m.AddRoot(root))
		files = append(files, f)
	}
	e.m.opts.Budget.rss = func(pids map[*server]int) map[*server]int64 {
		out := map[*server]int64{}
		for s := range pids {
			out[s] = rss[s.root]
		}
		return out
	}
	return e, files
}

// running lists the roots whose server runs.
func runningRoots(m *Manager) map[string]bool {
	out := map[string]bool{}
	for _, st := range m.Servers() {
		if st.State == StateRunning {
			out[st.Root] = true
		}
	}
	return out
}

// TestBudgetStopsLeastRecentlyUsed (fake time): a start that would go
// past local.max_running, or that finds the running servers filling the
// memory budget, first stops the least recently used idle server; the
// others keep running.
func TestBudgetStopsLeastRecentlyUsed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		tweak func(*Options)
	}{
		{"max running", func(o *Options) { o.MaxRunning = 2; o.MemoryBudget = -1 }},
		{"memory", func(o *Options) { o.MemoryBudget = 100 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rss := map[string]int64{}
				e, files := budgetEnv(t, tt.tweak, rss)
				for _, f := range files {
					rss[filepath.Dir(f)] = 60
				}
				// Used in the order 1, 0: server 1 is the least recently used.
				must(t, e.m.Prewarm(t.Context(), files[1]))
				time.Sleep(time.Second)
				must(t, e.m.Prewarm(t.Context(), files[0]))
				time.Sleep(time.Second)
				must(t, e.m.Prewarm(t.Context(), files[2]))
				synctest.Wait()
				got := runningRoots(e.m)
				want := map[string]bool{filepath.Dir(files[0]): true, filepath.Dir(files[2]): true}
				if len(got) != 2 || !got[filepath.Dir(files[0])] || !got[filepath.Dir(files[2])] {
					t.Errorf("running %v, want %v (the least recently used stopped)", got, want)
				}
				if e.started() != 3 {
					t.Errorf("%d starts, want 3", e.started())
				}
			})
		})
	}
}

// TestBudgetServerAloneOver (fake time): a server that alone exceeds the
// memory budget is reported in its status and keeps running through
// further requests: it is not stopped for itself, and not restarted.
func TestBudgetServerAloneOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rss := map[string]int64{}
		e, _ := budgetEnv(t, func(o *Options) { o.MemoryBudget = 100 }, rss)
		rss[e.root] = 150
		for range 3 {
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
		}
		st := e.m.Servers()
		if len(st) != 1 || st[0].State != StateRunning || !st[0].OverBudget || st[0].RSSBytes != 150 {
			t.Errorf("status %+v, want running, over budget, 150 bytes", st)
		}
		if e.started() != 1 {
			t.Errorf("%d starts, want 1", e.started())
		}
	})
}

// TestBudgetSparesBusyServer (fake time): the least recently used server
// is not stopped while a request to it is in flight; the next idle one
// is.
func TestBudgetSparesBusyServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/hover": {NeverAnswer: true}}}
		e, files := budgetEnvScript(t, script, func(o *Options) { o.MaxRunning = 2; o.MemoryBudget = -1 }, map[string]int64{})
		must(t, e.m.Prewarm(t.Context(), files[1]))
		ctx, cancel := context.WithCancel(t.Context())
		asked := make(chan struct{})
		go func() {
			defer close(asked)
			hover(ctx, e.m, files[1], Position{Line: 1, Character: 6})
		}()
		synctest.Wait() // the hover to server 1 is in flight
		time.Sleep(time.Second)
		// Server 1, asked a second ago and still answering, is the least
		// recently used.
		must(t, e.m.Prewarm(t.Context(), files[0]))
		time.Sleep(time.Second)
		must(t, e.m.Prewarm(t.Context(), files[2]))
		got := runningRoots(e.m)
		if len(got) != 2 || !got[filepath.Dir(files[1])] || !got[filepath.Dir(files[2])] {
			t.Errorf("running %v, want the busy server 1 and the new 2", got)
		}
		cancel()
		<-asked
	})
}

// TestBudgetReadsOnceForAll: a check (the budget's look before a start,
// a status) reads the resident memory of all running servers in one
// read: on macOS each read is a run of ps.
func TestBudgetReadsOnceForAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, files := budgetEnv(t, func(o *Options) { o.MemoryBudget = 1000 }, map[string]int64{})
		for _, f := range files {
			must(t, e.m.Prewarm(t.Context(), f))
		}
		var reads []int
		e.m.opts.Budget.rss = func(pids map[*server]int) map[*server]int64 {
			reads = append(reads, len(pids))
			return map[*server]int64{}
		}
		if st := e.m.Servers(); len(st) != 3 {
			t.Fatalf("status of %d servers, want 3", len(st))
		}
		e.m.opts.Budget.snapshot(nil)
		if !slices.Equal(reads, []int{3, 3}) {
			t.Errorf("servers per read %v, want [3 3]: one read each for the status and the budget", reads)
		}
	})
}
