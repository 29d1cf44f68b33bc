package lsp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestContentModifiedWhileLoading: a server that answers ContentModified
// (-32801) for as long as it loads its project, as rust-analyzer does
// while it indexes, is asked again until its load ends, however many
// answers that takes (more than the retries a ContentModified gets from a
// server that is not loading), and the answer then is the real one. A
// load that outlasts the loading wait ends in an *IndexingError, as any
// request to a loading server does, not in the server's ContentModified.
func TestContentModifiedWhileLoading(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endAfter int           // hovers answered before the load ends
		loading  time.Duration // Timeouts.Loading
		indexing bool          // want an *IndexingError
	}{
		{"the load ends after many answers", 9, time.Minute, false},
		{"the load outlasts the loading wait", 1 << 30, 200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newFaultEnv(t, fakelsp.Script{
				Indexing: &fakelsp.Indexing{Eager: true, EndAfter: "textDocument/hover", EndAfterCount: tc.endAfter},
				Methods:  map[string]fakelsp.Behavior{"textDocument/hover": {ContentModifiedWhileIndexing: true}},
			}, func(o *Options) { o.Timeouts.Loading = Duration(tc.loading) })
			raw, err := e.hover()
			var ie *IndexingError
			if tc.indexing {
				if !errors.As(err, &ie) {
					t.Fatalf("hover: %s, %v; want an IndexingError", raw, err)
				}
				return
			}
			if err != nil || !strings.Contains(string(raw), fakelsp.HoverPrefix+"Foo") {
				t.Fatalf("hover: %s, %v; want the answer after the load", raw, err)
			}
			e.close()
			if n := len(fakelsp.Requests(e.messages(), "textDocument/hover")); n <= tc.endAfter {
				t.Fatalf("%d hovers sent, want more than the %d answered while loading", n, tc.endAfter)
			}
		})
	}
}
