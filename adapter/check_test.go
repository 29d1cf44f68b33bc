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
			got := checkResult([]string{"file:///w/a.go"}, true, lsp.CheckEditReport{Files: []lsp.CheckReport{{Before: c.before, After: c.after, Added: added, Removed: removed}}})
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

// TestCheckResultFiles: a check of several files has one verdict per
// server naming its edited files, and a list pair per file (a file the
// edit does not touch marked other); one file not answered fresh makes
// the whole check unknown, every list empty, the verdict naming it.
func TestCheckResultFiles(t *testing.T) {
	added := json.RawMessage(`[{"message":"new"}]`)
	none := json.RawMessage("[]")
	file := func(uri string, v lsp.Verdict, other bool, add json.RawMessage) lsp.CheckReport {
		fd := lsp.FileDiagnostics{Server: "gopls", URI: uri, Verdict: lsp.Fresh}
		after := fd
		after.Verdict, after.Detail = v, "no report"
		return lsp.CheckReport{Before: fd, After: after, Added: add, Removed: none, Other: other}
	}
	uris := []string{"file:///w/a.go", "file:///w/b.go"}
	for _, c := range []struct {
		name    string
		rep     lsp.CheckEditReport
		verdict string
		detail  string
		files   string
	}{
		{
			name:    "fresh, breaking a third file",
			rep:     lsp.CheckEditReport{Files: []lsp.CheckReport{file(uris[0], lsp.Fresh, false, none), file(uris[1], lsp.Fresh, false, none), file("file:///w/c.go", lsp.Fresh, true, added)}},
			verdict: lspext.VerdictFresh,
			files:   `[{"uri":"file:///w/a.go","added":[],"removed":[]},{"uri":"file:///w/b.go","added":[],"removed":[]},{"uri":"file:///w/c.go","added":[{"message":"new"}],"removed":[],"other":true}]`,
		},
		{
			name:    "one file timed out",
			rep:     lsp.CheckEditReport{Files: []lsp.CheckReport{file(uris[0], lsp.Fresh, false, added), file(uris[1], lsp.Timeout, false, none)}},
			verdict: string(lsp.Timeout),
			detail:  "the edited content of file:///w/b.go: no report",
			files:   `[{"uri":"file:///w/a.go","added":[],"removed":[]},{"uri":"file:///w/b.go","added":[],"removed":[]}]`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkResult(uris, false, c.rep)
			if len(got.Servers) != 1 || got.Servers[0].Verdict != c.verdict || got.Servers[0].Detail != c.detail || strings.Join(got.Servers[0].URIs, " ") != strings.Join(uris, " ") {
				t.Fatalf("servers %+v, want one %s %q over %q", got.Servers, c.verdict, c.detail, uris)
			}
			raw, _ := json.Marshal(got.Files)
			if string(raw) != c.files {
				t.Errorf("files %s, want %s", raw, c.files)
			}
			if string(got.Added) != "[]" || string(got.Removed) != "[]" {
				t.Errorf("added %s removed %s, want the one-file lists empty", got.Added, got.Removed)
			}
		})
	}
}
