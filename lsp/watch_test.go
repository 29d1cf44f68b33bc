package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// watcherKinds are the implementations under test: the platform's own
// (inotify on Linux) and the scan every platform can fall back to.
func watcherKinds(t *testing.T) map[string]func(max int) diskWatcher {
	return map[string]func(int) diskWatcher{
		"platform": func(max int) diskWatcher {
			w, err := newDiskWatcher(max)
			if err != nil {
				t.Fatal(err)
			}
			return w
		},
		"scan": func(max int) diskWatcher { return newScanWatcher(max) },
	}
}

// eventNames renders events as "created sub/x.go" relative to root,
// sorted; folder events get a trailing slash. files drops folder events
// (the scan reports files only).
func eventNames(root string, evs []fileEvent, files bool) []string {
	names := map[int]string{changeCreated: "created", changeChanged: "changed", changeDeleted: "deleted"}
	var out []string
	for _, e := range evs {
		if files && e.dir {
			continue
		}
		rel, _ := filepath.Rel(root, e.path)
		rel = filepath.ToSlash(rel)
		if e.dir {
			rel += "/"
		}
		out = append(out, names[e.typ]+" "+rel)
	}
	slices.Sort(out)
	return out
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWatcher: each change made on disk is reported by the next drain,
// with no wait in between (the watcher must see what a write that
// returned did), coalesced per path; heavy folders are not watched.
func TestWatcher(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string
		// kernel, when set, is what the kernel watcher reports instead
		// (it reports folders deleted or moved away as such; the scan
		// reports files only).
		kernel []string
	}{
		{"modify", func(t *testing.T, root string) { mustWrite(t, filepath.Join(root, "a.go"), "package a // changed\n") },
			[]string{"changed a.go"}, nil},
		{"create", func(t *testing.T, root string) { mustWrite(t, filepath.Join(root, "new.go"), "package a\n") },
			[]string{"created new.go"}, nil},
		{"create then modify", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, "new.go"), "package a\n")
			mustWrite(t, filepath.Join(root, "new.go"), "package a // more\n")
		}, []string{"created new.go"}, nil},
		{"delete", func(t *testing.T, root string) { must(t, os.Remove(filepath.Join(root, "sub", "b.go"))) },
			[]string{"deleted sub/b.go"}, nil},
		{"rename", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "a.go"), filepath.Join(root, "sub", "moved.go")))
		}, []string{"created sub/moved.go", "deleted a.go"}, nil},
		{"new subfolders", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, "n1", "n2", "c.go"), "package n2\n")
		}, []string{"created n1/n2/c.go"}, nil},
		{"folder moved away", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(filepath.Dir(root), filepath.Base(root)+"-away")))
		}, []string{"deleted sub/b.go"}, []string{"deleted sub/"}},
		{"folder deleted", func(t *testing.T, root string) { must(t, os.RemoveAll(filepath.Join(root, "sub"))) },
			[]string{"deleted sub/b.go"}, []string{"deleted sub/", "deleted sub/b.go"}},
		{"package installed in a virtual environment", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, ".venv", "lib", "python3.11", "site-packages", "pkg", "__init__.py"), "VALUE = 1\n")
			mustWrite(t, filepath.Join(root, ".venv", "lib", "python3.11", "site-packages", "old", "deep", "x.py"), "x = 2\n")
		}, nil, []string{"created .venv/lib/python3.11/site-packages/pkg/__init__.py"}},
		{"ignored folders", func(t *testing.T, root string) {
			mustWrite(t, filepath.Join(root, ".git", "index"), "x")
			mustWrite(t, filepath.Join(root, "node_modules", "pkg", "i.js"), "x")
			mustWrite(t, filepath.Join(root, "target", "debug", "x.rs"), "x")
			mustWrite(t, filepath.Join(root, "fresh", "node_modules", "p", "i.js"), "x")
		}, nil, nil},
	} {
		for kind, make := range watcherKinds(t) {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				root := realWorkspace(t, map[string]string{
					"a.go": "package a\n", "sub/b.go": "package sub\n",
					".git/HEAD": "ref\n", "node_modules/pkg/index.js": "x\n",
					"target/CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n",
					".venv/pyvenv.cfg":    "home = /usr/bin\n", ".venv/lib/python3.11/site-packages/old/deep/x.py": "x = 1\n",
				})
				w := make(100)
				defer w.close()
				w.add(root)
				if evs, lost := w.drain(); len(evs) != 0 || lost {
					t.Fatalf("events before any change: %v lost %v", eventNames(root, evs, false), lost)
				}
				c.change(t, root)
				evs, lost := w.drain()
				want, files := c.want, true
				if kind == "platform" && runtime.GOOS == "linux" {
					files = false
					if c.kernel != nil {
						want = c.kernel
					}
				}
				if got := eventNames(root, evs, files); lost || !slices.Equal(got, want) {
					t.Fatalf("events %q lost %v, want %q", got, lost, want)
				}
				if evs, _ := w.drain(); len(evs) != 0 {
					t.Fatalf("a second drain repeated %q", eventNames(root, evs, false))
				}
				if st := w.status(); st.Note != "" {
					t.Fatalf("note %q with the folders under the limit", st.Note)
				}
			})
		}
	}
}

