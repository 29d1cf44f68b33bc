package component

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestRawRequestPermission: with raw requests turned on, a request that may
// change files (a command, a server's own method) is sent only once the
// editor allows it; a known query is sent without asking.
func TestRawRequestPermission(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		allow        bool
		wantAsk      bool
		wantSent     bool
	}{
		{"query", "textDocument/foldingRange", false, false, true},
		{"command allowed", "workspace/executeCommand", true, true, true},
		{"command declined", "workspace/executeCommand", false, true, false},
		{"server method declined", "rust-analyzer/reloadWorkspace", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			_, _, fb, cs := setup(t, Config{AllowMutating: map[string]bool{"request": true}, AskPermission: func(ctx context.Context, sid, title, shown string) (bool, error) {
				asked = append(asked, title+"\n"+shown)
				return tc.allow, nil
			}})
			fb.set(tc.method, `{"ok":true}`)
			text, isErr := callTool(t, cs, map[string]any{"action": "request", "file": "main.go", "method": tc.method, "params": map[string]any{"command": "gopls.tidy", "arguments": []any{"é"}}})
			if (len(asked) > 0) != tc.wantAsk {
				t.Errorf("asked %q", asked)
			}
			if tc.wantAsk && len(asked) > 0 && (!strings.Contains(asked[0], tc.method) || !strings.Contains(asked[0], "main.go") || !strings.Contains(asked[0], `"gopls.tidy"`)) {
				t.Errorf("permission request does not show the request: %q", asked[0])
			}
			sent := slices.ContainsFunc(fb.requests, func(r string) bool { return strings.HasPrefix(r, tc.method+" ") })
			if sent != tc.wantSent {
				t.Errorf("sent %v, want %v: %q", sent, tc.wantSent, fb.requests)
			}
			if !tc.wantSent && (!isErr || !strings.Contains(text, "permission denied")) {
				t.Errorf("declined answer: %s", text)
			}
		})
	}
}
