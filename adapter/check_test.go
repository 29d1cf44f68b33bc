package adapter

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestCheckResult: the delta goes out only when the verdict is clean; a
// check that timed out, or a disk report that was not fresh, is unknown
// with that verdict, never an empty "clean" delta.
func TestCheckResult(t *testing.T) {
	added := json.RawMessage(`[{"message":"new"}]`)
	removed := json.RawMessage(`[{"message":"old"}]`)
	fd := func(v lsp.Verdict, detail string) lsp.FileDiagnostics {
		return lsp.FileDiagnostics{Server: "gopls", URI: "file:///w/a.go", Verdict: v, Detail: detail}
	}
	for _, c := range []struct {
		name          string
		before, after lsp.FileDiagnostics
		verdict       string
		detail        string
		delta         bool
	}{
		{"fresh", fd(lsp.Fresh, ""), fd(lsp.Fresh, ""), lspext.VerdictFresh, "", true},
		{"check timed out", fd(lsp.Fresh, ""), fd(lsp.Timeout, "no report"), string(lsp.Timeout), "the edited content: no report", false},
		{"disk stale", fd(lsp.Stale, "older"), fd(lsp.Fresh, ""), string(lsp.Stale), "the file on disk: older", false},
		{"both out", fd(lsp.Indexing, "loading"), fd(lsp.Timeout, "late"), string(lsp.Timeout), "the edited content: late", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkResult("file:///w/a.go", lsp.CheckReport{Before: c.before, After: c.after, Added: added, Removed: removed})
			if len(got.Servers) != 1 || got.Servers[0].Verdict != c.verdict || got.Servers[0].Detail != c.detail || got.Servers[0].URIs[0] != "file:///w/a.go" {
				t.Fatalf("servers %+v, want %s %q", got.Servers, c.verdict, c.detail)
			}
			if lspext.Clean(got.Servers) != c.delta {
				t.Errorf("clean %v, want %v", !c.delta, c.delta)
			}
			wantA, wantR := "[]", "[]"
			if c.delta {
				wantA, wantR = string(added), string(removed)
			}
			if string(got.Added) != wantA || string(got.Removed) != wantR {
				t.Errorf("added %s removed %s, want %s %s", got.Added, got.Removed, wantA, wantR)
			}
		})
	}
}

// TestCheckNotSupported: without local servers (an editor's servers
// would show the edit in the editor) _lsp/check says not supported; a
// call without a uri is refused as bad params.
func TestCheckNotSupported(t *testing.T) {
	a, err := New(Config{NoLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, c := range []struct {
		name, params string
		code         int
		want         string
	}{
		{"no local servers", `{"uri":"file:///w/a.go","text":"x"}`, proxy.CodeMethodNotFound, "only acp-lsp's own language servers"},
		{"no uri", `{"text":"x"}`, proxy.CodeInvalidParams, "uri is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := a.check(t.Context(), nil, json.RawMessage(c.params))
			if err == nil {
				t.Fatal("no error")
			}
			pe := rpcError(t.Context(), lspext.Check, err)
			if pe.Code != c.code || !strings.Contains(pe.Message, c.want) {
				t.Fatalf("error %v, want code %d with %q", err, c.code, c.want)
			}
		})
	}
}