// TestWatcherMovedFolder: a folder moved within the workspace is watched
// under its new name: a later write there is reported with the new path.
func TestWatcherMovedFolder(t *testing.T) {
	for kind, make := range watcherKinds(t) {
		t.Run(kind, func(t *testing.T) {
			root := realWorkspace(t, map[string]string{"sub/deep/b.go": "package deep\n"})
			w := make(100)
			defer w.close()
			w.add(root)
			must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "moved")))
			w.drain()
			mustWrite(t, filepath.Join(root, "moved", "deep", "b.go"), "package deep // changed\n")
			evs, _ := w.drain()
			if got := eventNames(root, evs, true); !slices.Equal(got, []string{"changed moved/deep/b.go"}) {
				t.Fatalf("events %q after a write in the moved folder", got)
			}
		})
	}
}

// TestWatcherLimit: past its folder limit the watcher says which folders
// it does not cover, and still reports changes in those it does.
func TestWatcherLimit(t *testing.T) {
	for kind, make := range watcherKinds(t) {
		t.Run(kind, func(t *testing.T) {
			root := realWorkspace(t, map[string]string{"a.go": "package a\n", "p/b.go": "package p\n", "q/c.go": "package q\n", "r/d.go": "package r\n"})
			w := make(2)
			defer w.close()
			w.add(root)
			st := w.status()
			if st.Dirs != 2 || !strings.Contains(st.Note, "limit of 2 folders") || !strings.Contains(st.Note, "local.watch_max_dirs") {
				t.Fatalf("status %+v, want 2 folders and a note on the limit", st)
			}
			mustWrite(t, filepath.Join(root, "a.go"), "package a // changed\n")
			evs, _ := w.drain()
			if got := eventNames(root, evs, true); !slices.Equal(got, []string{"changed a.go"}) {
				t.Fatalf("events %q, want the root's change", got)
			}
		})
	}
}

// TestWatcherBurst: more distinct changes than the queue holds are
// reported as lost, never silently dropped.
func TestWatcherBurst(t *testing.T) {
	q := eventQueue{max: 3}
	for _, p := range []string{"a", "b", "a", "c", "d"} {
		q.record(p, changeChanged, false)
	}
	evs, lost := q.take()
	if len(evs) != 3 || !lost {
		t.Fatalf("%d events, lost %v; want 3 and lost", len(evs), lost)
	}
	if evs, lost := q.take(); len(evs) != 0 || lost {
		t.Fatalf("after take: %d events, lost %v", len(evs), lost)
	}
}

// TestWatcherCoalesce: changes to one path between drains reduce to what
// a server needs to hear.
func TestWatcherCoalesce(t *testing.T) {
	for _, c := range []struct {
		seq  []int
		want int
	}{
		{[]int{changeCreated, changeChanged}, changeCreated},
		{[]int{changeChanged, changeDeleted}, changeDeleted},
		{[]int{changeDeleted, changeCreated}, changeChanged},
		{[]int{changeCreated, changeDeleted}, changeDeleted},
		{[]int{changeChanged, changeChanged}, changeChanged},
	} {
		q := eventQueue{max: 10}
		for _, typ := range c.seq {
			q.record("x", typ, false)
		}
		if evs, _ := q.take(); len(evs) != 1 || evs[0].typ != c.want {
			t.Errorf("%v: %+v, want type %d", c.seq, evs, c.want)
		}
	}
}

