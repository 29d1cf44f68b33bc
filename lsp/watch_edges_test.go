package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestWatcherCoalesceRecreated: a file new since the last drain, deleted
// and made again before the next, is still new to the server: Created, not
// Changed, so a watcher that asks for creations only (kind 1) hears of it.
// A file that existed, deleted and made again, is Changed.
func TestWatcherCoalesceRecreated(t *testing.T) {
	for _, c := range []struct {
		seq  []filewatch.Op
		want filewatch.Op
	}{
		{[]filewatch.Op{changeCreated, changeDeleted, changeCreated}, changeCreated},
		{[]filewatch.Op{changeCreated, changeDeleted, changeCreated, changeChanged}, changeCreated},
		{[]filewatch.Op{changeChanged, changeDeleted, changeCreated}, changeChanged},
		{[]filewatch.Op{changeDeleted, changeCreated, changeDeleted, changeCreated}, changeChanged},
		{[]filewatch.Op{changeCreated, changeDeleted}, changeDeleted},
	} {
		q := filewatch.Queue{Max: 10}
		for _, typ := range c.seq {
			q.Record("x", typ, false)
		}
		if evs, _ := q.Take(); len(evs) != 1 || evs[0].Op != c.want {
			t.Errorf("%v: %+v, want type %d", c.seq, evs, c.want)
		}
	}
	// The same through inotify: made, removed and made again between two
	// drains.
	root := disk.Tree(t, map[string]string{"a.go": "package a\n"})
	w, err := filewatch.New(100)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Add(root)
	p := filepath.Join(root, "b.go")
	disk.Write(t, p, "package a\n")
	must(t, os.Remove(p))
	disk.Write(t, p, "package a\n// again\n")
	evs, _ := w.Drain()
	if got := eventNames(root, evs, false); !slices.Equal(got, []string{"created b.go"}) {
		t.Fatalf("events %q, want [created b.go]", got)
	}
	ws, err := parseWatchers(json.RawMessage(`{"watchers":[{"globPattern":"**/*.go","kind":1}]}`))
	if err != nil || len(ws) != 1 || !ws[0].wants(evs[0].Path, root, evs[0].Op, evs[0].Dir) {
		t.Fatalf("a creations-only watcher (%v) does not want %+v", err, evs[0])
	}
}

// TestFolderMovedAwayResend: a folder of the server's files moved out of
// the workspace by the shell comes as one event for the folder, none for
// its files. A server that registered no watchers is not told, but the
// open documents that may use those files are sent again before their
// next request, as for a file of its languages deleted untold, so their
// diagnostics are recomputed rather than taken from before the move.
func TestFolderMovedAwayResend(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{}, nil)
	lib := filepath.Join(e.root, "lib")
	disk.Write(t, filepath.Join(lib, "b.fk"), "package fake\nfunc B() {}\n")
	e.wantHover() // started, a.fk open at version 1, lib watched
	must(t, os.Rename(lib, filepath.Join(t.TempDir(), "lib")))
	e.wantHover()
	e.close()
	got := didTraffic(t, e.messages())
	want := []string{"didOpen a.fk 1", "didChange a.fk 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("traffic %q, want %q", got, want)
	}
}

// TestWatcherFolderHoldingBase: a folder deleted or moved away that holds
// a relative pattern's base took every file the watcher watches with it,
// so the watcher hears of it; a folder beside the base does not concern
// it.
func TestWatcherFolderHoldingBase(t *testing.T) {
	ws, err := parseWatchers(json.RawMessage(`{"watchers":[{"globPattern":{"baseUri":"file:///ws/crates/foo","pattern":"**/*.rs"}}]}`))
	if err != nil || len(ws) != 1 {
		t.Fatalf("%d watchers, err %v", len(ws), err)
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/ws/crates", true},
		{"/ws/crates/foo", true},
		{"/ws/crates/foo/src", true},
		{"/ws/crates/bar", false},
		{"/ws/crate", false},
	} {
		if got := ws[0].wants(filepath.FromSlash(c.path), filepath.FromSlash("/ws"), changeDeleted, true); got != c.want {
			t.Errorf("folder %s deleted: wanted %v, want %v", c.path, got, c.want)
		}
	}
}

// eventNames renders events as "created sub/x.go" relative to root,
// sorted; folder events get a trailing slash. files drops folder events
// (the scan reports files only).
func eventNames(root string, evs []filewatch.Event, files bool) []string {
	names := map[filewatch.Op]string{changeCreated: "created", changeChanged: "changed", changeDeleted: "deleted"}
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
