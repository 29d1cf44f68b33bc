package component

import (
	"testing"
	"time"
)

// TestDiagnosticsWaitReachesBackend: the wait a diagnostics call passes to
// the backend, for the Tool's own settings and a session's: zero is
// the backend's default (sent as such), a negative wait (NoWait) stays "do not wait" rather than
// turning into the default.
func TestDiagnosticsWaitReachesBackend(t *testing.T) {
	session := func(wait time.Duration) func(string, Config) Config {
		return func(root string, base Config) Config {
			return base.WithSessionSettings(Config{DiagnosticsWait: wait})
		}
	}
	for _, tt := range []struct {
		name string
		cfg  Config
		want time.Duration
	}{
		{"zero is the backend's default", Config{}, 0},
		{"a wait of its own", Config{DiagnosticsWait: 2 * time.Second}, 2 * time.Second},
		{"no wait", Config{DiagnosticsWait: NoWait}, NoWait},
		{"any negative wait is no wait", Config{DiagnosticsWait: -time.Second}, NoWait},
		{"a session's zero is the backend's default", Config{DiagnosticsWait: time.Minute, ForSession: session(0)}, 0},
		{"a session's no wait", Config{ForSession: session(NoWait)}, NoWait},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, fb, cs := setup(t, tt.cfg)
			callTool(t, cs, map[string]any{"action": "diagnostics", "file": "main.go"})
			fb.mu.Lock()
			defer fb.mu.Unlock()
			if len(fb.waits) != 1 || fb.waits[0] != tt.want {
				t.Errorf("waits %v, want [%v]", fb.waits, tt.want)
			}
		})
	}
}
