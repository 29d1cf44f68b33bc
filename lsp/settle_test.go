package lsp

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestSettleWindow (fake time): an unversioned publish is fresh once the
// server has been quiet for the settle window: Options.DiagnosticsSettle,
// DefaultDiagnosticsSettle when zero, none when negative (the
// configuration's settle_window = "0s"); a call's own Settle overrides
// it the same way. Negative once fell back to the default.
func TestSettleWindow(t *testing.T) {
	for _, tt := range []struct {
		name         string
		option, call time.Duration
		want         time.Duration
	}{
		{"zero takes the default", 0, 0, DefaultDiagnosticsSettle},
		{"set", 2 * time.Second, 0, 2 * time.Second},
		{"negative: none", -1, 0, 0},
		{"the call's own", time.Hour, 3 * time.Second, 3 * time.Second},
		{"the call's own negative: none", time.Hour, -1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newMemEnv(t, fakelsp.Script{Publish: fakelsp.PublishUnversioned}, func(o *Options) { o.DiagnosticsSettle = tt.option })
				start := time.Now()
				rep, err := e.m.Diagnostics(t.Context(), []string{e.file}, DiagnosticsOptions{Timeout: time.Minute, Settle: tt.call})
				if err != nil {
					t.Fatal(err)
				}
				if fd, took := rep.Files[0], time.Since(start); fd.Verdict != Fresh || took != tt.want {
					t.Fatalf("%s after %v (%s); want fresh after %v", fd.Verdict, took, fd.Detail, tt.want)
				}
			})
		})
	}
}
