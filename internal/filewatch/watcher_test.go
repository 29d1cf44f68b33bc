package filewatch

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
)

// TestMain checks that no test leaves a watcher's goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// watcherKinds are the implementations under test: the platform's own
// (inotify on Linux) and the scan every platform can fall back to.
func watcherKinds(t *testing.T) map[string]func(max int) Watcher {
	return map[string]func(int) Watcher{
		"platform": func(max int) Watcher {
			w, err := New(max)
			if err != nil {
				t.Fatal(err)
			}
			return w
		},
		"scan": func(max int) Watcher { return NewScan(max) },
	}
}

// eventNames renders events as "created sub/x.go" relative to root,
// sorted; folder events get a trailing slash. files drops folder events
// (the scan reports files only).
func eventNames(root string, evs []Event, files bool) []string {
	names := map[Op]string{Created: "created", Changed: "changed", Deleted: "deleted"}
	var out []string
	for _, e := range evs {
		if files && e.Dir {
			continue
		}
		rel, _ := filepath.Rel(root, e.Path)
		rel = filepath.ToSlash(rel)
		if e.Dir {
			rel += "/"
		}
		out = append(out, names[e.Op]+" "+rel)
	}
	slices.Sort(out)
	return out
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
		{"modify", func(t *testing.T, root string) { disk.Write(t, filepath.Join(root, "a.go"), "package a // changed\n") },
			[]string{"changed a.go"}, nil},
		{"create", func(t *testing.T, root string) { disk.Write(t, filepath.Join(root, "new.go"), "package a\n") },
			[]string{"created new.go"}, nil},
		{"create then modify", func(t *testing.T, root string) {
			disk.Write(t, filepath.Join(root, "new.go"), "package a\n")
			disk.Write(t, filepath.Join(root, "new.go"), "package a // more\n")
		}, []string{"created new.go"}, nil},
		{"delete", func(t *testing.T, root string) { must(t, os.Remove(filepath.Join(root, "sub", "b.go"))) },
			[]string{"deleted sub/b.go"}, nil},
		{"rename", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "a.go"), filepath.Join(root, "sub", "moved.go")))
		}, []string{"created sub/moved.go", "deleted a.go"}, nil},
		{"new subfolders", func(t *testing.T, root string) {
			disk.Write(t, filepath.Join(root, "n1", "n2", "c.go"), "package n2\n")
		}, []string{"created n1/n2/c.go"}, nil},
		{"folder moved away", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(filepath.Dir(root), filepath.Base(root)+"-away")))
		}, []string{"deleted sub/b.go"}, []string{"deleted sub/"}},
		{"folder deleted", func(t *testing.T, root string) { must(t, os.RemoveAll(filepath.Join(root, "sub"))) },
			[]string{"deleted sub/b.go"}, []string{"deleted sub/", "deleted sub/b.go"}},
		{"package installed in a virtual environment", func(t *testing.T, root string) {
			disk.Write(t, filepath.Join(root, ".venv", "lib", "python3.11", "site-packages", "pkg", "__init__.py"), "VALUE = 1\n")
			disk.Write(t, filepath.Join(root, ".venv", "lib", "python3.11", "site-packages", "old", "deep", "x.py"), "x = 2\n")
		}, nil, []string{"created .venv/lib/python3.11/site-packages/pkg/__init__.py"}},
		{"ignored folders", func(t *testing.T, root string) {
			disk.Write(t, filepath.Join(root, ".git", "index"), "x")
			disk.Write(t, filepath.Join(root, "node_modules", "pkg", "i.js"), "x")
			disk.Write(t, filepath.Join(root, "target", "debug", "x.rs"), "x")
			disk.Write(t, filepath.Join(root, "fresh", "node_modules", "p", "i.js"), "x")
		}, nil, nil},
	} {
		for kind, make := range watcherKinds(t) {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				root := disk.Tree(t, map[string]string{
					"a.go": "package a\n", "sub/b.go": "package sub\n",
					".git/HEAD": "ref\n", "node_modules/pkg/index.js": "x\n",
					"target/CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n",
					".venv/pyvenv.cfg":    "home = /usr/bin\n", ".venv/lib/python3.11/site-packages/old/deep/x.py": "x = 1\n",
				})
				w := make(100)
				defer w.Close()
				w.Add(root)
				if evs, lost := w.Drain(); len(evs) != 0 || lost {
					t.Fatalf("events before any change: %v lost %v", eventNames(root, evs, false), lost)
				}
				c.change(t, root)
				evs, lost := w.Drain()
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
				if evs, _ := w.Drain(); len(evs) != 0 {
					t.Fatalf("a second drain repeated %q", eventNames(root, evs, false))
				}
				if st := w.Status(); st.Note != "" {
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
			root := disk.Tree(t, map[string]string{"sub/deep/b.go": "package deep\n"})
			w := make(100)
			defer w.Close()
			w.Add(root)
			must(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "moved")))
			w.Drain()
			disk.Write(t, filepath.Join(root, "moved", "deep", "b.go"), "package deep // changed\n")
			evs, _ := w.Drain()
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
			root := disk.Tree(t, map[string]string{"a.go": "package a\n", "p/b.go": "package p\n", "q/c.go": "package q\n", "r/d.go": "package r\n"})
			w := make(2)
			defer w.Close()
			w.Add(root)
			st := w.Status()
			if st.Dirs != 2 || !strings.Contains(st.Note, "limit of 2 folders") || !strings.Contains(st.Note, "local.watch_max_dirs") {
				t.Fatalf("status %+v, want 2 folders and a note on the limit", st)
			}
			disk.Write(t, filepath.Join(root, "a.go"), "package a // changed\n")
			evs, _ := w.Drain()
			if got := eventNames(root, evs, true); !slices.Equal(got, []string{"changed a.go"}) {
				t.Fatalf("events %q, want the root's change", got)
			}
		})
	}
}

// TestWatcherNoFDLeak: a closed watcher leaves no descriptor open (and,
// by TestMain's goleak, no goroutine).
func TestWatcherNoFDLeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	root := disk.Tree(t, map[string]string{"a.go": "package a\n"})
	count := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	before := count()
	for range 20 {
		w, err := New(100)
		if err != nil {
			t.Fatal(err)
		}
		w.Add(root)
		disk.Write(t, filepath.Join(root, "a.go"), "package a\n")
		w.Drain()
		must(t, w.Close())
	}
	if after := count(); after > before {
		t.Fatalf("%d descriptors open after 20 watchers were closed, %d before", after, before)
	}
}
