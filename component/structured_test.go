package component

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// structuredBudget is the output budget of the structuredContent tests:
// small enough that a default page of results with source lines is over
// it.
const structuredBudget = 4000

// structuredWorkspace fills root with files many results can point into
// (every line long enough for its source line to matter) and returns
// their paths, relative to root.
func structuredWorkspace(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for f := range 30 {
		rel := fmt.Sprintf("pkg/f%02d.go", f)
		var b strings.Builder
		for l := range 120 {
			fmt.Fprintf(&b, "\tvalue%d := compute(alpha, beta, gamma) // line %d of file %d, long enough\n", l, l+1, f)
		}
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, rel)
	}
	return files
}

// structuredResults sets the fake's answers for action to n results
// spread over the workspace's files.
func structuredResults(t *testing.T, fb *fakeBackend, root string, files []string, action string, n int) {
	t.Helper()
	uriOf := func(i int) string { return edit.URIFromPath(filepath.Join(root, files[i%len(files)])) }
	rng := func(i int) string {
		l := (i / len(files)) % 120
		return fmt.Sprintf(`{"start":{"line":%d,"character":1},"end":{"line":%d,"character":6}}`, l, l)
	}
	loc := func(i int) string { return fmt.Sprintf(`{"uri":%q,"range":%s}`, uriOf(i), rng(i)) }
	hier := func(i int) string {
		return fmt.Sprintf(`{"name":"Name%d","kind":12,"uri":%q,"range":%s,"selectionRange":%s}`, i, uriOf(i), rng(i), rng(i))
	}
	list := func(each func(int) string) string {
		parts := make([]string, n)
		for i := range n {
			parts[i] = each(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	switch action {
	case "references", "definition":
		fb.set("textDocument/"+action, list(loc))
	case "workspace symbols":
		fb.set("workspace/symbol", list(func(i int) string {
			return fmt.Sprintf(`{"name":"Symbol%d","kind":12,"containerName":"pkg","location":%s}`, i, loc(i))
		}))
	case "document symbols":
		fb.set("textDocument/documentSymbol", list(func(i int) string {
			r := rng(i * len(files)) // every symbol in the one file asked about
			return fmt.Sprintf(`{"name":"Symbol%d","kind":13,"detail":"int","range":%s,"selectionRange":%s}`, i, r, r)
		}))
	case "callers":
		fb.set("textDocument/prepareCallHierarchy", "["+hier(0)+"]")
		fb.set("callHierarchy/incomingCalls", list(func(i int) string { return `{"from":` + hier(i) + `,"fromRanges":[]}` }))
	case "subtypes":
		fb.set("textDocument/prepareTypeHierarchy", "["+hier(0)+"]")
		fb.set("typeHierarchy/subtypes", list(hier))
	case "code actions":
		fb.set("textDocument/codeAction", list(func(i int) string {
			return fmt.Sprintf(`{"title":"Fix problem number %d with a title of some length","kind":"quickfix"}`, i)
		}))
	case "diagnostics":
		byFile := map[string][]string{}
		for i := range n {
			byFile[uriOf(i)] = append(byFile[uriOf(i)], fmt.Sprintf(`{"range":%s,"severity":1,"source":"compiler","message":"undefined: name%d"}`, rng(i), i))
		}
		rep := &lspext.DiagnosticReportResult{Servers: []lspext.ServerVerdict{{Server: "gopls", Verdict: "fresh"}}}
		for _, f := range files {
			u := edit.URIFromPath(filepath.Join(root, f))
			if d := byFile[u]; d != nil {
				rep.Files = append(rep.Files, lspext.FileDiagnostics{URI: u, Server: "gopls", Diagnostics: json.RawMessage("[" + strings.Join(d, ",") + "]")})
			}
		}
		fb.mu.Lock()
		fb.report = rep
		fb.mu.Unlock()
	default:
		t.Fatalf("no results for %s", action)
	}
}

// shownListing is a listing's structuredContent as a client reads it.
type shownListing struct {
	Title  string `json:"title"`
	Total  int    `json:"total"`
	Offset int    `json:"offset"`
	Shown  *int   `json:"shown"`
	Form   string `json:"form"`
	Items  []item `json:"items"`
	Files  []struct {
		File  string `json:"file"`
		Count int    `json:"count"`
	} `json:"files"`
	FileCount  int   `json:"file_count"`
	NextOffset int   `json:"next_offset"`
	Truncated  *bool `json:"truncated"`
}

// shownActions is a code_actions list's structuredContent.
type shownActions struct {
	Actions []struct {
		Index int    `json:"index"`
		Title string `json:"title"`
		Kind  string `json:"kind"`
	} `json:"actions"`
	Total      int   `json:"total"`
	Offset     int   `json:"offset"`
	Shown      *int  `json:"shown"`
	NextOffset int   `json:"next_offset"`
	Truncated  *bool `json:"truncated"`
}

var (
	textItem   = regexp.MustCompile(`^  (\S+:\d+:\d+)(?: (.*))?$`)
	countLine  = regexp.MustCompile(`^(\S+): (\d+)$`)
	totalNote  = regexp.MustCompile(`note: (\d+) results in (\d+) files do not fit`)
	nextNote   = regexp.MustCompile(`call again with offset=(\d+)`)
	actionLine = regexp.MustCompile(`^(\d+)\. (.*)$`)
)

// TestStructuredContentMatchesText: for every action that answers a list,
// with a few results and with thousands (in a default page, in a page
// larger than the budget allows, in a later page), structuredContent
// holds exactly what the text shows (the same page, the same items, at
// the same shortening), says what was cut, and its JSON stays within
// twice the output budget. Before it was bounded, a call whose text had
// shrunk to a one-line total still carried every result of its page,
// source lines included, and code_actions every action.
func TestStructuredContentMatchesText(t *testing.T) {
	_, s, fb, _ := setup(t, Config{Budget: structuredBudget, StructuredContent: true})
	files := structuredWorkspace(t, s.Root)
	at := map[string]any{"file": files[0], "line": 1, "column": 2}
	with := func(args map[string]any, more map[string]any) map[string]any {
		out := map[string]any{}
		maps.Copy(out, args)
		maps.Copy(out, more)
		return out
	}
	actions := []struct {
		results string // what structuredResults sets up
		args    map[string]any
	}{
		{"diagnostics", map[string]any{"action": "diagnostics", "file": "*"}},
		{"references", with(at, map[string]any{"action": "references"})},
		{"definition", with(at, map[string]any{"action": "definition"})},
		{"document symbols", map[string]any{"action": "symbols", "file": files[0]}},
		{"workspace symbols", map[string]any{"action": "symbols", "query": "Symbol"}},
		{"callers", with(at, map[string]any{"action": "call_hierarchy"})},
		{"subtypes", with(at, map[string]any{"action": "type_hierarchy", "direction": "subtypes"})},
		{"code actions", with(at, map[string]any{"action": "code_actions"})},
	}
	sizes := []struct {
		name string
		n    int
		page map[string]any
		// over: the text must say the page was shortened for the
		// budget. A default page is for results with source lines and
		// fits for symbols, so it requires nothing.
		over bool
	}{
		{"few", 3, nil, false},
		{"later page", 3000, map[string]any{"offset": 40, "limit": 20}, false},
		{"default page", 3000, nil, false},
		{"page of all", 3000, map[string]any{"limit": 5000}, true},
	}
	for _, a := range actions {
		for _, size := range sizes {
			t.Run(a.results+"/"+size.name, func(t *testing.T) {
				structuredResults(t, fb, s.Root, files, a.results, size.n)
				text, sc := structuredCall(t, s, with(a.args, size.page))
				if len(text) > structuredBudget {
					t.Errorf("text of %d bytes", len(text))
				}
				if len(sc) > 2*structuredBudget {
					t.Errorf("structuredContent is %d bytes, over twice the budget (%d); the text is %d", len(sc), 2*structuredBudget, len(text))
				}
				cut := strings.Contains(text, "output budget") || nextNote.MatchString(text)
				if size.over && !strings.Contains(text, "output budget") {
					t.Errorf("the page was expected not to fit the budget:\n%s", text)
				}
				if a.results == "code actions" {
					checkActions(t, text, sc, size.n, cut)
				} else {
					checkListing(t, text, sc, size.n, cut)
				}
			})
		}
	}
}

// structuredCall calls the tool as its handler does and returns the text
// and the structuredContent's bytes as they go out.
func structuredCall(t *testing.T, s *Session, args map[string]any) (string, json.RawMessage) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res := s.toolResult(context.Background(), b)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: error: %s", b, text)
	}
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		t.Fatalf("%s: structuredContent %T", b, res.StructuredContent)
	}
	return text, sc
}

