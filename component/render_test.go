package component

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestClipSmallBudget: fitText keeps within the budget and ends with its
// note for every budget, including ones smaller than the note (it
// panicked below 80).
func TestClipSmallBudget(t *testing.T) {
	text := strings.Repeat("é", 200) // two bytes each: cuts must not split one
	for _, budget := range []int{1, 50, 80, 81, 100, 399, 1000} {
		s := &Session{cfg: &Config{Budget: budget}}
		got, _ := s.fitText(text)
		if budget >= len(text) {
			if got != text {
				t.Errorf("budget %d: cut %q", budget, got)
			}
			continue
		}
		if !strings.Contains(got, "note: cut at") || !utf8.ValidString(got) {
			t.Errorf("budget %d: %q", budget, got)
		}
		if kept := strings.Index(got, "\nnote:"); kept > max(budget-80, 0) {
			t.Errorf("budget %d: kept %d bytes", budget, kept)
		}
	}
}

func TestBudget(t *testing.T) {
	_, s, fb, cs := setup(t, Config{Budget: 300})
	uri := edit.URIFromPath(filepath.Join(s.Root, "main.go"))
	var locs []string
	for i := 0; i < 40; i++ {
		locs = append(locs, fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":1}}}`, uri, i%9, i%9))
	}
	fb.set("textDocument/references", "["+strings.Join(locs, ",")+"]")
	text, _ := callTool(t, cs, map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add"})
	if len(text) > 400 || !strings.Contains(text, "note:") {
		t.Errorf("budget not kept or not noted (%d chars):\n%s", len(text), text)
	}
}

// TestRenderLevels: a listing shortens step by step as the budget
// shrinks (full, without source lines, per-file counts, the total alone),
// each cut saying what was left out, and paging notes survive every level.
func TestRenderLevels(t *testing.T) {
	var items []item
	for i := range 30 {
		items = append(items, item{File: fmt.Sprintf("pkg%d/file.go", i%3), Line: i + 1, Column: 2, Context: strings.Repeat("x", 40)})
	}
	l := &listing{Title: "references"}
	page(Input{Limit: 25}, items, l)
	full := renderLevel(l, 0)
	noCtx := renderLevel(l, 1)
	counts := renderLevel(l, 2)
	for _, tc := range []struct {
		budget int
		want   []string
		not    []string
	}{
		{len(full), []string{"references: 30 (showing 1-25)", "pkg0/file.go:1:2", strings.Repeat("x", 40), "offset=25"}, []string{"note: source lines"}},
		{len(full) - 1, []string{"pkg0/file.go:1:2", "note: source lines left out", "offset=25"}, []string{strings.Repeat("x", 40)}},
		{len(noCtx) - 1, []string{"pkg0/file.go: 9", "pkg2/file.go: 8", "note: only counts per file", "offset=25"}, []string{":1:2"}},
		{len(counts) - 1, []string{"note: 25 results in 3 files do not fit", "offset=25"}, []string{"pkg0/file.go"}},
	} {
		got, _ := render(l, tc.budget, 0)
		if len(got) > tc.budget && !strings.Contains(got, "do not fit") {
			t.Errorf("budget %d: %d chars", tc.budget, len(got))
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("budget %d: want %q in:\n%s", tc.budget, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("budget %d: %q should be cut:\n%s", tc.budget, n, got)
			}
		}
	}
}

// TestRendererWithin: the renderer's check of an answer's paths, which
// resolves links only where one is and keeps paths beside the workspace
// for the session, says what the session's check says, for every kind of
// path an answer can name.
func TestRendererWithin(t *testing.T) {
	_, s, _, _ := setup(t, Config{})
	root := s.Root
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(path string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) {
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(root, "sub", "deep", "b.go"))
	mk(filepath.Join(outside, "secret.go"))
	mk(filepath.Join(outside, "lib", "c.go"))
	link(filepath.Join(outside, "secret.go"), filepath.Join(root, "out.go"))
	link(outside, filepath.Join(root, "outdir"))
	link(filepath.Join(root, "main.go"), filepath.Join(root, "in.go"))
	link(filepath.Join(root, "sub"), filepath.Join(root, "insub"))
	link(root, filepath.Join(outside, "toroot"))
	link(filepath.Join(root, "main.go"), filepath.Join(outside, "tomain.go"))
	cases := []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "main.go"), true},
		{filepath.Join(root, "sub", "deep", "b.go"), true},
		{filepath.Join(root, "sub", "deep"), true},
		{root, true},
		{filepath.Join(root, "missing.go"), true},
		{filepath.Join(root, "sub", "missing", "x.go"), true},
		{filepath.Join(root, "in.go"), true},
		{filepath.Join(root, "insub", "deep", "b.go"), true},
		{filepath.Join(outside, "toroot", "main.go"), true},
		{filepath.Join(outside, "tomain.go"), true},
		{filepath.Join(root, "out.go"), false},
		{filepath.Join(root, "outdir", "lib", "c.go"), false},
		{filepath.Join(root, "outdir", "missing.go"), false},
		{filepath.Join(outside, "lib", "c.go"), false},
		{filepath.Join(outside, "missing.go"), false},
		{"/", false},
		{root + "/sub/../main.go", true},
		{root + "/../x.go", false},
	}
	// Twice: the second time with what the session kept of the first.
	for _, tc := range append(cases, cases...) {
		r := s.newRenderer()
		got := r.within(tc.path)
		if got != tc.want || got != (s.checkPath(tc.path) == nil) {
			t.Errorf("within(%s) = %v, want %v (the session's check: %v)", tc.path, got, tc.want, s.checkPath(tc.path))
		}
		// A second path in the same answer shares the directories seen.
		if again := r.within(filepath.Join(filepath.Dir(tc.path), "main.go")); again != (s.checkPath(filepath.Join(filepath.Dir(tc.path), "main.go")) == nil) {
			t.Errorf("within(%s) after %s = %v, the session's check disagrees", filepath.Join(filepath.Dir(tc.path), "main.go"), tc.path, again)
		}
	}
}

func TestHeadOf(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc…"},
		{"aéb", 2, "a…"}, // é is two bytes: not cut in half
		{"éé", 3, "é…"},
	} {
		if got := headOf(tc.s, tc.n); got != tc.want {
			t.Errorf("headOf(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
