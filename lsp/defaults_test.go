package lsp_test

import (
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestZeroConfigIsTheConfiguredDefault: a zero lsp.Options (tests, the
// benchmarks, `acp-lsp doctor`, embedders) behaves as acp-lsp does with no
// configuration at all. Each default the Manager fills in equals the
// configuration's default for the option the stack maps onto it; they
// once differed (restart backoff 100ms and 10s against 1s and 30s, settle
// window 300ms against 250ms, shutdown 3s against 5s).
func TestZeroConfigIsTheConfiguredDefault(t *testing.T) {
	got := lsp.Filled(lsp.Options{})
	def := config.Defaults()
	for _, tt := range []struct {
		key         string
		lsp, config any
	}{
		{"timeouts.initialize", time.Duration(got.Timeouts.Initialize), def.Timeouts.Initialize},
		{"timeouts.request", time.Duration(got.Timeouts.Request), def.Timeouts.Request},
		{"timeouts.shutdown", time.Duration(got.Timeouts.Shutdown), def.Timeouts.Shutdown},
		{"local.idle_after", time.Duration(got.Timeouts.Idle), def.Local.IdleAfter},
		{"local.max_restarts", got.MaxRestarts, def.Local.MaxRestarts},
		{"local.restart_backoff", got.RestartBackoff, def.Local.RestartBackoff},
		{"local.restart_backoff_max", got.RestartBackoffMax, def.Local.RestartBackoffMax},
		{"local.wedge_timeouts", got.WedgeAfter, def.Local.WedgeTimeouts},
		{"local.max_file_size", got.MaxFileSize, int64(def.Local.MaxFileSize)},
		{"local.watch_max_dirs", got.MaxWatchedDirs, def.Local.WatchMaxDirs},
		{"diagnostics.settle_window", got.DiagnosticsSettle, def.Diagnostics.SettleWindow},
		{"diagnostics.wait_budget", time.Duration(got.Timeouts.Diagnostics), def.Diagnostics.WaitBudget},
	} {
		t.Run(tt.key, func(t *testing.T) {
			if tt.lsp != tt.config {
				t.Errorf("zero lsp.Options gives %v, the configuration's default is %v", tt.lsp, tt.config)
			}
		})
	}
}
