// Package agentwrite pairs the agent's fs/write_text_file requests with
// the editor's answers, so that a file counts as written only once the
// editor wrote it: a refused write changed nothing.
package agentwrite

import (
	"encoding/json"
	"sync"

	"github.com/acp-lsp/acp-lsp/proxy"
)

// Method is ACP's request for the editor to write a file.
const Method = "fs/write_text_file"

// maxPending bounds the writes awaiting an answer: an editor that never
// answers writes must not grow a Tracker without bound (those files are
// resynced by content at their next request anyway).
const maxPending = 10000

// Tracker remembers write requests by raw id until their answers pass.
// Its methods are safe for concurrent use; a request must be recorded
// before its answer can be matched, as the chain delivers them in that
// order.
type Tracker struct {
	mu   sync.Mutex
	byID map[string]string
}

// Requested records the write request m, passing toward the editor, by
// its id with its path; a request without a string path is ignored.
func (t *Tracker) Requested(m *proxy.Message) {
	raw, ok := proxy.GetPath(m.Params(), "path")
	if !ok {
		return
	}
	var p string
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil || len(t.byID) >= maxPending {
		t.byID = map[string]string{}
	}
	t.byID[string(m.ID)] = p
}

// Answered takes the answer m to a recorded write request and returns the
// path written; ok is false when m answers no recorded request or the
// editor answered with an error.
func (t *Tracker) Answered(m *proxy.Message) (path string, ok bool) {
	t.mu.Lock()
	path, ok = t.byID[string(m.ID)]
	delete(t.byID, string(m.ID))
	t.mu.Unlock()
	return path, ok && m.Error() == nil
}
