package lsp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestDiagnosticsNoWait: a negative Timeout answers at once from what the
// server has already said, with the verdict that deserves: fresh only for
// a report on the current content, never an empty "fresh" for content not
// checked yet, and no request that could not be answered in time. The
// Manager's own wait is an hour and the call's context has a minute, so a
// call that waited would end on its context (which the test checks) or
// hang.
func TestDiagnosticsNoWait(t *testing.T) {
	edited := "package fake\nvar a = ERROR\nvar b = ERROR\n"
	// normal asks with a real wait and expects a fresh answer, so that
	// the server has said something before the call that does not wait.
	normal := func(e *faultEnv) {
		e.t.Helper()
		rep, err := e.m.Diagnostics(e.t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 30 * time.Second})
		if err != nil || rep.Files[0].Verdict != Fresh {
			e.t.Fatalf("diagnostics with a wait: %+v %v", rep, err)
		}
	}
	indexing := func(e *faultEnv) {
		e.t.Helper()
		e.prewarm()
		// An IndexingError shows the client has seen the work begin.
		if _, err := e.hover(); !errors.As(err, new(*IndexingError)) {
			e.t.Fatalf("hover while indexing: %v, want *IndexingError", err)
		}
	}
	for _, tc := range []struct {
		name    string
		script  fakelsp.Script
		before  func(e *faultEnv)
		verdict Verdict
		n       int   // diagnostics
		version int32 // reported version (the one asked about when none)
		pulls   int   // textDocument/diagnostic requests in all
	}{
		{"reported on the current version: fresh", fakelsp.Script{}, normal, Fresh, 1, 1, 0},
		{"unversioned and settled: fresh", fakelsp.Script{Publish: fakelsp.PublishUnversioned}, normal, Fresh, 1, 0, 0},
		{"edited, reported only on the old version: stale", fakelsp.Script{Publish: fakelsp.PublishStale},
			func(e *faultEnv) { normal(e); e.write(edited) }, Stale, 1, 1, 0},
		{"never reports: timeout", fakelsp.Script{Diagnostics: fakelsp.DiagNone}, (*faultEnv).prewarm, Timeout, 0, 1, 0},
		{"not running yet: starting", fakelsp.Script{}, func(*faultEnv) {}, Starting, 0, 0, 0},
		{"loading: indexing", fakelsp.Script{Indexing: &fakelsp.Indexing{Duration: fakelsp.Duration(time.Hour), Eager: true}}, indexing, Indexing, 0, 1, 0},
		{"pulled for the current version: fresh, not asked again", fakelsp.Script{Diagnostics: fakelsp.DiagPull}, normal, Fresh, 1, 1, 1},
		{"pulled, then edited: stale, not asked again", fakelsp.Script{Diagnostics: fakelsp.DiagPull},
			func(e *faultEnv) { normal(e); e.write(edited) }, Stale, 1, 1, 1},
		{"pull never asked: timeout, not asked", fakelsp.Script{Diagnostics: fakelsp.DiagPull}, (*faultEnv).prewarm, Timeout, 0, 1, 0},
		{"pull while loading: indexing, not asked", fakelsp.Script{Diagnostics: fakelsp.DiagPull,
			Indexing: &fakelsp.Indexing{Duration: fakelsp.Duration(time.Hour), Eager: true}}, indexing, Indexing, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, tc.script, func(o *Options) {
				o.Timeouts.Diagnostics = Duration(time.Hour)
				o.Timeouts.Request = Duration(500 * time.Millisecond) // the indexing hover
			})
			tc.before(e)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep, err := e.m.Diagnostics(ctx, []string{e.file}, DiagnosticsOptions{Timeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			fd := rep.Files[0]
			if ctx.Err() != nil {
				t.Fatalf("the call waited until its context ended: %s version %d %s (%s)", fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail)
			}
			if fd.Verdict != tc.verdict || len(messages(t, fd.Diagnostics)) != tc.n || fd.Version != tc.version {
				t.Fatalf("%s version %d %s (%s); want verdict %s, %d diagnostics, version %d",
					fd.Verdict, fd.Version, fd.Diagnostics, fd.Detail, tc.verdict, tc.n, tc.version)
			}
			if fd.Verdict != Fresh && !strings.Contains(fd.Detail, "without waiting") {
				t.Errorf("detail %q does not say the answer did not wait", fd.Detail)
			}
			if tc.verdict == Starting {
				// The server was started for the calls to come.
				normal(e)
			}
			e.close()
			if n := len(fakelsp.Requests(e.messages(), "textDocument/diagnostic")); n != tc.pulls {
				t.Errorf("%d pulls, want %d", n, tc.pulls)
			}
		})
	}
}

// TestEmptyFromLoadNotFresh: an empty list a server published while it
// was loading is not "no problems" when the load has ended but the settle
// window has not passed since (the server may not have got to the file
// yet; typescript-language-server publishes its real errors a moment
// later): a wait that ends there answers stale, as does a call that does
// not wait.
func TestEmptyFromLoadNotFresh(t *testing.T) {
	e := newFaultEnv(t, fakelsp.Script{
		Indexing:     &fakelsp.Indexing{Eager: true, EndAfter: "textDocument/hover", PublishEmpty: true},
		PublishDelay: fakelsp.Duration(time.Hour), // the real errors never come in this test
	}, func(o *Options) { o.DiagnosticsSettle = time.Hour })
	e.prewarm()
	// Opens the file: an empty list comes back, published while loading.
	rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	if v := rep.Files[0].Verdict; v == Fresh {
		t.Fatalf("while loading: %+v", rep.Files[0])
	}
	e.hover() // the fake ends the load after answering it
	// Waits for the load's end, then for the settle window, which the
	// deadline cuts short.
	rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if fd := rep.Files[0]; fd.Verdict != Stale || !strings.Contains(fd.Detail, "not known to be empty") {
		t.Fatalf("after the load, within the settle window: %s %s (%s)", fd.Verdict, fd.Diagnostics, fd.Detail)
	}
	rep, err = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	if fd := rep.Files[0]; fd.Verdict != Stale {
		t.Fatalf("no wait, after the load: %s %s (%s)", fd.Verdict, fd.Diagnostics, fd.Detail)
	}
}
