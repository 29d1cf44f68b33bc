package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestPeekClosesWhatItOpened: a Peek at a file no request had open is
// asked without opening it when the server answers about it unopened (a
// scripted documentSymbol answer, as gopls reads the disk), so the server
// does not analyse it; on a server that answers only about open documents
// (fakelsp refuses the request unopened) it is opened for the request and
// closed right after; a file a request of the agent's (Ask, Diagnostics)
// opened stays open through a Peek and after.
func TestPeekClosesWhatItOpened(t *testing.T) {
	answersUnopened := fakelsp.Script{Methods: map[string]fakelsp.Behavior{"textDocument/documentSymbol": {
		Result: json.RawMessage(`[{"name":"F","kind":12,"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"selectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]`)}}}
	for _, c := range []struct {
		name   string
		script fakelsp.Script
		// ask: Ask about b.fk before peeking at it.
		ask      bool
		want     []string
		wantOpen int
	}{
		{"unopened file asked unopened", answersUnopened, false, nil, 0},
		{"unopened file opened and closed", fakelsp.Script{}, false, []string{"didOpen b.fk 1", "didClose b.fk"}, 0},
		{"open file stays open", fakelsp.Script{}, true, []string{"didOpen b.fk 1"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newFaultEnv(t, c.script, nil)
			b := filepath.Join(e.root, "b.fk")
			if err := os.WriteFile(b, []byte(fakeText), 0o644); err != nil {
				t.Fatal(err)
			}
			params := json.RawMessage(`{"textDocument":{"uri":` + mustString(edit.URIFromPath(b)) + `}}`)
			if c.ask {
				if _, err := e.m.Ask(t.Context(), b, "textDocument/documentSymbol", params); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.m.Peek(t.Context(), b, "textDocument/documentSymbol", params); err != nil {
				t.Fatal(err)
			}
			if n := e.status().OpenDocuments; n != c.wantOpen {
				t.Errorf("open documents %d, want %d", n, c.wantOpen)
			}
			e.close()
			if got := didTraffic(t, e.messages()); !slices.Equal(got, c.want) {
				t.Fatalf("document traffic %q, want %q", got, c.want)
			}
		})
	}
}
