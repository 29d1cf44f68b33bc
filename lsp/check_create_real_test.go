package lsp

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealCheckCreateGopls: an edit that creates a file is checked with
// the new file's content as an unsaved document gopls has never seen on
// disk: a new file with a type error adds it, a declaration moved from an
// existing file into a new one adds and removes nothing. The new file is
// never written, no document is left open, no subscriber is told the
// checked content, and the diagnostics after are the disk's.
func TestRealCheckCreateGopls(t *testing.T) {
	peers.Require(t, "gopls")
	tree := map[string]string{
		"go.mod": "module example.com/cr\n\ngo 1.22\n",
		"a.go":   "package cr\n\nfunc F() int { return 1 }\n\nvar v = F()\n",
	}
	const typeErr = "cannot use F() (value of type int) as string value in variable declaration"
	for _, tc := range []struct {
		name  string
		edit  map[string]string
		added []string
	}{
		{name: "a new file with a type error", edit: map[string]string{"new.go": "package cr\n\nvar s string = F()\n"}, added: []string{typeErr}},
		{name: "a declaration moved to a new file", edit: map[string]string{
			"a.go": "package cr\n\nvar v = F()\n",
			"f.go": "package cr\n\nfunc F() int { return 1 }\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := disk.Tree(t, tree)
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			events, unsub := m.Subscribe(1024)
			defer unsub()
			rep := checkEditFresh(ctx, t, m, root, tc.edit)
			var added, removed []string
			for _, r := range rep.Files {
				added = append(added, messages(t, r.Added)...)
				removed = append(removed, messages(t, r.Removed)...)
			}
			if !slices.Equal(added, tc.added) || len(removed) != 0 {
				t.Errorf("added %q, removed %q; want added %q, removed none", added, removed, tc.added)
			}
			if st := m.Servers(); len(st) != 1 || st[0].OpenDocuments != 0 {
				t.Errorf("servers after the check: %+v, want gopls with no document left open", st)
			}
			for name, text := range tc.edit {
				b, err := os.ReadFile(filepath.Join(root, name))
				if content, ok := tree[name]; ok {
					if err != nil || string(b) != content {
						t.Errorf("disk after the check: %s is %q %v, want %q", name, b, err, content)
					}
				} else if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("disk after the check: %s is %q %v, want it absent (checked as %q)", name, b, err, text)
				}
			}
			noSubscriberTold(t, events, typeErr)
			after, err := m.Diagnostics(ctx, []string{filepath.Join(root, "a.go")}, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fd := after.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 0 {
				t.Errorf("diagnostics of a.go after the check: %s %s (%s), want the disk's: fresh, none", fd.Verdict, fd.Diagnostics, fd.Detail)
			}
		})
	}
}

// TestRealCheckCreatePyright: as TestRealCheckCreateGopls for a server
// that pulls diagnostics: the new file's error is added, and the file is
// never written.
func TestRealCheckCreatePyright(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	root := disk.Tree(t, map[string]string{"main.py": "n: int = 1\n"})
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	created := filepath.Join(root, "new.py")
	rep, err := m.CheckEdit(ctx, map[string]string{created: "s: int = \"one\"\n"}, DiagnosticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Files[0]
	if r.Before.Verdict != Fresh || r.After.Verdict != Fresh {
		t.Fatalf("verdicts: before %s (%s), after %s (%s)", r.Before.Verdict, r.Before.Detail, r.After.Verdict, r.After.Detail)
	}
	if a := messages(t, r.Added); len(a) != 1 || !strings.Contains(a[0], `"int"`) {
		t.Errorf("added %q, want the new file's error about int", a)
	}
	if _, err := os.Stat(created); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("new.py after the check: %v, want it absent", err)
	}
	if st := m.Servers(); len(st) != 1 || st[0].OpenDocuments != 0 {
		t.Errorf("servers after the check: %+v, want pyright with no document left open", st)
	}
}
