package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestFaultSameSizeSameMtime: a file rewritten with text of the same size
// whose mtime did not move (two writes within the file system's timestamp
// granularity, or a copy that keeps the mtime: cp -p, rsync -a, tar) is
// still sent to the server. The stat alone cannot tell it apart from an
// unchanged file: the client must not report fresh diagnostics for text
// the server never saw.
func TestFaultSameSizeSameMtime(t *testing.T) {
	const changed = "package fake\nfunc Foo() {}\nvar x = FIXED\n" // as long as fakeText
	if len(changed) != len(fakeText) {
		t.Fatal("the texts must be as long")
	}
	for _, c := range []struct {
		name string
		// mtime is the file's mtime before the first sync and after the
		// rewrite (zero: as the first write left it).
		mtime time.Time
		// watch leaves file watching on (the rewrite is seen by it);
		// otherwise FileChanged names the file, when tell is set.
		watch, tell bool
	}{
		{name: "racy mtime, next request"},
		{name: "racy mtime, watched", watch: true},
		{name: "old mtime kept, FileChanged", mtime: time.Now().Add(-time.Hour), tell: true},
		{name: "old mtime kept, watched", mtime: time.Now().Add(-time.Hour), watch: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{}, func(o *Options) {
				if !c.watch {
					noWatch(o)
				}
			})
			if !c.mtime.IsZero() {
				if err := os.Chtimes(e.file, c.mtime, c.mtime); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil || rep.Files[0].Verdict != Fresh || !strings.Contains(string(rep.Files[0].Diagnostics), fakelsp.DiagnosticMessage) {
				t.Fatalf("diagnostics before: %+v %v", rep, err)
			}
			fi, err := os.Stat(e.file)
			if err != nil {
				t.Fatal(err)
			}
			e.write(changed)
			if err := os.Chtimes(e.file, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if c.tell {
				if err := e.m.FileChanged(t.Context(), e.file); err != nil {
					t.Fatal(err)
				}
			}
			rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Fresh || fd.Version != 2 || string(fd.Diagnostics) != "[]" {
				t.Fatalf("diagnostics after the rewrite: %s version %d %s, want fresh for version 2 with none", fd.Verdict, fd.Version, fd.Diagnostics)
			}
			e.close()
			if got, want := didTraffic(t, e.messages()), []string{"didOpen a.fk 1", "didChange a.fk 2"}; !slices.Equal(got, want) {
				t.Fatalf("document traffic %q, want %q", got, want)
			}
		})
	}
}

// TestFaultReplacedByDirectory: an open document whose path became a
// folder (or anything but a regular file) is gone as a document: it is
// closed on the server like a deleted one, with a Deleted event where the
// server watches files, and the other open documents are sent again
// before their next diagnostics; a request about it fails and names it.
func TestFaultReplacedByDirectory(t *testing.T) {
	for _, c := range []struct {
		name   string
		script fakelsp.Script
		watch  bool
		want   []string
	}{
		{"no watchers, watching off", fakelsp.Script{}, false,
			[]string{"didOpen a.fk 1", "didOpen b.fk 1", "didClose b.fk", "didChange a.fk 2"}},
		{"watchers registered, watching off", watcherScript, false,
			[]string{"didOpen a.fk 1", "didOpen b.fk 1", "didClose b.fk", "watched b.fk:3", "didChange a.fk 2"}},
		{"no watchers, watching on", fakelsp.Script{}, true,
			[]string{"didOpen a.fk 1", "didOpen b.fk 1", "didClose b.fk", "didChange a.fk 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, c.script, func(o *Options) {
				if !c.watch {
					noWatch(o)
				}
			})
			// Made before the server starts: no change to tell.
			b := filepath.Join(e.root, "b.fk")
			if err := os.WriteFile(b, []byte("package fake\nfunc B() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.wantHover() // registrations are in (see TestFaultVanishedDocument)
			for _, f := range []string{e.file, b} {
				if rep, err := e.m.Diagnostics(t.Context(), []string{f}, DiagnosticsOptions{}); err != nil || rep.Files[0].Version != 1 {
					t.Fatalf("diagnostics before: %+v %v", rep, err)
				}
			}
			if err := os.Remove(b); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(b, 0o755); err != nil {
				t.Fatal(err)
			}
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fd := rep.Files[0]; fd.Verdict != Fresh || fd.Version != 2 {
				t.Fatalf("diagnostics after the replacement: %s version %d, want fresh for version 2", fd.Verdict, fd.Version)
			}
			if n := e.status().OpenDocuments; n != 1 {
				t.Errorf("open documents %d, want 1", n)
			}
			_, err = documentSymbols(t.Context(), e.m, b)
			if err == nil || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "directory") {
				t.Fatalf("symbols of the folder: %v", err)
			}
			var fe *FileError
			if errors.As(err, &fe) {
				t.Fatalf("symbols of the folder: %v is a FileError", err)
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.want) {
				t.Fatalf("document traffic %q, want %q", got, c.want)
			}
		})
	}
}