// checkListing compares a listing's text with its structuredContent.
func checkListing(t *testing.T, text string, sc json.RawMessage, total int, cut bool) {
	t.Helper()
	var l shownListing
	var wrapped struct {
		Listing *shownListing `json:"listing"`
	}
	if err := json.Unmarshal(sc, &wrapped); err == nil && wrapped.Listing != nil {
		l = *wrapped.Listing // diagnostics
	} else if err := json.Unmarshal(sc, &l); err != nil {
		t.Fatalf("structuredContent %.200s: %v", sc, err)
	}
	if l.Total != total {
		t.Errorf("total %d, want %d", l.Total, total)
	}
	form := "full"
	switch {
	case strings.Contains(text, "note: source lines left out"):
		form = "no_context"
	case strings.Contains(text, "note: only counts per file"):
		form = "counts"
	case strings.Contains(text, "do not fit the output budget"):
		form = "total"
	}
	if l.Form != form {
		t.Errorf("form %q, the text's is %q", l.Form, form)
	}
	checkCut(t, text, l.Truncated, cut, l.NextOffset)

	// The items the text lists, with their source lines, in order.
	var listed []item
	var counts []string
	shown := 0
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for _, line := range lines[1:] { // after the header
		if m := textItem.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "    ") {
			listed = append(listed, item{File: m[1], Label: m[2]})
			continue
		}
		if ctx, ok := strings.CutPrefix(line, "    "); ok && len(listed) > 0 {
			listed[len(listed)-1].Context = ctx
			continue
		}
		if m := countLine.FindStringSubmatch(line); m != nil && form == "counts" {
			counts = append(counts, m[1]+": "+m[2])
			n, _ := strconv.Atoi(m[2])
			shown += n
		}
	}
	if m := totalNote.FindStringSubmatch(text); m != nil {
		shown, _ = strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if l.FileCount != n {
			t.Errorf("file_count %d, the text's %d", l.FileCount, n)
		}
	}
	if form == "full" || form == "no_context" {
		shown = len(listed)
	}
	if l.Shown == nil || *l.Shown != shown {
		t.Errorf("shown %v, the text shows %d", l.Shown, shown)
	}
	if len(l.Items) != len(listed) {
		t.Fatalf("structuredContent has %d items, the text lists %d:\n%.600s", len(l.Items), len(listed), text)
	}
	for i, it := range l.Items {
		got := item{File: fmt.Sprintf("%s:%d:%d", it.File, it.Line, it.Column), Label: it.Label, Context: it.Context}
		if got != listed[i] {
			t.Errorf("item %d: structured %+v, text %+v", i, got, listed[i])
			break
		}
	}
	var gotCounts []string
	for _, f := range l.Files {
		gotCounts = append(gotCounts, fmt.Sprintf("%s: %d", f.File, f.Count))
	}
	if strings.Join(gotCounts, "\n") != strings.Join(counts, "\n") {
		t.Errorf("files %v, the text's %v", gotCounts, counts)
	}
}

