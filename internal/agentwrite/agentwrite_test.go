package agentwrite

import (
	"fmt"
	"testing"

	"github.com/acp-lsp/acp-lsp/proxy"
)

func msg(t *testing.T, s string) *proxy.Message {
	t.Helper()
	m, err := proxy.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTracker(t *testing.T) {
	for _, tc := range []struct {
		name, request, answer string
		path                  string
		ok                    bool
	}{
		{"written", `{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/w/a.go","content":"x"}}`, `{"jsonrpc":"2.0","id":3,"result":null}`, "/w/a.go", true},
		{"written, string id", `{"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"path":"/w/b.go"}}`, `{"jsonrpc":"2.0","id":"w","result":{}}`, "/w/b.go", true},
		{"refused", `{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{"path":"/w/a.go"}}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"read-only"}}`, "/w/a.go", false},
		{"another id", `{"jsonrpc":"2.0","id":5,"method":"fs/write_text_file","params":{"path":"/w/a.go"}}`, `{"jsonrpc":"2.0","id":6,"result":null}`, "", false},
		{"no path", `{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"content":"x"}}`, `{"jsonrpc":"2.0","id":7,"result":null}`, "", false},
		{"path not a string", `{"jsonrpc":"2.0","id":8,"method":"fs/write_text_file","params":{"path":3}}`, `{"jsonrpc":"2.0","id":8,"result":null}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr Tracker
			tr.Requested(msg(t, tc.request))
			path, ok := tr.Answered(msg(t, tc.answer))
			if path != tc.path || ok != tc.ok {
				t.Errorf("Answered = %q, %v; want %q, %v", path, ok, tc.path, tc.ok)
			}
			if _, again := tr.Answered(msg(t, tc.answer)); again {
				t.Error("an answer matched twice")
			}
		})
	}
}

// TestTrackerBounded: requests an editor never answers do not pile up.
func TestTrackerBounded(t *testing.T) {
	var tr Tracker
	for i := range maxPending * 3 {
		tr.Requested(msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fs/write_text_file","params":{"path":"/w/f%d"}}`, i, i)))
		if n := len(tr.byID); n > maxPending {
			t.Fatalf("%d pending after %d requests", n, i+1)
		}
	}
	last := maxPending*3 - 1
	if p, ok := tr.Answered(msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, last))); !ok || p != fmt.Sprintf("/w/f%d", last) {
		t.Errorf("the newest request was lost: %q %v", p, ok)
	}
}
