package lsp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/disk"
	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

// TestStartingVerdict (fake time): diagnostics asked with a short wait
// while the server is still initializing say "starting", with how long it
// has been starting, never "timeout" and never an empty "fresh"; a
// request gets a *StartingError; once the server is up the answer is
// fresh. After a crash, a wait that ends in the restart delay says the
// server is restarting.
func TestStartingVerdict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newMemEnv(t, fakelsp.Script{Methods: map[string]fakelsp.Behavior{
			"initialize": {Delay: fakelsp.Duration(10 * time.Second)},
		}}, func(o *Options) { o.RestartBackoff = 5 * time.Second })
		start := time.Now()
		rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		fd := rep.Files[0]
		if fd.Verdict != Starting || fd.Server != "fakelsp" || !strings.Contains(fd.Detail, "fakelsp is still starting (for 2s") ||
			!strings.Contains(fd.Detail, "unknown, not empty") || time.Since(start) != 2*time.Second {
			t.Fatalf("diagnostics during initialize: %s %q after %v", fd.Verdict, fd.Detail, time.Since(start))
		}
		if st := e.m.Servers(); len(st) != 1 || st[0].State != StateStarting {
			t.Fatalf("status during initialize: %+v", st)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		_, err = hover(ctx, e.m, e.file, Position{Line: 1, Character: 6})
		cancel()
		var se *StartingError
		if !errors.As(err, &se) || !errors.Is(err, ErrTimeout) || se.For != 3*time.Second || se.Restart {
			t.Fatalf("hover during initialize: %v", err)
		}
		rep, _ = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
		if fd := rep.Files[0]; fd.Verdict != Fresh || len(messages(t, fd.Diagnostics)) != 1 || time.Since(start) != 10*time.Second {
			t.Fatalf("diagnostics once started: %s %s after %v", fd.Verdict, fd.Diagnostics, time.Since(start))
		}

		e.crash()
		synctest.Wait() // the crash is recorded
		crashed := time.Now()
		rep, _ = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: time.Second})
		if fd := rep.Files[0]; fd.Verdict != Starting || !strings.Contains(fd.Detail, "fakelsp is still restarting after a crash (for 1s") {
			t.Fatalf("diagnostics in the restart delay: %s %q", fd.Verdict, fd.Detail)
		}
		rep, _ = e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{})
		// 5 s restart delay, then 10 s of initialize.
		if fd := rep.Files[0]; fd.Verdict != Fresh || time.Since(crashed) != 15*time.Second || e.started() != 2 {
			t.Fatalf("diagnostics after the restart: %s after %v, %d servers", fd.Verdict, time.Since(crashed), e.started())
		}
	})
}

// TestRealStarting: a diagnostics wait too short for gopls to start says
// "starting", not "timeout" and not "no diagnostics"; the next, patient
// one has gopls's exact error.
func TestRealStarting(t *testing.T) {
	peers.Require(t, "gopls")
	root := disk.Tree(t, map[string]string{
		"go.mod":  "module example.com/cold\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { undefinedThing() }\n",
	})
	m := newRealManager(t, root)
	defer m.Close(context.Background())
	main := root + "/main.go"
	rep, err := m.Diagnostics(t.Context(), []string{main}, DiagnosticsOptions{Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if fd := rep.Files[0]; fd.Verdict != Starting || fd.Server != "gopls" || !strings.Contains(fd.Detail, "gopls is still starting") {
		t.Fatalf("diagnostics asked 1ms into gopls's start: %s %q", fd.Verdict, fd.Detail)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	rep, _ = m.Diagnostics(ctx, []string{main}, DiagnosticsOptions{})
	if fd := rep.Files[0]; fd.Verdict != Fresh || !slices.Contains(messages(t, fd.Diagnostics), "undefined: undefinedThing") {
		t.Fatalf("diagnostics once started: %s %s %q", fd.Verdict, fd.Diagnostics, fd.Detail)
	}
}
