package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealCheckRenameGopls: a rename leaves an error that was there
// before and names the renamed symbol where it was, so the check matches
// it across the rename (0 added, 0 removed), while an error the edit
// really makes at the same place is still added.
func TestRealCheckRenameGopls(t *testing.T) {
	peers.Require(t, "gopls")
	tree := map[string]string{
		"go.mod": "module example.com/rn\n\ngo 1.22\n",
		"a.go":   "package rn\n\ntype Foo struct{}\n\nvar x int = Foo{}\n",
		"b.go":   "package rn\n\nvar y int = Foo{}\n",
	}
	renamed := func(name string) string { return strings.ReplaceAll(tree[name], "Foo", "Bar") }
	for _, tc := range []struct {
		name           string
		edit           map[string]string
		added, removed []string
	}{
		{name: "rename", edit: map[string]string{"a.go": renamed("a.go"), "b.go": renamed("b.go")}},
		{
			name:    "a new error at the same place",
			edit:    map[string]string{"b.go": "package rn\n\nvar y int = Foo{}.z\n"},
			added:   []string{"Foo{}.z undefined (type Foo has no field or method z)"},
			removed: []string{"cannot use Foo{} (value of struct type Foo) as int value in variable declaration"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := disk.Tree(t, tree)
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep := checkEditFresh(ctx, t, m, root, tc.edit)
			var added, removed []string
			for _, r := range rep.Files {
				if len(messages(t, r.Before.Diagnostics)) == 0 && !r.Other {
					t.Errorf("%s had no error before the edit: %s", r.Before.Path, r.Before.Diagnostics)
				}
				added = append(added, messages(t, r.Added)...)
				removed = append(removed, messages(t, r.Removed)...)
			}
			if !slices.Equal(added, tc.added) || !slices.Equal(removed, tc.removed) {
				t.Errorf("added %q, removed %q; want added %q, removed %q", added, removed, tc.added, tc.removed)
			}
		})
	}
}

// TestRealCheckRenamePyright: as TestRealCheckRenameGopls for a server
// that quotes the names in its messages and pulls diagnostics: the
// error naming the renamed class is the error it was.
func TestRealCheckRenamePyright(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	const disk0 = "class Foo:\n    pass\n\nx: int = Foo()\n"
	root := disk.Tree(t, map[string]string{"main.py": disk0})
	main := filepath.Join(root, "main.py")
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := m.Check(ctx, main, strings.ReplaceAll(disk0, "Foo", "Bar"), DiagnosticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before.Verdict != Fresh || rep.After.Verdict != Fresh {
		t.Fatalf("verdicts: before %s (%s), after %s (%s)", rep.Before.Verdict, rep.Before.Detail, rep.After.Verdict, rep.After.Detail)
	}
	if was := messages(t, rep.Before.Diagnostics); len(was) != 1 || !strings.Contains(was[0], `"Foo"`) {
		t.Fatalf("diagnostics before: %q, want one naming \"Foo\"", was)
	}
	if a, r := messages(t, rep.Added), messages(t, rep.Removed); len(a)+len(r) != 0 {
		t.Errorf("added %q, removed %q; want none", a, r)
	}
}