// checkActions compares a code_actions list's text with its
// structuredContent.
func checkActions(t *testing.T, text string, sc json.RawMessage, total int, cut bool) {
	t.Helper()
	var a shownActions
	if err := json.Unmarshal(sc, &a); err != nil {
		t.Fatalf("structuredContent %.200s: %v", sc, err)
	}
	var listed []string
	for _, line := range strings.Split(text, "\n") {
		if actionLine.MatchString(line) {
			listed = append(listed, line)
		}
	}
	if a.Total != total {
		t.Errorf("total %d, want %d", a.Total, total)
	}
	if a.Shown == nil || *a.Shown != len(listed) {
		t.Errorf("shown %v, the text lists %d", a.Shown, len(listed))
	}
	checkCut(t, text, a.Truncated, cut, a.NextOffset)
	if len(a.Actions) != len(listed) {
		t.Fatalf("structuredContent has %d actions, the text lists %d:\n%.600s", len(a.Actions), len(listed), text)
	}
	for i, act := range a.Actions {
		want := fmt.Sprintf("%d. %s [%s]", a.Offset+i+1, act.Title, act.Kind)
		if act.Index != a.Offset+i+1 || listed[i] != want {
			t.Errorf("action %d: structured %+v, text %q", i, act, listed[i])
			break
		}
	}
}

