package lsp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealCheckEditGopls: a check of an edit of several files at once (a
// rename of a method across its declaration and one caller) reports, per
// edited file, what the edit adds, and the error it makes in a file it
// does not touch (a caller left with the old name); the whole rename
// adds nothing. No file is left open, the disk is byte-identical after, no subscriber (the
// tool's cache, the editor) is told any checked content, and the
// diagnostics after it are the disk's.
func TestRealCheckEditGopls(t *testing.T) {
	peers.Require(t, "gopls")
	tree := map[string]string{
		"go.mod": "module example.com/multi\n\ngo 1.22\n",
		"a.go":   "package multi\n\ntype T struct{}\n\nfunc (T) Foo() int { return 1 }\n",
		"b.go":   "package multi\n\nfunc UseB(t T) int { return t.Foo() }\n",
		"c.go":   "package multi\n\nfunc UseC(t T) int { return t.Foo() }\n",
		"d.go":   "package multi\n\nfunc UseD(t T) T { return t }\n",
	}
	renamed := func(name string) string { return strings.ReplaceAll(tree[name], "Foo", "Bar") }
	const undefined = "t.Foo undefined (type T has no field or method Foo)"
	for _, tc := range []struct {
		name   string
		edited []string
		// added is the messages added per file, edited or not.
		added map[string][]string
	}{
		{name: "breaks a file it does not touch", edited: []string{"a.go", "b.go"}, added: map[string][]string{"c.go": {undefined}}},
		{name: "breaks nothing", edited: []string{"a.go", "b.go", "c.go"}, added: map[string][]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := disk.Tree(t, tree)
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			events, unsub := m.Subscribe(1024)
			defer unsub()
			edit := map[string]string{}
			for _, name := range tc.edited {
				edit[name] = renamed(name)
			}
			rep := checkEditFresh(ctx, t, m, root, edit)
			if st := m.Servers(); len(st) != 1 || st[0].OpenDocuments != 0 {
				t.Errorf("servers after the check: %+v, want gopls with no document left open", st)
			}
			got := map[string][]string{}
			edited := 0
			for _, r := range rep.Files {
				if !r.Other {
					edited++
				}
				if a := messages(t, r.Added); len(a) > 0 {
					got[filepath.Base(r.After.Path)] = a
				}
				if rm := messages(t, r.Removed); len(rm) > 0 {
					t.Errorf("%s: removed %q, want none", r.After.Path, rm)
				}
			}
			if edited != len(tc.edited) {
				t.Errorf("%d edited files reported, want %d", edited, len(tc.edited))
			}
			if len(got) != len(tc.added) {
				t.Errorf("added: %q, want %q", got, tc.added)
			}
			for name, want := range tc.added {
				if !slices.Equal(got[name], want) {
					t.Errorf("added in %s: %q, want %q", name, got[name], want)
				}
			}
			for name, content := range tree {
				if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || !bytes.Equal(b, []byte(content)) {
					t.Errorf("disk after the check: %s is %q %v, want %q", name, b, err, content)
				}
			}
			noSubscriberTold(t, events, undefined)
			var paths []string
			for name := range tree {
				if strings.HasSuffix(name, ".go") {
					paths = append(paths, filepath.Join(root, name))
				}
			}
			after, err := m.Diagnostics(ctx, paths, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, fd := range after.Files {
				if fd.Verdict != Fresh || slices.Contains(messages(t, fd.Diagnostics), undefined) {
					t.Errorf("diagnostics after the check of %s: %s %s, want the disk's: fresh, without %q", fd.Path, fd.Verdict, fd.Diagnostics, undefined)
				}
			}
		})
	}
}

// checkEditFresh checks edit (new contents by path relative to root) on m
// and fails the test unless every file's verdicts, before the edit and
// with it, are fresh.
func checkEditFresh(ctx context.Context, t *testing.T, m *Manager, root string, edit map[string]string) CheckEditReport {
	t.Helper()
	files := map[string]string{}
	for name, text := range edit {
		files[filepath.Join(root, name)] = text
	}
	rep, err := m.CheckEdit(ctx, files, DiagnosticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Files {
		if r.Before.Verdict != Fresh || r.After.Verdict != Fresh {
			t.Fatalf("%s: verdicts before %s (%s), after %s (%s)", r.Before.Path, r.Before.Verdict, r.Before.Detail, r.After.Verdict, r.After.Detail)
		}
	}
	return rep
}

// noSubscriberTold fails the test for every event in events holding the
// message checked: a check's content reaches no subscriber. Every publish
// is broadcast before it is stored, and the check waited for the stored
// ones, so what a subscriber got is in the channel now.
func noSubscriberTold(t *testing.T, events <-chan DiagnosticsEvent, checked string) {
	t.Helper()
	for {
		select {
		case ev := <-events:
			if slices.Contains(messages(t, ev.Diagnostics), checked) {
				t.Errorf("a subscriber was told the checked content's error in %s: %s", ev.Path, ev.Diagnostics)
			}
		default:
			return
		}
	}
}
