package bench

import (
	"regexp"
	"strings"
	"testing"
)

// TestWindowBytes: the grep column's reads count each line within
// grepWindow of a hit once, overlapping windows merged, clipped at the
// file's ends.
func TestWindowBytes(t *testing.T) {
	lines := strings.SplitAfter(strings.Repeat("abc\n", 100), "\n")[:100] // 4 bytes a line
	for _, c := range []struct {
		name string
		hits []int
		want int
	}{
		{"one in the middle", []int{50}, 4 * (2*grepWindow + 1)},
		{"at the start", []int{1}, 4 * (grepWindow + 1)},
		{"at the end", []int{100}, 4 * (grepWindow + 1)},
		{"overlapping", []int{50, 52}, 4 * (2*grepWindow + 3)},
		{"same line twice", []int{50, 50}, 4 * (2*grepWindow + 1)},
		{"apart, unsorted", []int{90, 20}, 2 * 4 * (2*grepWindow + 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := windowBytes(lines, append([]int(nil), c.hits...)); got != c.want {
				t.Fatalf("windowBytes(%v) = %d, want %d", c.hits, got, c.want)
			}
		})
	}
}

// TestGrepDeclPatterns: column (d)'s declaration patterns match a
// declaration of the name in each language and not a use of it, nor a
// declaration of a longer name.
func TestGrepDeclPatterns(t *testing.T) {
	langs := map[string]grepLang{"go": goGrep}
	for _, p := range BytesProjects {
		langs[p.Ext] = p.Grep
	}
	for _, c := range []struct {
		lang, line string
		want       bool
	}{
		{"go", "func Compile(input string) error {", true},
		{"go", "func (p *Parser) Compile() {", true},
		{"go", "	x := Compile(input)", false},
		{"go", "func CompileAll() {", false},
		{"py", "def ParseQualifiedTarget(target):", true},
		{"py", "    def ParseQualifiedTarget(self):", true},
		{"py", "class ParseQualifiedTarget(object):", true},
		{"py", "    x = gyp.common.ParseQualifiedTarget(t)", false},
		{"py", "def ParseQualifiedTargetAll(t):", false},
		{"ts", "export function popScheduler(args: any[]) {", true},
		{"ts", "export declare function popScheduler(): void;", true},
		{"ts", "export const popScheduler = () => 1;", true},
		{"ts", "  const scheduler = popScheduler(args);", false},
		{"ts", "import { popScheduler } from '../util/args';", false},
	} {
		re := regexp.MustCompile(langs[c.lang].Decl(map[string]string{"go": "Compile", "py": "ParseQualifiedTarget", "ts": "popScheduler"}[c.lang]))
		if got := re.MatchString(c.line); got != c.want {
			t.Errorf("%s: %q matched %v, want %v", c.lang, c.line, got, c.want)
		}
	}
}