// TestStructuredContentOfTextAnswers: an answer made of one text (hover,
// signature help, a raw request, a change's preview, the servers) keeps
// its usual structuredContent while the text is whole and that fits
// twice the budget; once the text is cut, structuredContent holds the
// same cut text, says so and gives the whole length, within twice the
// budget: before, it carried the whole hover, server answer or diff
// however far the text was cut, and a text within the budget made only
// of characters JSON escapes took six times its length.
func TestStructuredContentOfTextAnswers(t *testing.T) {
	_, s, fb, _ := setup(t, Config{Budget: structuredBudget, StructuredContent: true, AllowMutating: map[string]bool{"request": true}})
	files := structuredWorkspace(t, s.Root)
	long := strings.Repeat("func Map[T any](ch <-chan T, f func(*T) bool) && more of the doc\n", 500)
	renameEdits := func(nFiles, nLines int) string {
		var parts []string
		for _, f := range files[:nFiles] {
			var edits []string
			for l := range nLines {
				edits = append(edits, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":1},"end":{"line":%d,"character":6}},"newText":"renamed"}`, l, l))
			}
			parts = append(parts, fmt.Sprintf("%q:[%s]", edit.URIFromPath(filepath.Join(s.Root, f)), strings.Join(edits, ",")))
		}
		return `{"changes":{` + strings.Join(parts, ",") + `}}`
	}
	var ranges []string
	for i := range 3000 {
		ranges = append(ranges, fmt.Sprintf(`{"startLine":%d,"endLine":%d,"kind":"region"}`, i, i+1))
	}
	hover := map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "add"}
	rename := map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "renamed"}
	for _, tc := range []struct {
		name   string
		method string // the fake's answer to method is result
		result string
		args   map[string]any
		key    string // where the text is when it is cut
		usual  string // a field of the usual structuredContent
		cut    bool
	}{
		{"hover", "textDocument/hover", `{"contents":{"kind":"markdown","value":"func add(a, b int) int"}}`, hover, "hover", "hover", false},
		{"hover over budget", "textDocument/hover", fmt.Sprintf(`{"contents":{"kind":"markdown","value":%q}}`, long), hover, "hover", "", true},
		{"hover of escapes", "textDocument/hover", fmt.Sprintf(`{"contents":%q}`, strings.Repeat("<", structuredBudget-100)), hover, "hover", "", true},
		{"signature help", "textDocument/signatureHelp", `{"signatures":[{"label":"add(a, b int) int"}],"activeSignature":0,"activeParameter":1}`, map[string]any{"action": "signature_help", "file": "main.go", "line": 8, "column": 18}, "text", "signatures", false},
		{"signature help over budget", "textDocument/signatureHelp", fmt.Sprintf(`{"signatures":[{"label":"add(a, b int) int","documentation":%q}],"activeSignature":0,"activeParameter":1}`, long), map[string]any{"action": "signature_help", "file": "main.go", "line": 8, "column": 18}, "text", "", true},
		{"request", "textDocument/foldingRange", "[" + strings.Join(ranges[:3], ",") + "]", map[string]any{"action": "request", "method": "textDocument/foldingRange", "file": "main.go"}, "text", "result", false},
		{"request over budget", "textDocument/foldingRange", "[" + strings.Join(ranges, ",") + "]", map[string]any{"action": "request", "method": "textDocument/foldingRange", "file": "main.go"}, "text", "", true},
		{"rename preview", "textDocument/rename", renameEdits(1, 1), rename, "text", "files", false},
		{"rename preview over budget", "textDocument/rename", renameEdits(30, 120), rename, "text", "", true},
		{"capabilities", "", "", map[string]any{"action": "capabilities"}, "text", "servers", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.method != "" {
				fb.set(tc.method, tc.result)
			}
			text, sc := structuredCall(t, s, tc.args)
			if len(text) > structuredBudget {
				t.Errorf("text of %d bytes", len(text))
			}
			if len(sc) > 2*structuredBudget {
				t.Errorf("structuredContent is %d bytes, over twice the budget (%d); the text is %d", len(sc), 2*structuredBudget, len(text))
			}
			var data map[string]any
			if err := json.Unmarshal(sc, &data); err != nil {
				t.Fatalf("structuredContent %.200s: %v", sc, err)
			}
			shown, note, cut := strings.Cut(text, "\nnote: cut at ")
			if cut != tc.cut {
				t.Fatalf("cut %v, want %v:\n%.300s", cut, tc.cut, text)
			}
			if !cut {
				if _, ok := data[tc.usual]; !ok || data["truncated"] != nil {
					t.Errorf("not the usual structuredContent: %.300s", sc)
				}
				return
			}
			var at, of int
			if _, err := fmt.Sscanf(note, "%d of %d", &at, &of); err != nil {
				t.Fatalf("note %q: %v", note, err)
			}
			if data[tc.key] != shown || len(shown) != at || data["truncated"] != true || data["length"] != float64(of) {
				t.Errorf("structuredContent does not hold the text shown (%d of %d bytes): %.300s", at, of, sc)
			}
			if tc.key == "text" && tc.args["action"] == "rename" && data["applied"] != false {
				t.Errorf("a cut preview does not say applied=false: %.300s", sc)
			}
		})
	}
}

