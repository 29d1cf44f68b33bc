package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestCheckLateReportElsewhere: a server reports on a file the edit does
// not touch from the checked content after the check has ended (later
// than the settle time): a file it reported on during the check too, and
// an open file it had said nothing of during the check. That late report
// reaches no subscriber (the tool's cache, the editor) and no cache: the
// next diagnostics of the file are the disk's.
func TestCheckLateReportElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name string
		open bool // u.fk is open before the check
		// during: the server reports on u.fk during the check too.
		during bool
	}{
		{name: "reported during the check", during: true},
		{name: "open, reported only late", open: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const late = time.Hour
				e := newMemEnv(t, fakelsp.Script{}, nil)
				other := filepath.Join(e.root, "u.fk")
				if err := os.WriteFile(other, []byte("package fake\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				uri := edit.URIFromPath(other)
				e.script.Elsewhere = []fakelsp.Elsewhere{{URI: uri, Delay: fakelsp.Duration(late)}}
				if tc.during {
					e.script.Elsewhere = append(e.script.Elsewhere, fakelsp.Elsewhere{URI: uri})
				}
				if tc.open {
					if _, err := e.m.Diagnostics(t.Context(), []string{other}, DiagnosticsOptions{Timeout: time.Minute}); err != nil {
						t.Fatal(err)
					}
					if st := e.m.Servers(); len(st) != 1 || st[0].OpenDocuments != 1 {
						t.Fatalf("servers before the check: %+v, want u.fk open", st)
					}
				}
				events, unsub := e.m.Subscribe(64)
				defer unsub()
				// Two errors in the checked content, one on disk: the fake
				// reports the changed text's errors on u.fk.
				const checked = "package fake\nvar x = ERROR\nvar y = ERROR\n"
				chk, err := e.m.CheckEdit(t.Context(), map[string]string{e.file: checked}, DiagnosticsOptions{Timeout: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				if tc.during && (len(chk.Files) != 2 || !chk.Files[1].Other || len(messages(t, chk.Files[1].Added)) != 2) {
					t.Fatalf("check: %+v, want the edited file and u.fk with 2 errors added", chk.Files)
				}
				time.Sleep(2 * late) // fake time: the late reports (the checked content's, the disk's) arrive
				synctest.Wait()
				for drained := false; !drained; {
					select {
					case ev := <-events:
						if ev.URI == uri && len(messages(t, ev.Diagnostics)) == 2 {
							t.Errorf("a subscriber was told the checked content's report on u.fk: %s", ev.Diagnostics)
						}
					default:
						drained = true
					}
				}
				rep, err := e.m.Diagnostics(t.Context(), []string{other}, DiagnosticsOptions{Timeout: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 0 {
					t.Errorf("diagnostics of u.fk after the check: %s %s (%s), want the disk's: fresh, none", fd.Verdict, fd.Diagnostics, fd.Detail)
				}
			})
		})
	}
}

// TestCheckAfterOtherReports (fake time): a server that reports on the
// other files of a package a little after the one opened (within the
// settle time) has those reports of the disk's content taken before the
// check begins, so an error a file had on disk is not said to be the
// edit's. TestRealCheckRenameGopls failed this way now and then: gopls's
// report on a.go, unopened, came during the check and its old error was
// "added".
func TestCheckAfterOtherReports(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{}, nil)
		const disk = "package fake\nvar x = ERROR\n"
		if err := os.WriteFile(e.file, []byte(disk), 0o644); err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(e.root, "u.fk")
		if err := os.WriteFile(other, []byte("package fake\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		uri := edit.URIFromPath(other)
		// u.fk is reported with the opened text's errors 20ms after the
		// open (the settle time is 50ms), and with the changed text's at
		// once during the check.
		e.script.Elsewhere = []fakelsp.Elsewhere{{URI: uri, Delay: fakelsp.Duration(20 * time.Millisecond), OnOpen: true}, {URI: uri}}
		chk, err := e.m.CheckEdit(t.Context(), map[string]string{e.file: disk + "var z = 1\n"}, DiagnosticsOptions{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(chk.Files) != 1 {
			t.Fatalf("check: %d files, want the edited one only (u.fk's error was there before); u.fk added %s", len(chk.Files), chk.Files[1].Added)
		}
		if r := chk.Files[0]; r.Before.Verdict != Fresh || r.After.Verdict != Fresh || len(messages(t, r.Added))+len(messages(t, r.Removed)) != 0 {
			t.Fatalf("the edited file: %+v", r)
		}
	})
}
