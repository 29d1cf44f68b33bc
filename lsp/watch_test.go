package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGlob: LSP glob patterns, as servers register them.
func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes, no []string
	}{
		{"**/*.{go,mod,sum,work}", []string{"a.go", "x/y/go.mod", "/abs/p/go.work"}, []string{"a.gox", "a.txt", "go"}},
		{"**/*.{mod,work}", []string{"go.mod", "a/go.work"}, []string{"go.sum"}},
		{"*.py", []string{"a.py"}, []string{"x/a.py"}},
		{"src/**/*.ts", []string{"src/a.ts", "src/x/y/a.ts"}, []string{"a.ts", "lib/src/a.ts"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a?c", []string{"abc"}, []string{"a/c", "abbc"}},
		{"[a-c]x", []string{"bx"}, []string{"dx"}},
		{"[!a-c]x", []string{"dx"}, []string{"ax", "/x"}},
		{"{a,{b,c}d}", []string{"a", "bd", "cd"}, []string{"b", "ad"}},
		{"file[.txt", []string{"file[.txt"}, []string{"filet"}},
		{"x{y", []string{"x{y"}, nil},
		{"a.b+c(d)", []string{"a.b+c(d)"}, []string{"aXb+c(d)"}},
		{"**/", []string{"a/"}, nil},
		{"日本/*.go", []string{"日本/a.go"}, []string{"日/a.go"}},
		// A class's leading '-' is that character, not a range from "/";
		// "**" matches any name, a newline in it too.
		{"x[!-a]", []string{"x5", "xZ", "xb"}, []string{"x-", "xa", "x/"}},
		{"x[-a]", []string{"x-", "xa"}, []string{"x5", "xb"}},
		{"**", []string{"a\nb", "d/a\nb"}, nil},
		{"src/**", []string{"src/a\nb/c"}, []string{"lib/a"}},
	} {
		re, err := compileGlob(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		for _, s := range c.yes {
			if !re.MatchString(s) {
				t.Errorf("%q does not match %q (%s)", c.pattern, s, re)
			}
		}
		for _, s := range c.no {
			if re.MatchString(s) {
				t.Errorf("%q matches %q (%s)", c.pattern, s, re)
			}
		}
	}
}

// TestParseWatchers: gopls's registration (a plain pattern and a
// relative one), watch kinds, and a bad pattern that does not hide the
// good ones.
func TestParseWatchers(t *testing.T) {
	ws, err := parseWatchers(json.RawMessage(`{"watchers":[{"globPattern":"**/*.{mod,work}","kind":7},
		{"globPattern":{"baseUri":"file:///ws/mod","pattern":"**/*.go"},"kind":4},
		{"globPattern":{"baseUri":{"uri":"file:///ws/other","name":"other"},"pattern":"*.py"}},
		{"globPattern":"[z-a]"},
		{"globPattern":42}]}`))
	if err == nil || len(ws) != 3 {
		t.Fatalf("%d watchers, err %v; want 3 and an error naming the bad ones", len(ws), err)
	}
	for _, c := range []struct {
		path string
		typ  filewatch.Op
		dir  bool
		want bool
	}{
		{"/ws/mod/go.mod", changeChanged, false, true},
		{"/ws/mod/x/a.go", changeDeleted, false, true},
		{"/ws/mod/x/a.go", changeChanged, false, false}, // kind 4: deletes only
		{"/ws/a.go", changeDeleted, false, false},       // outside the base
		{"/ws/other/a.py", changeCreated, false, true},
		{"/ws/other/x/a.py", changeCreated, false, false},
		{"/ws/mod/pkg", changeDeleted, true, true},  // a folder under the base
		{"/ws/mod/pkg", changeCreated, true, false}, // its files are reported
		{"/elsewhere/pkg", changeDeleted, true, false},
	} {
		got := false
		for _, w := range ws {
			got = got || w.wants(filepath.FromSlash(c.path), filepath.FromSlash("/ws"), c.typ, c.dir)
		}
		if got != c.want {
			t.Errorf("%s type %d dir %v: wanted %v, want %v", c.path, c.typ, c.dir, got, c.want)
		}
	}
}

// TestShellChangesToServer: with a fake server that watches *.fk files, a
// file created, changed and deleted by the shell (os calls, no FileChanged)
// reaches it as didChangeWatchedFiles before the next request, once; files
// its patterns do not match, and files in ignored folders, do not.
func TestShellChangesToServer(t *testing.T) {
	e := newFaultEnv(t, watcherScript, nil)
	e.wantHover() // started, registrations in
	c, d := filepath.Join(e.root, "sub", "c.fk"), filepath.Join(e.root, "d.fk")
	disk.Write(t, d, "package fake\n")
	disk.Write(t, c, "package fake\n")
	disk.Write(t, filepath.Join(e.root, "notes.txt"), "x\n")
	disk.Write(t, filepath.Join(e.root, "node_modules", "x.fk"), "package fake\n")
	e.wantHover()
	must(t, os.Remove(d))
	disk.Write(t, c, "package fake\nfunc C() {}\n")
	e.wantHover()
	e.wantHover() // nothing new
	e.close()
	var got []string
	for _, s := range didTraffic(t, e.messages()) {
		if strings.HasPrefix(s, "watched ") {
			got = append(got, s)
		}
	}
	want := []string{"watched d.fk:1", "watched c.fk:1", "watched d.fk:3", "watched c.fk:2"}
	if !slices.Equal(got, want) {
		t.Fatalf("watched traffic %q, want %q", got, want)
	}
}

// FuzzGlob: any pattern compiles or fails cleanly, and a pattern without
// glob syntax matches exactly itself.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.{go,mod}", "[!a-z]?", "{a,{b,c}}", "x[", "**/**/", "a\\b", "\xff"} {
		f.Add(s, "a/b.go")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		re, err := compileGlob(pattern)
		if err != nil {
			return
		}
		re.MatchString(path)
		if !strings.ContainsAny(pattern, "*?[]{},") && !re.MatchString(pattern) {
			t.Fatalf("literal %q does not match itself (%s)", pattern, re)
		}
	})
}