// TestWatcherNoFDLeak: a closed watcher leaves no descriptor open (and,
// by TestMain's goleak, no goroutine).
func TestWatcherNoFDLeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	root := realWorkspace(t, map[string]string{"a.go": "package a\n"})
	count := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	before := count()
	for range 20 {
		w, err := newDiskWatcher(100)
		if err != nil {
			t.Fatal(err)
		}
		w.add(root)
		mustWrite(t, filepath.Join(root, "a.go"), "package a\n")
		w.drain()
		must(t, w.close())
	}
	if after := count(); after > before {
		t.Fatalf("%d descriptors open after 20 watchers were closed, %d before", after, before)
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
		typ  int
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
	mustWrite(t, d, "package fake\n")
	mustWrite(t, c, "package fake\n")
	mustWrite(t, filepath.Join(e.root, "notes.txt"), "x\n")
	mustWrite(t, filepath.Join(e.root, "node_modules", "x.fk"), "package fake\n")
	e.wantHover()
	must(t, os.Remove(d))
	mustWrite(t, c, "package fake\nfunc C() {}\n")
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

// FuzzParseInotify: a buffer of any bytes is walked without reading past
// its end.
func FuzzParseInotify(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 'a', '.', 'g', 0})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_ = parseInotify(b, func(wd int32, mask uint32, name string) {
			n += 16 + len(name)
			if n > len(b) {
				t.Fatalf("record past the buffer's end")
			}
		})
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
			mustWrite(t, other, "package fake\n")
			if _, err := e.m.Diagnostics(t.Context(), []string{other}, DiagnosticsOptions{}); err != nil {
				t.Fatal(err)
			}
			e.write("package fake\nfunc Foo2() {}\n")
			if c.split {
				if err := e.m.FileChanged(t.Context(), e.file); err != nil {
					t.Fatal(err)
				}
			}
			mustWrite(t, other, "package fake\nfunc C() { Foo2() }\n")
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
				mustWrite(t, filepath.Join(e.root, "b.fk"), "package fake\n")
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

func (w *lostWatcher) add(string) {}
func (w *lostWatcher) drain() ([]fileEvent, bool) {
	lost := w.lost
	w.lost = false
	return nil, lost
}
func (w *lostWatcher) status() WatchStatus { return WatchStatus{Mode: "test"} }
func (w *lostWatcher) close() error        { return nil }

// TestWatcherLostEvents: when the watcher lost events (a burst beyond its
// queue), every open document is resent before its next diagnostics and
// the status says events were lost, rather than answering as if nothing
// had changed.
func TestWatcherLostEvents(t *testing.T) {
	e := newFaultEnv(t, watcherScript, nil)
	e.wantHover()
	e.m.watch.mu.Lock()
	must(t, e.m.watch.w.close())
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
	mustWrite(t, filepath.Join(pkg, "x.fk"), "package fake\n")
	mustWrite(t, filepath.Join(other, "y.fk"), "package fake\n")
	script := fakelsp.Script{ClientRequests: []fakelsp.ClientRequest{{Method: "client/registerCapability", Params: json.RawMessage(
		`{"registrations":[{"id":"w1","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.fk"},` +
			`{"globPattern":{"baseUri":"` + edit.URIFromPath(pkg) + `","pattern":"**/*.fk"}}]}}]}`)}}}
	e := newFaultEnvAt(t, root, script, nil)
	e.wantHover()
	e.wantHover() // the registration is in by the first answer; this request's sync watches the base
	mustWrite(t, filepath.Join(pkg, "x.fk"), "package fake\nfunc X() {}\n")
	mustWrite(t, filepath.Join(other, "y.fk"), "package fake\nfunc Y() {}\n")
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