// TestRenderDataBudget: render takes a shorter form, for text and
// structuredContent alike, when the text would fit the budget but its
// JSON, with what the caller wraps around it, would not fit twice the
// budget: source lines JSON escapes at six bytes a character, or a
// caller's reserve.
func TestRenderDataBudget(t *testing.T) {
	listingOf := func(context string) *listing {
		var items []item
		for i := range 20 {
			items = append(items, item{File: fmt.Sprintf("pkg%d/file.go", i%2), Line: i + 1, Column: 2, Context: context})
		}
		l := &listing{Title: "references"}
		page(Input{Limit: 20}, items, l)
		return l
	}
	plain := strings.Repeat("x", 60)
	for _, tc := range []struct {
		name    string
		context string
		reserve int // -1: just what leaves the form without source lines room
		want    string
	}{
		{"plain source lines", plain, 0, "full"},
		{"source lines of escapes", strings.Repeat("<", 60), 0, "no_context"},
		{"reserve beside", plain, -1, "no_context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := listingOf(tc.context)
			budget := len(renderLevel(l, 0)) // the full text just fits
			if tc.reserve < 0 {
				// Just the room the form without source lines takes.
				b, err := json.Marshal(l.at(1))
				if err != nil {
					t.Fatal(err)
				}
				tc.reserve = dataBudget(budget) - len(b)
			}
			text, data := render(l, budget, tc.reserve)
			var got listing
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if got.Form != tc.want || text != renderLevel(l, slices.Index(forms[:], tc.want)) {
				t.Errorf("form %q, want %q; text:\n%s", got.Form, tc.want, text)
			}
			if len(data)+tc.reserve > dataBudget(budget) {
				t.Errorf("data %d bytes and %d beside, over %d", len(data), tc.reserve, dataBudget(budget))
			}
		})
	}
}

// checkCut checks a list's truncated flag against cut and its next_offset
// against the one the text's note gives (0 for none).
func checkCut(t *testing.T, text string, truncated *bool, cut bool, nextOffset int) {
	t.Helper()
	if truncated == nil || *truncated != cut {
		t.Errorf("truncated %v, want %v", truncated, cut)
	}
	next := 0
	if m := nextNote.FindStringSubmatch(text); m != nil {
		next, _ = strconv.Atoi(m[1])
	}
	if nextOffset != next {
		t.Errorf("next_offset %d, the text's %d", nextOffset, next)
	}
}
