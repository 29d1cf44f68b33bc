package component

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// ctxBackend hands out the context of each hover and blocks it until that
// context ends.
type ctxBackend struct {
	*fakeBackend
	calls chan context.Context
}

func (b *ctxBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	if method != "textDocument/hover" {
		return b.fakeBackend.Request(ctx, uri, method, params)
	}
	b.calls <- ctx
	<-ctx.Done()
	return lspext.RequestResult{}, ctx.Err()
}

// TestFastPathCancelAsSDK: a call ends on notifications/cancelled exactly
// when the SDK would end its own call: whatever shape the notification
// comes in that the SDK reads as a cancellation (a batch, fields it
// ignores), and not for one it refuses to read. Each notification is
// tried on a call through the SDK (fast path off) and on the fast path.
func TestFastPathCancelAsSDK(t *testing.T) {
	cb := &ctxBackend{fakeBackend: newFake(), calls: make(chan context.Context, 1)}
	c, rc := startRaw(t, cb)
	cancelled := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"user"}}`
	}
	n := 0
	for _, tc := range []struct {
		name   string
		cancel func(id string) string
		edit   func(h http.Header)
		want   bool // the call is cancelled
	}{
		{"plain", cancelled, nil, true},
		{"batch (protocol 2025-03-26)", func(id string) string { return `[` + cancelled(id) + `]` },
			func(h http.Header) { h.Set("Mcp-Protocol-Version", "2025-03-26") }, true},
		{"field the SDK ignores in params", func(id string) string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"user","by":"me"}}`
		}, nil, true},
		{"field the SDK ignores at the top", func(id string) string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `},"x":1}`
		}, nil, true},
		{"reason not a string", func(id string) string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":5}}`
		}, nil, false},
		{"_meta not an object", func(id string) string {
			return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"_meta":1}}`
		}, nil, false},
	} {
		for _, noFast := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: "/sdk", false: "/fast"}[noFast], func(t *testing.T) {
				c.noFast.Store(noFast)
				defer c.noFast.Store(false)
				n++
				id := strconv.Itoa(100 + n)
				done := make(chan rawReply, 1)
				go func() {
					done <- rc.post(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`, nil)
				}()
				var ctx context.Context
				select {
				case ctx = <-cb.calls:
				case <-time.After(20 * time.Second):
					t.Fatal("the call never reached the backend")
				}
				rc.post(t, tc.cancel(id), tc.edit)
				if tc.want {
					select {
					case <-ctx.Done():
					case <-time.After(20 * time.Second):
						t.Fatal("the call was not cancelled")
					}
				} else {
					// The SDK handles a session's notifications in order,
					// before the calls that follow them.
					if r := rc.post(t, `{"jsonrpc":"2.0","id":"ping`+id+`","method":"ping"}`, nil); r.status != http.StatusOK {
						t.Fatalf("ping: %d %s", r.status, r.body)
					}
					if ctx.Err() != nil {
						t.Error("the call was cancelled")
					}
					rc.post(t, cancelled(id), nil)
				}
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("the call never answered")
				}
			})
		}
	}
}

// TestFastPathDuplicateID: a call whose id is in flight on the same MCP
// session is refused as the SDK refuses it (400, the same JSON-RPC error),
// whichever path (the SDK's or the fast one) answers the call in flight and
// whichever would take the second, and never reaches the backend. Neither
// path sees the other's calls by itself: a second call taken by the other
// path would run twice.
func TestFastPathDuplicateID(t *testing.T) {
	cb := &ctxBackend{fakeBackend: newFake(), calls: make(chan context.Context, 1)}
	c, rc := startRaw(t, cb)
	for _, id := range []string{`7`, `"seven"`, `"a<b> \u00e9"`, `-3.5`} {
		t.Run(id, func(t *testing.T) {
			call := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`
			// send makes the first call on one path (the SDK's when
			// firstSDK), and once it is in the backend, the second on the
			// other (the SDK's when secondSDK).
			send := func(firstSDK, secondSDK bool) rawReply {
				c.noFast.Store(firstSDK)
				defer c.noFast.Store(false)
				first := make(chan rawReply, 1)
				go func() { first <- rc.post(t, call, nil) }()
				select {
				case <-cb.calls:
				case <-time.After(20 * time.Second):
					t.Fatal("the call never reached the backend")
				}
				c.noFast.Store(secondSDK)
				second := make(chan rawReply, 1)
				go func() { second <- rc.post(t, call, nil) }()
				var r rawReply
				select {
				case r = <-second:
				case <-cb.calls:
					t.Error("the second call with the id reached the backend")
				case <-time.After(20 * time.Second):
					t.Fatal("the second call never answered")
				}
				rc.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, nil)
				for _, ch := range []chan rawReply{first, second} {
					if ch == second && r.status != 0 {
						continue
					}
					select {
					case <-ch:
					case <-cb.calls:
						// A second call in the backend: end it too.
						rc.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`, nil)
						<-ch
					case <-time.After(20 * time.Second):
						t.Fatal("a call never answered")
					}
				}
				// The next round reuses the id: this round's cancellation
				// must be over first. The SDK ends its own call as it reads
				// the notification; the fast path's cancelling (cancelFast)
				// runs later, among the session's handlers, which finish a
				// notification before starting the calls after it (the
				// ping). Still pending, it would cancel the next round's
				// first call and let its second one through.
				if r := rc.post(t, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`, nil); r.status != http.StatusOK {
					t.Fatalf("ping: %d %s", r.status, r.body)
				}
				return r
			}
			sdk := send(true, true)
			if sdk.status != http.StatusBadRequest || !strings.Contains(string(sdk.body), "duplicate in-flight request ID") {
				t.Fatalf("the SDK answers %d %s", sdk.status, sdk.body)
			}
			for _, p := range []struct {
				name             string
				firstSDK, sndSDK bool
			}{
				{"fast path after fast path", false, false},
				{"SDK after fast path", false, true},
				{"fast path after SDK", true, false},
			} {
				got := send(p.firstSDK, p.sndSDK)
				if sdk.status != got.status || string(sdk.body) != string(got.body) {
					t.Errorf("%s: SDK alone %d %s\ngot %d %s", p.name, sdk.status, sdk.body, got.status, got.body)
					continue
				}
				for _, h := range []string{"Content-Type", "Cache-Control"} {
					if sdk.header.Get(h) != got.header.Get(h) {
						t.Errorf("%s: %s: SDK alone %q, got %q", p.name, h, sdk.header.Get(h), got.header.Get(h))
					}
				}
			}
		})
	}
}
