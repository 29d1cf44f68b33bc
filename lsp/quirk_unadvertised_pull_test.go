package lsp

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestQuirkUnadvertisedPull: a server with astro-ls's quirks, which
// answers textDocument/diagnostic without offering it and pushes each
// version in passes, is pulled: its answer is exact for the current
// version, also when an extra first pass (a Volar re-check starting over)
// shifts the pass count, for Diagnostics and for a check alike. A server
// that answers the pull with an error is read by its pushes, and asked
// once per process.
func TestQuirkUnadvertisedPull(t *testing.T) {
	i := slices.IndexFunc(DefaultServers(), func(s ServerConfig) bool { return s.Name == "astro-ls" })
	astro := DefaultServers()[i].Quirks
	const errors2 = "package fake\nvar a = ERROR\nvar b = ERROR\n"
	for _, tc := range []struct {
		name   string
		script fakelsp.Script
		// textDocument/diagnostic requests the server gets: one per
		// call, two for the check (before and after the edit), or the
		// one it refused.
		pulls int
	}{
		{"extra first pass, pull answered", fakelsp.Script{Diagnostics: fakelsp.DiagUnadvertised, DoublePublish: true, ExtraPass: true, PassDelay: fakelsp.Duration(time.Hour)}, 4},
		{"pull refused, passes counted", fakelsp.Script{DoublePublish: true, PassDelay: fakelsp.Duration(time.Hour)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, tc.script, func(o *Options) { o.Servers[0].Quirks = astro })
				if err := os.WriteFile(e.file, []byte(errors2), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, call := range []string{"first", "second"} {
					rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 2 * time.Hour})
					if err != nil {
						t.Fatal(err)
					}
					if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 2 {
						t.Fatalf("%s call: %s v%d %s (%s); want fresh with 2 diagnostics", call, fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail)
					}
				}
				cr, err := e.m.Check(t.Context(), e.file, errors2+"var c = ERROR\n", DiagnosticsOptions{Timeout: 2 * time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				if fd := cr.After; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 3 {
					t.Fatalf("check: %s v%d %s (%s); want fresh with 3 diagnostics", fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail)
				}
				synctest.Wait()
				pulls := 0
				for _, m := range e.servers[0].Received() {
					if m.Method == "textDocument/diagnostic" {
						pulls++
					}
				}
				if pulls != tc.pulls {
					t.Errorf("the server got %d textDocument/diagnostic requests; want %d", pulls, tc.pulls)
				}
			})
		})
	}
}

// TestQuirkUnadvertisedPullNoWait: a caller that does not wait cannot
// pull; from a server pulled without offering it, which pushes too, it
// gets what the server pushed for the version, never fresh (the passes
// may not be its last word), rather than nothing.
func TestQuirkUnadvertisedPullNoWait(t *testing.T) {
	i := slices.IndexFunc(DefaultServers(), func(s ServerConfig) bool { return s.Name == "astro-ls" })
	astro := DefaultServers()[i].Quirks
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{Diagnostics: fakelsp.DiagUnadvertised, DoublePublish: true}, func(o *Options) { o.Servers[0].Quirks = astro })
		if err := os.WriteFile(e.file, []byte("package fake\nvar a = ERROR\nvar b = ERROR\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := e.m.Prewarm(t.Context(), e.file); err != nil {
			t.Fatal(err)
		}
		var fd FileDiagnostics
		for range 2 { // the first opens the file, the second reads its passes
			rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			fd = rep.Files[0]
			synctest.Wait()
		}
		if fd.Verdict != Stale || len(messages(t, fd.Diagnostics)) != 2 || !strings.Contains(fd.Detail, "pushed") {
			t.Fatalf("%s v%d %s (%s); want stale with the 2 pushed diagnostics", fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail)
		}
		for _, m := range e.servers[0].Received() {
			if m.Method == "textDocument/diagnostic" {
				t.Errorf("pulled without time to: %s", m.Params)
			}
		}
	})
}
