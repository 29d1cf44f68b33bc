package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDiagMatch specifies the rule that matches a file's diagnostics
// before an edit with those after it (diagMatch).
func TestDiagMatch(t *testing.T) {
	// d is a diagnostic at line:col-col (0-based) with message msg.
	d := func(line, c0, c1 int, msg string) string {
		return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"severity":1,"source":"compiler","message":%q}`, line, c0, line, c1, msg)
	}
	for _, tc := range []struct {
		name           string
		before, after  string   // contents; after "" with other: the file is not in the edit
		other          string   // for a file not in the edit: the edit's contents elsewhere
		was, is        []string // diagnostics before and after
		added, removed []string // messages
	}{
		{
			name:   "an error naming the renamed symbol, where it was",
			before: "var x int = Foo{}\n", after: "var x int = Bar{}\n",
			was: []string{d(0, 12, 17, "cannot use Foo{} (value of type Foo) as int")},
			is:  []string{d(0, 12, 17, "cannot use Bar{} (value of type Bar) as int")},
		},
		{
			name:   "an error moved down by an inserted line",
			before: "a\nvar x int = s\n", after: "a\n// note\nvar x int = s\n",
			was: []string{d(1, 12, 13, "cannot use s")},
			is:  []string{d(2, 12, 13, "cannot use s")},
		},
		{
			name:   "a new error at the place of an old one",
			before: "var x int = Foo{}\n", after: "var x int = Foo{}.z\n",
			was:     []string{d(0, 12, 17, "cannot use Foo{} (value of type Foo) as int")},
			is:      []string{d(0, 12, 17, "Foo{}.z undefined")},
			added:   []string{"Foo{}.z undefined"},
			removed: []string{"cannot use Foo{} (value of type Foo) as int"},
		},
		{
			name:   "the renamed symbol's name in a new error elsewhere",
			before: "f(Foo)\ng(1)\n", after: "f(Bar)\ng(Bar)\n",
			was:   []string{d(0, 2, 5, "undefined: Foo")},
			is:    []string{d(0, 2, 5, "undefined: Bar"), d(1, 2, 5, "undefined: Bar")},
			added: []string{"undefined: Bar"},
		},
		{
			name:   "a word the edit did not replace",
			before: "var x int = Foo{}\n", after: "var x int = Bar{}\n",
			was:     []string{d(0, 12, 17, "cannot use Foo{} as int")},
			is:      []string{d(0, 12, 17, "cannot use Bar{} as string")},
			added:   []string{"cannot use Bar{} as string"},
			removed: []string{"cannot use Foo{} as int"},
		},
		{
			name:   "one more of the same error",
			before: "use(a)\n", after: "use(a)\nuse(a)\n",
			was:   []string{d(0, 4, 5, "undefined: a")},
			is:    []string{d(0, 4, 5, "undefined: a"), d(1, 4, 5, "undefined: a")},
			added: []string{"undefined: a"},
		},
		{
			name:   "the same message where the diff cannot follow it",
			before: "x := 1\n", after: "package p\n\nfunc f() {\n\ty := 2\n}\n",
			was: []string{d(0, 0, 1, "missing package clause")},
			is:  []string{d(3, 1, 2, "missing package clause")},
		},
		{
			name:  "a file not in the edit: an error naming the renamed symbol",
			other: "Foo|Bar",
			was:   []string{d(3, 1, 4, "cannot use Foo as int")},
			is:    []string{d(3, 1, 4, "cannot use Bar as int")},
		},
		{
			name:    "a file not in the edit: the same message elsewhere is one moved",
			other:   "Foo|Bar",
			was:     []string{d(3, 1, 4, "undefined: Foo")},
			is:      []string{d(5, 1, 4, "undefined: Bar")},
			added:   []string{"undefined: Bar"},
			removed: []string{"undefined: Foo"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reps := replacements{}
			var m *editMap
			if tc.other != "" {
				o, n, _ := strings.Cut(tc.other, "|")
				newEditMap(o, n, reps)
			} else {
				m = newEditMap(tc.before, tc.after, reps)
			}
			added, removed := diagMatch(json.RawMessage("["+strings.Join(tc.was, ",")+"]"), json.RawMessage("["+strings.Join(tc.is, ",")+"]"), m, reps)
			if a, r := messages(t, added), messages(t, removed); !slices.Equal(a, tc.added) || !slices.Equal(r, tc.removed) {
				t.Errorf("added %q, removed %q; want added %q, removed %q", a, r, tc.added, tc.removed)
			}
		})
	}
}

// TestEditMapBack: offsets after an edit map back to the content before
// it: unchanged text to itself, a changed word's start and end to the old
// word's.
func TestEditMapBack(t *testing.T) {
	const before, after = "a Foo b\nc\n", "a Barbaz b\nnew\nc\n"
	m := newEditMap(before, after, replacements{})
	for _, tc := range []struct{ after, before int }{
		{0, 0},   // a
		{2, 2},   // start of Barbaz: start of Foo
		{8, 5},   // end of Barbaz: end of Foo
		{9, 6},   // b
		{15, 8},  // c, after the inserted line
		{17, 10}, // the end
	} {
		if got := m.back(tc.after); got != tc.before {
			t.Errorf("back(%d) = %d, want %d", tc.after, got, tc.before)
		}
	}
}

// TestDiagMatchLargeRename: a rename touching more lines than the line
// diff follows (past its bound) still matches the error naming the
// renamed symbol: the changed lines are compared one by one.
func TestDiagMatchLargeRename(t *testing.T) {
	before := strings.Repeat("use(Foo)\n", 3000)
	after := strings.ReplaceAll(before, "Foo", "Bar")
	reps := replacements{}
	m := newEditMap(before, after, reps)
	was := `[{"range":{"start":{"line":2999,"character":4},"end":{"line":2999,"character":7}},"severity":1,"message":"undefined: Foo"}]`
	is := `[{"range":{"start":{"line":2999,"character":4},"end":{"line":2999,"character":7}},"severity":1,"message":"undefined: Bar"}]`
	if added, removed := diagMatch(json.RawMessage(was), json.RawMessage(is), m, reps); string(added) != "[]" || string(removed) != "[]" {
		t.Errorf("added %s, removed %s; want none", added, removed)
	}
}
