package component

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestImpactReal: impact on a function called from four files (a method
// beside it, a method in another folder that a function there calls, main,
// a test) and on an interface, against gopls, pyright and
// typescript-language-server: a row per symbol holding references, named
// as the server outlines the file, callers beyond depth 1 at their call,
// implementations and subtypes where the server answers them (gopls both,
// typescript-language-server implementations, pyright neither), the test
// file's rows last under a "(test code)" heading, and the counts first,
// in the text and in structuredContent's "counts".
func TestImpactReal(t *testing.T) {
	type want struct {
		args map[string]any
		// head are the text's first lines: title and counts.
		head []string
		// rows are the rows' first lines, in order.
		rows   []string
		counts impactCounts
	}
	cases := map[string][]want{
		"gopls": {{
			args: map[string]any{"file": "calc/calc.go", "line": 3, "symbol": "Add"},
			head: []string{
				"impact of function Add at calc/calc.go:3:6: 5",
				"references: 5 in 4 files: held by 4 symbols; in test code: 1 in 1 file",
				"callers: 4 at depth 1, 1 at depth 2 (walked 2 levels up; depth up to 5 walks further)",
			},
			rows: []string{
				"app/app.go:8:14 in method (*Loader).Run: 1 reference",
				"app/app.go:13:11 in function Start: calls Run (depth 2)",
				"calc/calc.go:7:34 in method (Pair).Sum: 1 reference",
				"main.go:9:15 in function main: 2 references (9:15, 9:31)",
				"calc/calc_test.go:6:5 in function TestAdd: 1 reference",
			},
			counts: impactCounts{References: 5, Files: 4, Symbols: 4, TestReferences: 1, TestFiles: 1, Callers: []int{4, 1}, Depth: 2},
		}, {
			args: map[string]any{"file": "calc/calc.go", "line": 9, "symbol": "Summer"},
			head: []string{
				"impact of interface Summer at calc/calc.go:9:6: 2",
				"references: 1 in 1 file: 1 at top level",
			},
			rows: []string{
				"calc/calc.go:5:6 implementation, subtype of Summer",
				"calc/calc.go:11:7 1 reference",
			},
			counts: impactCounts{References: 1, Files: 1, TopLevel: 1, Callers: []int{0, 0}, Depth: 2, Implementations: 1, Subtypes: 1},
		}},
		"pyright-langserver": {{
			args: map[string]any{"file": "calc.py", "line": 1, "symbol": "add", "depth": 1},
			head: []string{
				"impact of function add at calc.py:1:5: 7",
				"references: 7 in 4 files: held by 4 symbols, 3 at top level; in test code: 2 in 1 file",
				"callers: 4 at depth 1 (walked 1 level up; depth up to 5 walks further)",
			},
			rows: []string{
				"app/loader.py:1:18 1 reference",
				"app/loader.py:6:16 in method Loader.run: 1 reference",
				"calc.py:11:16 in method Pair.total: 1 reference",
				"main.py:1:18 1 reference",
				"main.py:6:11 in function main: 1 reference",
				"tests/test_calc.py:1:18 1 reference",
				"tests/test_calc.py:5:12 in function test_add: 1 reference",
			},
			counts: impactCounts{References: 7, Files: 4, Symbols: 4, TopLevel: 3, TestReferences: 2, TestFiles: 1, Callers: []int{4}, Depth: 1},
		}, {
			args: map[string]any{"file": "calc.py", "line": 1, "symbol": "add"},
			head: []string{
				"impact of function add at calc.py:1:5: 8",
				"references: 7 in 4 files: held by 4 symbols, 3 at top level; in test code: 2 in 1 file",
				"callers: 4 at depth 1, 1 at depth 2 (walked 2 levels up; depth up to 5 walks further)",
			},
			rows: []string{
				"app/loader.py:1:18 1 reference",
				"app/loader.py:6:16 in method Loader.run: 1 reference",
				"app/loader.py:10:21 in function start: calls run (depth 2)",
				"calc.py:11:16 in method Pair.total: 1 reference",
				"main.py:1:18 1 reference",
				"main.py:6:11 in function main: 1 reference",
				"tests/test_calc.py:1:18 1 reference",
				"tests/test_calc.py:5:12 in function test_add: 1 reference",
			},
			counts: impactCounts{References: 7, Files: 4, Symbols: 4, TopLevel: 3, TestReferences: 2, TestFiles: 1, Callers: []int{4, 1}, Depth: 2},
		}},
		"typescript-language-server": {{
			args: map[string]any{"file": "calc.ts", "line": 1, "symbol": "add", "depth": 3},
			head: []string{
				"impact of function add at calc.ts:1:17: 9",
				"references: 7 in 4 files: held by 4 symbols, 3 at top level; in test code: 2 in 1 file",
				"callers: 4 at depth 1, 2 at depth 2",
				"implementations: 0; subtypes: no answer (",
			},
			rows: []string{
				"app/loader.ts:1:10 1 reference",
				"app/loader.ts:5:16 in method Loader.run: 1 reference",
				"app/loader.ts:10:25 in function start: calls run (depth 2)",
				"calc.ts:8:16 in method Pair.total: 1 reference",
				"main.ts:1:10 1 reference",
				"main.ts:5:17 in function main: 1 reference",
				"main.ts:8:1 calls main (depth 2)",
				"calc.test.ts:1:10 1 reference",
				"calc.test.ts:4:12 in function testAdd: 1 reference",
			},
			counts: impactCounts{References: 7, Files: 4, Symbols: 4, TopLevel: 3, TestReferences: 2, TestFiles: 1, Callers: []int{4, 2, 0}, Depth: 3},
		}, {
			args: map[string]any{"file": "calc.ts", "line": 12, "symbol": "Summer"},
			head: []string{
				"impact of Summer at calc.ts:12:18: 2",
				"references: 1 in 1 file: held by 1 symbol",
				"callers: none (not a function or method)",
				"implementations: 1; subtypes: no answer (",
			},
			rows: []string{
				"calc.ts:5:14 implementation",
				"calc.ts:5:30 in class Pair: 1 reference",
			},
			counts: impactCounts{References: 1, Files: 1, Symbols: 1, Callers: []int{0, 0}, Depth: 2, Implementations: 1},
		}},
	}
	for _, p := range callerProjects {
		t.Run(p.peer, func(t *testing.T) {
			_, cs := p.start(t)
			for _, w := range cases[p.peer] {
				args := map[string]any{"action": "impact"}
				for k, v := range w.args {
					args[k] = v
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp", Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("impact %v: %v %v", w.args, err, res)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				lines := strings.Split(text, "\n")
				for i, h := range w.head {
					if i >= len(lines) || !strings.HasPrefix(lines[i], h) {
						t.Errorf("%v: line %d: want %q in:\n%s", w.args, i+1, h, text)
					}
				}
				var rows, headings []string
				for _, l := range lines {
					switch {
					case strings.HasPrefix(l, "    "):
					case strings.HasPrefix(l, "  "):
						rows = append(rows, strings.TrimSpace(l))
					case strings.HasSuffix(l, testMark):
						headings = append(headings, l)
					}
				}
				if diff := cmp.Diff(w.rows, rows); diff != "" {
					t.Errorf("%v: rows (-want +got):\n%s\n%s", w.args, diff, text)
				}
				// The test file's rows come last, under its heading.
				for _, h := range headings {
					file := strings.TrimSuffix(h, testMark)
					at := slices.Index(lines, h)
					for _, l := range lines[at+1:] {
						if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "    ") && !strings.HasPrefix(strings.TrimSpace(l), file+":") {
							t.Errorf("%v: a row of another file after the test code's: %q:\n%s", w.args, l, text)
						}
					}
				}
				if w.counts.TestReferences > 0 && len(headings) != w.counts.TestFiles {
					t.Errorf("%v: %d files marked as test code, want %d:\n%s", w.args, len(headings), w.counts.TestFiles, text)
				}
				var data struct {
					Counts impactCounts `json:"counts"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(b, &data); err != nil {
					t.Fatal(err)
				}
				got := data.Counts
				got.Unanswered = nil // the servers' own words
				if diff := cmp.Diff(w.counts, got); diff != "" {
					t.Errorf("%v: counts (-want +got):\n%s", w.args, diff)
				}
			}
		})
	}
}
