package lsp

import (
	"strings"
	"sync"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestCheckWaitsForRequestInFlight: a request that synced the disk's
// content before a check began is answered on that content, not the
// check's: the check waits for it. The request is held between its sync
// and its send until the check either waits (right) or has the server's
// answer on its content (wrong: the request is then answered on the edit).
func TestCheckWaitsForRequestInFlight(t *testing.T) {
	e := newMemEnv(t, fakelsp.Script{}, nil)
	synced, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	SetRequestSynced(e.m, func(string) {
		once.Do(func() {
			close(synced)
			<-release
		})
	})
	waits, sent := make(chan struct{}, 1), make(chan struct{}, 1)
	SetCheckWaits(e.m, func() { waits <- struct{}{} })
	hoverDone := make(chan struct{})
	SetCheckSent(e.m, func() {
		// The server holds the edit until the request is answered.
		sent <- struct{}{}
		<-hoverDone
	})
	type hovered struct {
		raw string
		err error
	}
	hoverC := make(chan hovered, 1)
	go func() {
		defer close(hoverDone)
		raw, err := hover(t.Context(), e.m, e.file, Position{Line: 1, Character: 6})
		hoverC <- hovered{string(raw), err}
	}()
	<-synced
	checkC := make(chan CheckReport, 1)
	go func() {
		rep, err := e.m.Check(t.Context(), e.file, "package fake\nfunc Bar() {}\n", DiagnosticsOptions{})
		if err != nil {
			t.Error(err)
		}
		checkC <- rep
	}()
	select {
	case <-waits:
	case <-sent:
	}
	close(release)
	h := <-hoverC
	if h.err != nil || !strings.Contains(h.raw, fakelsp.HoverPrefix+"Foo") {
		t.Errorf("hover synced before the check: %s %v, want the disk's Foo", h.raw, h.err)
	}
	rep := <-checkC
	if rep.After.Verdict != Fresh || !strings.Contains(string(rep.Removed), fakelsp.DiagnosticMessage) {
		t.Errorf("check: %s %s, removed %s", rep.After.Verdict, rep.After.Detail, rep.Removed)
	}
}
