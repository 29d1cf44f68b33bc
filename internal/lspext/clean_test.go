package lspext

import "testing"

// TestClean: files with no diagnostics are clean only when some server
// answered fresh and every verdict is fresh, but for acp-lsp's note on
// file watching.
func TestClean(t *testing.T) {
	fresh := ServerVerdict{Server: "gopls", Verdict: VerdictFresh}
	watch := ServerVerdict{Server: NoteServer, Verdict: VerdictUnsupported, Detail: "file watching does not cover …"}
	for _, tc := range []struct {
		name     string
		verdicts []ServerVerdict
		want     bool
	}{
		{"fresh", []ServerVerdict{fresh}, true},
		{"fresh with the watching note", []ServerVerdict{fresh, watch}, true},
		{"no verdict", nil, false},
		{"the watching note alone", []ServerVerdict{watch}, false},
		{"files left out", []ServerVerdict{fresh, {Server: NoteServer, Verdict: VerdictUnchecked, Unchecked: 31}}, false},
		{"a server's unsupported", []ServerVerdict{fresh, {Server: "local", Verdict: VerdictUnsupported}}, false},
		{"timeout", []ServerVerdict{fresh, {Server: "ts", Verdict: VerdictTimeout}}, false},
		{"stale", []ServerVerdict{{Server: "gopls", Verdict: VerdictStale}}, false},
		{"starting", []ServerVerdict{fresh, {Server: "ts", Verdict: VerdictStarting}}, false},
		{"indexing", []ServerVerdict{fresh, {Server: "ts", Verdict: VerdictIndexing}}, false},
		{"failed", []ServerVerdict{fresh, {Server: "pyright", Verdict: VerdictFailed, Unchecked: 4}}, false},
		{"a verdict not known", []ServerVerdict{fresh, {Server: "x", Verdict: "someday"}}, false},
	} {
		if got := Clean(tc.verdicts); got != tc.want {
			t.Errorf("%s: Clean = %v, want %v", tc.name, got, tc.want)
		}
	}
}