// FuzzParseWatchers: registration options from a server never panic, and
// every watcher they yield can be asked about any path.
func FuzzParseWatchers(f *testing.F) {
	f.Add([]byte(`{"watchers":[{"globPattern":"**/*.go","kind":7},{"globPattern":{"baseUri":"file:///w","pattern":"*"}}]}`), "/w/a.go")
	f.Add([]byte(`{"watchers":[{"globPattern":{"baseUri":{"uri":"file:///w"},"pattern":"{a"}}]}`), "/w/{a")
	f.Fuzz(func(t *testing.T, raw []byte, path string) {
		ws, _ := parseWatchers(raw)
		for _, w := range ws {
			for typ := changeCreated; typ <= changeDeleted; typ++ {
				w.wants(path, "/w", typ, false)
				w.wants(path, "/w", typ, true)
			}
		}
	})
}

// TestShellBatchResend: two open files changed on disk at once (a rename
// applied by shell, say) are told together by their new texts, with no
// watched events (an open document's content is the client's to tell; the
// events made gopls do the work twice); the file sent first is sent once
// more before its next diagnostics, since a server may have checked it
// before the second file's change arrived (gopls then published, for its
// current version, an error the second file fixes). The file sent last is
// not sent again. The same holds when the two changes reach acp-lsp in two
// batches (another session's request took the first file's event before
// the rename's own FileChanged named both files): the second batch, where
// the first file comes last, finds it unchanged, yet it was sent first.
// (Sparing the last file of a batch instead let gopls's answer for
// main.go, computed before the renamed helper's file, count as fresh:
// "undefined: lib.Helper0x" in the soak.)
func TestShellBatchResend(t *testing.T) {
	for _, c := range []struct {
		name  string
		split bool
	}{{"one batch", false}, {"two batches", true}} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, watcherScript, nil)
			e.wantHover() // started, registrations in
			other := filepath.Join(e.root, "c.fk")
			disk.Write(t, other, "package fake\n")
			if _, err := e.m.Diagnostics(t.Context(), []string{other}, DiagnosticsOptions{}); err != nil {
				t.Fatal(err)
			}
			e.write("package fake\nfunc Foo2() {}\n")
			if c.split {
				if err := e.m.FileChanged(t.Context(), e.file); err != nil {
					t.Fatal(err)
				}
			}
			disk.Write(t, other, "package fake\nfunc C() { Foo2() }\n")
			if c.split {
				if err := e.m.FileChanged(t.Context(), other, e.file); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range []struct {
				file    string
				version int32
			}{{e.file, 3}, {other, 2}} {
				rep, err := e.m.Diagnostics(t.Context(), []string{w.file}, DiagnosticsOptions{})
				if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != w.version {
					t.Fatalf("diagnostics of %s after the change: %+v %v, want fresh version %d", filepath.Base(w.file), rep.Files[0], err, w.version)
				}
			}
			e.close()
			want := []string{"didOpen a.fk 1", "watched c.fk:1", "didOpen c.fk 1",
				"didChange a.fk 2", "didChange c.fk 2", "didChange a.fk 3"}
			if got := didTraffic(t, e.messages()); !slices.Equal(got, want) {
				t.Fatalf("document traffic %q, want %q", got, want)
			}
		})
	}
}