// TestReopenLatePublish (fake time): a document closed and opened again in
// the same process (deleted and made anew, too large for a while, evicted
// by the open-document bound) does not start its versions over: a publish
// the server computed for the earlier copy and sent late, after the
// reopen, would carry a version as high as the new one's and pass for the
// server's word on the new text. Here the late publish is for version 2
// (no error) and the reopened text has an error.
func TestReopenLatePublish(t *testing.T) {
	for _, c := range []struct {
		name  string
		tweak func(*Options)
		// close makes the client close a.fk on the server.
		close func(t *testing.T, e *memEnv)
	}{
		{"deleted and made anew", nil, func(t *testing.T, e *memEnv) {
			if err := os.Remove(e.file); err != nil {
				t.Fatal(err)
			}
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("hover of the deleted file: %v", err)
			}
		}},
		{"too large for a while", func(o *Options) { o.MaxFileSize = 200 }, func(t *testing.T, e *memEnv) {
			if err := os.WriteFile(e.file, []byte(strings.Repeat("x", 300)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); !errors.Is(err, ErrFileTooLarge) {
				t.Fatalf("hover of the large file: %v", err)
			}
		}},
		{"evicted", func(o *Options) { o.MaxOpenDocuments = 1 }, func(t *testing.T, e *memEnv) {
			other := filepath.Join(e.root, "b.fk")
			if err := os.WriteFile(other, []byte("package fake\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := documentSymbols(t.Context(), e.m, other); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const delay = time.Second
				e := newMemEnv(t, fakelsp.Script{PublishDelay: fakelsp.Duration(delay)}, c.tweak)
				write := func(text string) {
					t.Helper()
					if err := os.WriteFile(e.file, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
				if err != nil || rep.Files[0].Verdict != Fresh || rep.Files[0].Version != 1 {
					t.Fatalf("diagnostics before: %+v %v", rep, err)
				}
				write("package fake\nfunc Foo() {}\n") // no error: version 2's publish is []
				if _, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(delay / 2) // version 2's publish is on its way
				c.close(t, e)
				write(fakeText) // back, with an error
				rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
				if err != nil {
					t.Fatal(err)
				}
				fd := rep.Files[0]
				if fd.Verdict != Fresh || !strings.Contains(string(fd.Diagnostics), fakelsp.DiagnosticMessage) {
					t.Fatalf("diagnostics after the reopen: %s version %d %s, want fresh with the error", fd.Verdict, fd.Version, fd.Diagnostics)
				}
			})
		})
	}
}

// TestClosedVersionsBounded: the versions kept for reopening stay bounded
// however many documents close, and a document reopened after its entry
// was folded away still starts past every version it had.
func TestClosedVersionsBounded(t *testing.T) {
	p := &proc{docs: map[string]*document{}}
	for i := range closedVersionsMax*2 + 10 {
		path := fmt.Sprintf("/w/f%d.go", i)
		d := &document{path: path, version: int32(i%7 + 1)}
		p.docs[path] = d
		p.dropDocLocked(d)
		if len(p.closedVersions) > closedVersionsMax {
			t.Fatalf("after %d closes the map holds %d paths", i+1, len(p.closedVersions))
		}
	}
	for i := range closedVersionsMax * 2 {
		path := fmt.Sprintf("/w/f%d.go", i)
		if next := max(p.closedVersions[path], p.closedFloor) + 1; next <= int32(i%7+1) {
			t.Fatalf("%s would reopen at version %d, not past its %d", path, next, i%7+1)
		}
	}
}

// TestUnversionedPublishOfAVersioningServer: a server that echoes versions
// also publishes an empty list without one when a document closes; that
// list, read after the document was opened again, is not the server's word
// on the new text. A server that never echoes versions is read as before.
func TestUnversionedPublishOfAVersioningServer(t *testing.T) {
	const uri = "file:///w/a.go"
	for _, tc := range []struct {
		name    string
		publish func(s *diagStore)
		wantOK  bool
	}{
		{"unversioned server", func(s *diagStore) { s.publish(uri, 0, false, json.RawMessage(`[]`), false) }, true},
		{"versioned publish", func(s *diagStore) { s.publish(uri, 3, true, json.RawMessage(`[]`), false) }, true},
		{"clear after versioned publishes", func(s *diagStore) {
			s.publish("file:///w/b.go", 1, true, json.RawMessage(`[]`), false)
			s.publish(uri, 0, false, json.RawMessage(`[]`), false)
		}, false},
		{"versioned after the clear", func(s *diagStore) {
			s.publish(uri, 2, true, json.RawMessage(`[{"message":"x"}]`), false)
			s.publish(uri, 0, false, json.RawMessage(`[]`), false)
			s.publish(uri, 3, true, json.RawMessage(`[{"message":"y"}]`), false)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s diagStore
			s.init()
			tc.publish(&s)
			if _, ok, _, _ := s.get(uri); ok != tc.wantOK {
				t.Errorf("get ok = %v, want %v", ok, tc.wantOK)
			}
		})
	}
}
