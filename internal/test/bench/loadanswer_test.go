package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseBarePlaces(t *testing.T) {
	got := parseBarePlaces("go/analysis/analysis.go:17:6\n" +
		"go/analysis/analysis.go:17:30\n" + // two on one line: counted twice
		"a/b.go:3:1 Analyzer\n" + // a symbol's name after the place
		"/usr/lib/go/src/fmt/print.go:10:2 Println\n" + // outside: left out
		"../dep/x.go:1:1\n" +
		"not a place\n\n")
	want := placeSet{"go/analysis/analysis.go:17": 2, "a/b.go:3": 1}
	if d := got.diff(want); d != "" || got.size() != 3 {
		t.Errorf("parseBarePlaces = %v (%s), want %v", got, d, want)
	}
}

func TestPlaceSetDiff(t *testing.T) {
	want := placeSet{"a.go:1": 1, "a.go:2": 2, "b.go:9": 1}
	for _, c := range []struct {
		name string
		got  placeSet
		diff string
	}{
		{"same", placeSet{"a.go:1": 1, "a.go:2": 2, "b.go:9": 1}, ""},
		{"one of two on a line missing", placeSet{"a.go:1": 1, "a.go:2": 1, "b.go:9": 1}, "1 of 4 missing (a.go:2)"},
		{"partial list", placeSet{"a.go:1": 1}, "3 of 4 missing (a.go:2, b.go:9)"},
		{"extra", placeSet{"a.go:1": 1, "a.go:2": 2, "b.go:9": 1, "c.js:4": 1}, "1 extra (c.js:4)"},
		{"empty", placeSet{}, "4 of 4 missing (a.go:1, a.go:2, b.go:9)"},
	} {
		if d := c.got.diff(want); d != c.diff {
			t.Errorf("%s: diff = %q, want %q", c.name, d, c.diff)
		}
	}
}

func TestLoadingCaveat(t *testing.T) {
	listing := func(notes []string, detail string) toolListing { return toolListing{Notes: notes, Detail: detail} }
	data := map[string]any{"form": "full"}
	for _, c := range []struct {
		name   string
		page   toolPage
		l      toolListing
		caveat bool
	}{
		{"plain list", toolPage{Text: "references: 3", Structured: data}, listing(nil, ""), false},
		{"paging note", toolPage{Text: "x", Structured: data}, listing([]string{"2 more outside the workspace (dependencies) left out"}, ""), false},
		{"today's empty-answer note", toolPage{Text: "x", Structured: data},
			listing([]string{"gopls is indexing: this empty answer may only mean it is not ready yet; try again in a few seconds"}, ""), true},
		{"issue 20's wording", toolPage{Text: "x", Structured: data},
			listing([]string{"pyright is still analysing: this list may be incomplete; ask again"}, ""), true},
		{"in the detail", toolPage{Text: "x", Structured: data}, listing(nil, "typescript-language-server is still loading"), true},
		{"not_ready", toolPage{Text: "x", Structured: data}, toolListing{NotReady: []notReady{{"pyright", "loading"}}}, true},
		{"the indexing error", toolPage{IsError: true, Text: "indexing: language server gopls is still loading the project (Loading packages) and has no answer yet. This is NOT an empty result: try again in a few seconds"}, toolListing{}, true},
		{"another error", toolPage{IsError: true, Text: "references: no identifier on line 3"}, toolListing{}, false},
		// A source line under a hit is the code's, not the tool's: only
		// notes are read when there is structured content.
		{"a source line saying still", toolPage{Text: "a.go:3:1\n  // still loading the cache, may be incomplete\n", Structured: data}, listing(nil, ""), false},
	} {
		if _, got := loadingCaveat(c.page, c.l); got != c.caveat {
			t.Errorf("%s: caveat = %v, want %v", c.name, got, c.caveat)
		}
	}
}

// fakePages serves a list of n places a page of size at a time, as the
// tool does, with what a test wants on given offsets.
func fakePages(n, size int, at map[int]toolPage) (func(context.Context, int) (toolPage, error), *[]int) {
	var asked []int
	return func(_ context.Context, offset int) (toolPage, error) {
		asked = append(asked, offset)
		if p, ok := at[offset]; ok {
			return p, nil
		}
		var items []map[string]any
		for i := offset; i < min(offset+size, n); i++ {
			items = append(items, map[string]any{"file": "a.go", "line": i + 1, "column": 1})
		}
		data := map[string]any{"total": n, "offset": offset, "form": "full", "items": items}
		if offset+size < n {
			data["next_offset"] = offset + size
		}
		return toolPage{Text: "references", Structured: data}, nil
	}, &asked
}

func TestCollectPages(t *testing.T) {
	truth := placeSet{}
	for i := 1; i <= 120; i++ {
		truth.add("a.go", i)
	}
	caveat := toolPage{Text: "x", Structured: map[string]any{"form": "full", "notes": []string{"gopls is indexing: this empty answer may only mean it is not ready yet; try again in a few seconds"}}}
	for _, c := range []struct {
		name  string
		at    map[int]toolPage
		calls int
		right bool
		why   string
	}{
		{"three pages", nil, 3, true, ""},
		{"a caveat on page two ends it", map[int]toolPage{50: caveat}, 2, false, "caveat: gopls is indexing"},
		{"an error ends it", map[int]toolPage{0: {IsError: true, Text: "boom"}}, 1, false, "tool error: boom"},
		{"a page cut to counts", map[int]toolPage{100: {Structured: map[string]any{"form": "counts", "total": 120}}}, 3, false, `cut to form "counts"`},
		{"no structured content", map[int]toolPage{0: {Text: "references: 120"}}, 1, false, "no structuredContent"},
	} {
		call, asked := fakePages(120, 50, c.at)
		a, err := collectPages(context.Background(), call)
		ok, why := judgeLoad(a, err, truth)
		if a.Calls != c.calls || len(*asked) != c.calls || ok != c.right || !strings.Contains(why, c.why) {
			t.Errorf("%s: %d calls (offsets %v), right %v (%s); want %d calls, right %v, why containing %q", c.name, a.Calls, *asked, ok, why, c.calls, c.right, c.why)
		}
	}
}

func TestJudgeLoad(t *testing.T) {
	truth := placeSet{"a.go:1": 1, "a.go:2": 1}
	for _, c := range []struct {
		name string
		a    loadAnswer
		err  error
		ok   bool
	}{
		{"right", loadAnswer{Places: placeSet{"a.go:1": 1, "a.go:2": 1}}, nil, true},
		{"right places, with a caveat", loadAnswer{Places: placeSet{"a.go:1": 1, "a.go:2": 1}, Caveat: "gopls is indexing"}, nil, false},
		{"partial", loadAnswer{Places: placeSet{"a.go:1": 1}}, nil, false},
		{"error", loadAnswer{Places: placeSet{"a.go:1": 1, "a.go:2": 1}}, errors.New("timeout"), false},
	} {
		if ok, why := judgeLoad(c.a, c.err, truth); ok != c.ok || (ok == (why != "")) {
			t.Errorf("%s: judgeLoad = %v %q, want %v", c.name, ok, why, c.ok)
		}
	}
}