// TestTellOnWrite: an open file written and closed behind the client (by
// the agent's shell, say) reaches the server at once, with no request: its
// new version is published with nobody asking, and the diagnostics asked
// for afterwards are that version's, with no second send. A write still in
// progress is not told (the file is written in two parts, closed after
// the second): had the first part been told, the traffic would show a
// version for it and one more for the whole text.
func TestTellOnWrite(t *testing.T) {
	e := newFaultEnv(t, watcherScript, func(o *Options) { o.TellAtRequest = false })
	e.wantHover() // started, registrations in, a.fk open
	events, stop := e.m.Subscribe(16)
	defer stop()
	f, err := os.OpenFile(e.file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("package fake\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("func Foo2() {}\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for told := false; !told; {
		select {
		case ev := <-events:
			told = ev.Path == e.file && ev.Version == 2
		case <-deadline.C:
			t.Fatal("the write was not told to the server within 30s of its close")
		}
	}
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
	if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != 2 {
		t.Fatalf("diagnostics after the write: %+v %v, want fresh version 2", rep.Files[0], err)
	}
	e.close()
	want := []string{"didOpen a.fk 1", "didChange a.fk 2"}
	if got := didTraffic(t, e.messages()); !slices.Equal(got, want) {
		t.Fatalf("document traffic %q, want %q", got, want)
	}
}

// TestShellEditOneOpenFile: the common case, one open file written by
// shell and nothing else changed, costs the server exactly one didChange:
// no watched event for it (the didChange carries the text) and no resend
// before its diagnostics (nothing else in the batch could make them
// stale). Whether the batch also changed a file that is not open decides
// only whether that file's watched event goes first.
func TestShellEditOneOpenFile(t *testing.T) {
	for _, c := range []struct {
		name  string
		other bool // a file that is not open changes in the same batch
		want  []string
	}{
		{"alone", false, []string{"didOpen a.fk 1", "didChange a.fk 2"}},
		{"with a closed file", true, []string{"didOpen a.fk 1", "watched b.fk:1", "didChange a.fk 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, watcherScript, nil)
			e.wantHover() // started, registrations in
			e.write("package fake\nfunc A() {}\n")
			if c.other {
				disk.Write(t, filepath.Join(e.root, "b.fk"), "package fake\n")
			}
			for range 2 { // the second finds nothing to send
				rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
				if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != 2 {
					t.Fatalf("diagnostics after the edit: %+v %v, want fresh version 2", rep.Files[0], err)
				}
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.want) {
				t.Fatalf("document traffic %q, want %q", got, c.want)
			}
		})
	}
}

// lostWatcher reports lost events once, as inotify's queue overflow does.
type lostWatcher struct{ lost bool }

func (w *lostWatcher) Add(string) {}
func (w *lostWatcher) Drain() ([]filewatch.Event, bool) {
	lost := w.lost
	w.lost = false
	return nil, lost
}
func (w *lostWatcher) Wake() <-chan struct{}    { return nil }
func (w *lostWatcher) Status() filewatch.Status { return filewatch.Status{Mode: "test"} }
func (w *lostWatcher) Close() error             { return nil }

// TestWatcherLostEvents: when the watcher lost events (a burst beyond its
// queue), every open document is resent before its next diagnostics and
// the status says events were lost, rather than answering as if nothing
// had changed.
func TestWatcherLostEvents(t *testing.T) {
	e := newFaultEnv(t, watcherScript, nil)
	e.wantHover()
	e.m.watch.mu.Lock()
	must(t, e.m.watch.w.Close())
	e.m.watch.w = &lostWatcher{lost: true}
	e.m.watch.mu.Unlock()
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
	if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != 2 {
		t.Fatalf("diagnostics after lost events: %+v %v, want fresh version 2 (resent)", rep.Files[0], err)
	}
	if note := e.m.WatchStatus().Note; !strings.Contains(note, "file watching lost events") || !strings.Contains(note, "restart it") {
		t.Fatalf("watch note %q, want the loss said", note)
	}
}

// TestWatcherLostWhileNoServer: events lost while no server runs (all
// idle-stopped, say) cost nothing: a server started later reads the disk
// itself, so the status says no loss and nothing is resent.
func TestWatcherLostWhileNoServer(t *testing.T) {
	e := newFaultEnv(t, watcherScript, nil)
	e.m.watch.mu.Lock()
	e.m.watch.w = &lostWatcher{lost: true}
	e.m.watch.mu.Unlock()
	if err := e.m.FileChanged(t.Context()); err != nil {
		t.Fatal(err)
	}
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
	if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != 1 {
		t.Fatalf("diagnostics: %+v %v, want fresh version 1", rep.Files[0], err)
	}
	if note := e.m.WatchStatus().Note; note != "" {
		t.Fatalf("watch note %q after a loss while no server ran", note)
	}
}

// TestWatchRegisteredIgnoredBase: a folder acp-lsp skips by default
// (node_modules, .venv) is watched when a server registers a watcher
// based inside it (pyright does for the site-packages of a project's
// virtual environment): a package installed or changed there reaches it.
// The rest of the skipped folder stays unwatched.
func TestWatchRegisteredIgnoredBase(t *testing.T) {
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	pkg := filepath.Join(root, "node_modules", "pkg")
	other := filepath.Join(root, "node_modules", "other")
	disk.Write(t, filepath.Join(pkg, "x.fk"), "package fake\n")
	disk.Write(t, filepath.Join(other, "y.fk"), "package fake\n")
	script := fakelsp.Script{ClientRequests: []fakelsp.ClientRequest{{Method: "client/registerCapability", Params: json.RawMessage(
		`{"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.fk"},` +
			`{"globPattern":{"baseUri":"` + edit.URIFromPath(pkg) + `","pattern":"**/*.fk"}}]}}]}`)}}}
	e := newFaultEnvAt(t, root, script, nil)
	e.wantHover()
	e.wantHover() // the registration is in by the first answer; this request's sync watches the base
	disk.Write(t, filepath.Join(pkg, "x.fk"), "package fake\nfunc X() {}\n")
	disk.Write(t, filepath.Join(other, "y.fk"), "package fake\nfunc Y() {}\n")
	e.wantHover()
	e.close()
	var got []string
	for _, s := range didTraffic(t, e.messages()) {
		if strings.HasPrefix(s, "watched ") {
			got = append(got, s)
		}
	}
	if want := []string{"watched x.fk:2"}; !slices.Equal(got, want) {
		t.Fatalf("watched traffic %q, want %q", got, want)
	}
}
