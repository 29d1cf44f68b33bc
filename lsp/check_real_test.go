package lsp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestRealCheckGopls: a check of an edit that introduces a type error
// lists it as added, one that fixes the file's error lists it as removed;
// the disk is byte-identical after, no subscriber (the tool's cache, the
// editor) is told anything about the checked content, and a regular
// diagnostics call and hover started while the check holds the edited
// content answer on the disk's content.
func TestRealCheckGopls(t *testing.T) {
	peers.Require(t, "gopls")
	const good = "package main\n\nfunc main() {\n\tvar n int = 1\n\tprintln(n)\n}\n"
	const bad = "package main\n\nfunc main() {\n\tvar n int = \"one\"\n\tprintln(n)\n}\n"
	const typeErr = `cannot use "one" (untyped string constant) as int value in variable declaration`
	for _, tc := range []struct {
		name, disk, edit    string
		added, removed, was []string
	}{
		{name: "introduces an error", disk: good, edit: bad, added: []string{typeErr}},
		{name: "fixes an error", disk: bad, edit: good, removed: []string{typeErr}, was: []string{typeErr}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := disk.Tree(t, map[string]string{
				"go.mod":  "module example.com/check\n\ngo 1.22\n",
				"main.go": tc.disk,
			})
			main := filepath.Join(root, "main.go")
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			events, unsub := m.Subscribe(1024)
			defer unsub()

			type seen struct {
				diags []string
				hover string
				err   error
			}
			var (
				wg     sync.WaitGroup
				during seen
			)
			SetCheckSent(m, func() {
				// The server holds the edit now: a regular call started
				// here must wait for the disk's content.
				wg.Add(1)
				go func() {
					defer wg.Done()
					rep, err := m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
					if err != nil {
						during.err = err
						return
					}
					during.diags = messages(t, rep.Files[0].Diagnostics)
					raw, err := hover(ctx, m, main, at(t, main, "var n int", "n", 1))
					during.hover, during.err = string(raw), err
				}()
			})
			rep, err := m.Check(ctx, main, tc.edit, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if rep.Before.Verdict != Fresh || rep.After.Verdict != Fresh {
				t.Fatalf("verdicts: before %s (%s), after %s (%s)", rep.Before.Verdict, rep.Before.Detail, rep.After.Verdict, rep.After.Detail)
			}
			if got := messages(t, rep.Added); !slices.Equal(got, tc.added) {
				t.Errorf("added: %q, want %q", got, tc.added)
			}
			if got := messages(t, rep.Removed); !slices.Equal(got, tc.removed) {
				t.Errorf("removed: %q, want %q", got, tc.removed)
			}
			if b, err := os.ReadFile(main); err != nil || !bytes.Equal(b, []byte(tc.disk)) {
				t.Errorf("disk after the check: %q %v, want %q", b, err, tc.disk)
			}
			if during.err != nil || !slices.Equal(during.diags, tc.was) {
				t.Errorf("diagnostics during the check: %q %v, want the disk's %q", during.diags, during.err, tc.was)
			}
			if !strings.Contains(during.hover, "var n int") {
				t.Errorf("hover during the check: %s", during.hover)
			}
			// Every publish is broadcast before it is stored, and the check
			// waited for the stored one: what a subscriber got is in the
			// channel now.
			for drained := false; !drained; {
				select {
				case ev := <-events:
					if ev.Path == main && ev.Version == rep.After.Version {
						t.Errorf("a subscriber was told the checked version %d: %s", ev.Version, ev.Diagnostics)
					}
					if len(tc.added) > 0 && slices.Contains(messages(t, ev.Diagnostics), tc.added[0]) {
						t.Errorf("a subscriber was told the checked content's error: %s", ev.Diagnostics)
					}
				default:
					drained = true
				}
			}
			after, _ := m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
			if fd := after.Files[0]; fd.Verdict != Fresh || !slices.Equal(messages(t, fd.Diagnostics), tc.was) || fd.Version <= rep.After.Version {
				t.Errorf("diagnostics after the check: %s v%d %s, want fresh %q after v%d", fd.Verdict, fd.Version, fd.Diagnostics, tc.was, rep.After.Version)
			}
		})
	}
}

// TestRealCheckPyright: as TestRealCheckGopls for a server that pulls
// diagnostics: the check's pull neither keeps its report nor leaves the
// edit behind, and the diagnostics after it are the disk's.
func TestRealCheckPyright(t *testing.T) {
	peers.Require(t, "pyright-langserver")
	const good = "n: int = 1\nprint(n)\n"
	const bad = "n: int = \"one\"\nprint(n)\n"
	for _, tc := range []struct {
		name, disk, edit string
		added, removed   int
	}{
		{name: "introduces an error", disk: good, edit: bad, added: 1},
		{name: "fixes an error", disk: bad, edit: good, removed: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := disk.Tree(t, map[string]string{"main.py": tc.disk})
			main := filepath.Join(root, "main.py")
			m := newRealManager(t, root)
			defer m.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := m.Check(ctx, main, tc.edit, DiagnosticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Before.Verdict != Fresh || rep.After.Verdict != Fresh {
				t.Fatalf("verdicts: before %s (%s), after %s (%s)", rep.Before.Verdict, rep.Before.Detail, rep.After.Verdict, rep.After.Detail)
			}
			added, removed := messages(t, rep.Added), messages(t, rep.Removed)
			if len(added) != tc.added || len(removed) != tc.removed || !strings.Contains(strings.Join(append(added, removed...), ""), `"int"`) {
				t.Errorf("added %q, removed %q; want %d and %d about int", added, removed, tc.added, tc.removed)
			}
			if b, err := os.ReadFile(main); err != nil || !bytes.Equal(b, []byte(tc.disk)) {
				t.Errorf("disk after the check: %q %v, want %q", b, err, tc.disk)
			}
			after, _ := m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
			fd := after.Files[0]
			if want := tc.removed; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != want {
				t.Errorf("diagnostics after the check: %s %s, want fresh with %d", fd.Verdict, fd.Diagnostics, want)
			}
		})
	}
}
