package lsp

import (
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestQuirkPublishesInPasses: a server whose entry says
// Quirks.PublishesInPasses publishes each document version's diagnostics
// that many times, the last one complete (astro-ls: Volar's syntax pass,
// then the type check). Its diagnostics for a version are fresh only at
// the last pass, however long after the settle window it comes; a wait
// that ends before it is not fresh, never "no problems".
func TestQuirkPublishesInPasses(t *testing.T) {
	const errors2 = "package fake\nvar a = ERROR\nvar b = ERROR\n"
	for _, tc := range []struct {
		name      string
		passDelay time.Duration // between the (empty) first pass and the last
		text      string
		timeout   time.Duration
		verdict   Verdict
		n         int // diagnostics in the answer
	}{
		{"both passes at once", 0, errors2, time.Minute, Fresh, 2},
		{"last pass after the settle window", time.Hour, errors2, 2 * time.Hour, Fresh, 2},
		{"clean file, last pass after the settle window", time.Hour, "package fake\n", 2 * time.Hour, Fresh, 0},
		{"last pass after the wait", time.Hour, errors2, time.Minute, Stale, 0},
		{"clean file, last pass after the wait", time.Hour, "package fake\n", time.Minute, Stale, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, fakelsp.Script{DoublePublish: true, PassDelay: fakelsp.Duration(tc.passDelay)}, func(o *Options) {
					o.Servers[0].Quirks = Quirks{PublishesInPasses: 2}
				})
				if err := os.WriteFile(e.file, []byte(tc.text), 0o644); err != nil {
					t.Fatal(err)
				}
				rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: tc.timeout})
				if err != nil {
					t.Fatal(err)
				}
				fd := rep.Files[0]
				if fd.Verdict != tc.verdict || len(messages(t, fd.Diagnostics)) != tc.n {
					t.Fatalf("%s v%d %s (%s); want %s with %d diagnostics", fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail, tc.verdict, tc.n)
				}
				if fd.Verdict != Fresh && !strings.Contains(fd.Detail, "pass") {
					t.Errorf("detail %q does not say the last pass is missing", fd.Detail)
				}
				if fd.Verdict == Fresh {
					return
				}
				// A caller that does not wait is told the same.
				rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: -1})
				if err != nil {
					t.Fatal(err)
				}
				if fd := rep.Files[0]; fd.Verdict != tc.verdict {
					t.Errorf("without waiting: %s v%d %s (%s); want %s", fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail, tc.verdict)
				}
			})
		})
	}
}
