package component

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestWireWait: the wait Wire sends with _lsp/diagnosticReport. Zero is
// left out (the answering side's default); no wait is -1, not 0, which
// would read as the default; a wait under a millisecond is rounded up for
// the same reason.
func TestWireWait(t *testing.T) {
	for _, tt := range []struct {
		name string
		wait time.Duration
		want string
	}{
		{"default", 0, `{"uris":["file:///a"]}`},
		{"seconds", 1500 * time.Millisecond, `{"uris":["file:///a"],"wait":1500}`},
		{"no wait", NoWait, `{"uris":["file:///a"],"wait":-1}`},
		{"any negative wait is no wait", -time.Minute, `{"uris":["file:///a"],"wait":-1}`},
		{"under a millisecond", 300 * time.Microsecond, `{"uris":["file:///a"],"wait":1}`},
		{"a part of a millisecond more", 2*time.Millisecond + 1, `{"uris":["file:///a"],"wait":3}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sent string
			w := &Wire{Call: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
				sent = string(params)
				return json.RawMessage(`{"files":[],"servers":[]}`), nil
			}}
			if _, err := w.DiagnosticReport(context.Background(), []string{"file:///a"}, tt.wait); err != nil {
				t.Fatal(err)
			}
			if sent != tt.want {
				t.Errorf("sent %s, want %s", sent, tt.want)
			}
		})
	}
}
