package editorconfig

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob string
		yes  []string
		no   []string
	}{
		// * stops at slashes, matches nothing and dot files; a glob
		// without a slash matches at any depth.
		{"*", []string{"a.c", ".editorconfig", "x/y/a.c"}, nil},
		{"*.js", []string{"a.js", ".js", "x/y/a.js"}, []string{"a.jsx", "a.js/b", "a.JS"}},
		{"a*e.c", []string{"ae.c", "abcde.c", "x/ace.c"}, []string{"a/e.c"}},
		// ** crosses slashes.
		{"a**z.c", []string{"a/z.c", "amnz.c", "am/nz.c", "a/mn/z.c"}, []string{"b/z.c"}},
		{"**.js", []string{"a.js", "x/y/a.js"}, []string{"a.ts"}},
		// A slash anchors at the .editorconfig's folder.
		{"lib/*.js", []string{"lib/a.js"}, []string{"x/lib/a.js", "lib/x/a.js", "a.js"}},
		{"/a.js", []string{"a.js"}, []string{"x/a.js"}},
		{"/lib/*.js", []string{"lib/a.js"}, []string{"x/lib/a.js"}},
		{"b/**z.c", []string{"b/z.c", "b/mnz.c", "b/mn/z.c"}, []string{"bmnz.c", "x/b/z.c"}},
		{"c**/z.c", []string{"c/z.c", "cmn/z.c", "c/mn/z.c"}, []string{"cmnz.c", "cm/nz.c", "c/mnz.c"}},
		{"d/**/z.c", []string{"d/z.c", "d/mn/z.c"}, []string{"dmnz.c", "dm/nz.c", "d/mnz.c", "dmn/z.c"}},
		{"**/z.c", []string{"z.c", "a/z.c", "a/b/z.c"}, []string{"az.c"}},
		{"lib/", nil, []string{"lib", "lib/a"}}, // ends in a slash: no file
		// ? is one character, not a slash.
		{"som?.c", []string{"some.c", "somé.c"}, []string{"som.c", "somee.c", "som/.c"}},
		// Brackets.
		{"[ab].a", []string{"a.a", "b.a"}, []string{"c.a"}},
		{"[!ab].b", []string{"c.b"}, []string{"a.b", "/.b"}},
		{"[d-g].c", []string{"d.c", "f.c", "g.c"}, []string{"h.c"}},
		{"[!d-g].d", []string{"h.d"}, []string{"f.d"}},
		{"[abd-g].e", []string{"a.e", "e.e"}, []string{"c.e"}},
		{"[-ab].f", []string{"-.f", "a.f"}, []string{"c.f"}},
		{`[\]ab].g`, []string{"].g", "a.g"}, []string{"c.g"}},
		{"[]ab].g", []string{"].g"}, []string{"c.g"}},
		{"[ab]].g", []string{"a].g"}, []string{"].g"}},
		{`[!\]ab].g`, []string{"c.g"}, []string{"].g"}},
		{"[z-a]x", nil, []string{"ax", "zx", "mx"}}, // an empty range
		{"[*?{]", []string{"*", "?", "{"}, []string{"a"}},
		{"[é]", []string{"é"}, []string{"e"}},
		{"ab[e/]cd.i", []string{"ab[e/]cd.i"}, []string{"ab/cd.i", "abecd.i"}},
		{"ab[/c", []string{"ab[/c"}, nil},
		{"[abc", []string{"[abc"}, []string{"a"}},
		// Braces.
		{"*.{py,js,html}", []string{"t.py", "t.js", "t.html"}, []string{"t.pyc"}},
		{"{single}.b", []string{"{single}.b"}, []string{"single.b", ".b"}},
		{"{}.c", []string{"{}.c"}, []string{".c"}},
		{"a{b,c,}.d", []string{"a.d", "ab.d", "ac.d"}, []string{"a,.d"}},
		{"{.f", []string{"{.f"}, []string{".f"}},
		{"{word,{also},this}.g", []string{"word.g", "{also}.g", "this.g"}, []string{"word,this}.g", "{also,this}.g"}},
		{"{{a,b},c}.k", []string{"a.k", "b.k", "c.k"}, []string{"{a,b}.k"}},
		{"{},b}.h", []string{"{},b}.h"}, nil},
		{"{{,b,c{d}.i", []string{"{{,b,c{d}.i"}, []string{"{.i", "b.i", "c{d.i"}},
		{`{a\,b,cd}.txt`, []string{"a,b.txt", "cd.txt"}, []string{"a.txt"}},
		{`{e,\},f}.txt`, []string{"e.txt", "}.txt", "f.txt"}, nil},
		{`{g,\\,i}.txt`, []string{"g.txt", `\.txt`, "i.txt"}, nil},
		{"{some,a{*c,b}[ef]}.j", []string{"some.j", "abe.j", "ace.j", "abce.j"}, []string{"abg.j", "ae.j", ".j"}},
		{"{a/b,c}.x", []string{"a/b.x", "c.x"}, []string{"z/a/b.x", "z/c.x"}}, // anchored by its slash
		// Numeric ranges: plain integers only.
		{"{3..120}", []string{"3", "15", "60", "120", "x/99"}, []string{"1", "2", "121", "060", "+5", "5a"}},
		{"file{-3..3}.txt", []string{"file-3.txt", "file0.txt", "file3.txt"}, []string{"file-4.txt", "file4.txt", "file-0.txt"}},
		{"{-10..-5}", []string{"-10", "-5", "-7"}, []string{"-4", "-11", "7"}},
		{"{3..1}", []string{"{3..1}"}, []string{"2"}}, // n1 > n2: invalid, read as written
		{"{aardvark..antelope}", []string{"{aardvark..antelope}"}, []string{"a", "agreement"}},
		{"{0..9223372036854775807}", []string{"0", "9223372036854775807"}, []string{"9223372036854775808", "01"}},
		{"{-9223372036854775808..-9223372036854775807}", []string{"-9223372036854775808", "-9223372036854775807"}, []string{"-9223372036854775806", "9223372036854775807"}},
		// Backslash escapes.
		{`\*.js`, []string{"*.js"}, []string{"a.js"}},
		{`\{a,b\}`, []string{"{a,b}"}, []string{"a"}},
		{`a\`, []string{`a\`}, []string{"a"}},
		{`a\?`, []string{"a?"}, []string{"ab"}},
		// Regular-expression characters are plain.
		{"a.(b)+$^|", []string{"a.(b)+$^|"}, []string{"aX(b)+$^|"}},
		{"中文.txt", []string{"中文.txt"}, nil},
		// Matches nothing rather than failing.
		{"", nil, []string{"", "a"}},
		{"\xff", nil, []string{"\xff"}},
	} {
		re := compileGlob(tc.glob)
		for _, p := range tc.yes {
			if re == nil || !re.MatchString(p) {
				t.Errorf("[%s] does not match %q (regexp %v)", tc.glob, p, re)
			}
		}
		for _, p := range tc.no {
			if re != nil && re.MatchString(p) {
				t.Errorf("[%s] matches %q (regexp %v)", tc.glob, p, re)
			}
		}
	}
}

// TestNumericRange checks every integer around each range against its
// bounds, and the forms that are not plain integers.
func TestNumericRange(t *testing.T) {
	for _, r := range [][2]int64{
		{0, 0}, {0, 9}, {1, 10}, {3, 120}, {7, 7}, {9, 11}, {10, 99}, {19, 1000}, {99, 101},
		{-5, 5}, {-120, -3}, {-1, 0}, {-10, 200}, {123, 4567},
	} {
		re := regexp.MustCompile("^" + rangeRegexp(r[0], r[1]) + "$")
		for n := int64(-1200); n <= 5000; n++ {
			want := r[0] <= n && n <= r[1]
			if got := re.MatchString(strconv.FormatInt(n, 10)); got != want {
				t.Errorf("{%d..%d} on %d: %v", r[0], r[1], n, got)
			}
		}
		for _, s := range []string{"", "-", "00", "01", "+1", "-0", "1a", " 1"} {
			if re.MatchString(s) {
				t.Errorf("{%d..%d} matches %q", r[0], r[1], s)
			}
		}
	}
	if re := regexp.MustCompile("^" + rangeRegexp(math.MinInt64, math.MaxInt64) + "$"); !re.MatchString("-9223372036854775808") || re.MatchString("9223372036854775808") {
		t.Errorf("the whole int64 range: %v", re)
	}
}

// TestGlobPathological: globs built to make naive matchers take
// exponential time, or translators quadratic, match as they should; the
// test's time-out catches a slow one.
func TestGlobPathological(t *testing.T) {
	long := strings.Repeat("a", 4096)
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{strings.Repeat("*a", 100) + "b", long, false},
		{strings.Repeat("*a", 100), long, true},
		{strings.Repeat("{", maxGlob), strings.Repeat("{", maxGlob), true},
		{strings.Repeat("[", maxGlob), strings.Repeat("[", maxGlob), true},
		{strings.Repeat("[!", maxGlob/2), strings.Repeat("[!", maxGlob/2), true},
		{strings.Repeat("{a,", 100) + strings.Repeat("}", 100), "a", true},
		{strings.Repeat("{a,", 1000) + strings.Repeat("}", 1000), "a", true},
		{strings.Repeat("{0..9223372036854775807}", maxGlob/24), "1", false}, // expression too large
	} {
		re := compileGlob(tc.glob)
		if got := re != nil && re.MatchString(tc.path); got != tc.want {
			t.Errorf("[%.30s…] on %.30q…: %v", tc.glob, tc.path, got)
		}
	}
}

func ExampleParse() {
	f, _ := Parse(strings.NewReader("root = true\n[*.{ts,js}]\nindent_size = 2\n"))
	fmt.Println(f.Root, f.Sections[0].Match("src/a.ts"), f.Sections[0].Pairs)
	// Output: true true [{indent_size 2}]
}
