package editorconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sec is a Section without its matcher, for comparing.
type sec struct {
	Glob  string
	Pairs []Pair
}

func sections(f *File) []sec {
	var out []sec
	for _, s := range f.Sections {
		out = append(out, sec{s.Glob, s.Pairs})
	}
	return out
}

func TestParse(t *testing.T) {
	long := strings.Repeat("x", maxLine)
	for _, tc := range []struct {
		name, in string
		root     bool
		want     []sec
	}{
		{"empty", "", false, nil},
		{"comments and blanks", "; c\n# c\n\n   \n[*]\n;a=b\n  # x=y\nk=v\n", false, []sec{{"*", []Pair{{"k", "v"}}}}},
		{"root", "root = true\n[*]\n", true, []sec{{"*", nil}}},
		{"root any case", "ROOT = TrUe\n", true, nil},
		{"root false", "root = false\n", false, nil},
		{"root in a section is a pair", "[*]\nroot = true\n", false, []sec{{"*", []Pair{{"root", "true"}}}}},
		{"preamble pairs apply to nothing", "indent_size = 2\n[*]\n", false, []sec{{"*", nil}}},
		{"white space", "  [ a b ]  \n  key  =   a  value  \n", false, []sec{{" a b ", []Pair{{"key", "a  value"}}}}},
		{"no inline comments", "[*]\na = b ; c\nd = e # f\n", false, []sec{{"*", []Pair{{"a", "b ; c"}, {"d", "e # f"}}}}},
		{"value with =", "[*]\na = b = c\n", false, []sec{{"*", []Pair{{"a", "b = c"}}}}},
		{"empty value", "[*]\na =\n", false, []sec{{"*", []Pair{{"a", ""}}}}},
		{"invalid lines ignored", "[*]\nno equals\n= no key\n[open\nk=v\n", false, []sec{{"*", []Pair{{"k", "v"}}}}},
		{"a bracket line with = is a pair", "[*]\n[a=b\n", false, []sec{{"*", []Pair{{"[a", "b"}}}}},
		{"case", "[*.TS]\nIndent_Style = TAB\nMy_Key = MixedCase\nspelling_language = en-US\n", false,
			[]sec{{"*.TS", []Pair{{"indent_style", "tab"}, {"my_key", "MixedCase"}, {"spelling_language", "en-US"}}}}},
		{"crlf and bom", "\uFEFFroot=true\r\n[*]\r\nk = v\r\n", true, []sec{{"*", []Pair{{"k", "v"}}}}},
		{"repeated sections and keys kept in order", "[*]\na=1\n[*]\na=2\na=3\n", false, []sec{{"*", []Pair{{"a", "1"}}}, {"*", []Pair{{"a", "2"}, {"a", "3"}}}}},
		{"overlong pair ignored", "[*]\nk=" + long + "\nj=1\n", false, []sec{{"*", []Pair{{"j", "1"}}}}},
		{"overlong section keeps its pairs", "[*]\na=1\n[" + long + "]\na=2\n", false, []sec{{"*", []Pair{{"a", "1"}}}, {long, []Pair{{"a", "2"}}}}},
		{"no final newline", "[*]\nk=v", false, []sec{{"*", []Pair{{"k", "v"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if f.Root != tc.root || !reflect.DeepEqual(sections(f), tc.want) {
				t.Errorf("got root %v %q, want root %v %q", f.Root, sections(f), tc.root, tc.want)
			}
		})
	}
}

func TestParseBounds(t *testing.T) {
	ok := "[*]\n" + strings.Repeat(";", MaxFileSize-4)
	if _, err := Parse(strings.NewReader(ok)); err != nil {
		t.Errorf("%d bytes: %v", len(ok), err)
	}
	_, err := Parse(strings.NewReader(ok + "\n"))
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "parse editorconfig: ") {
		t.Errorf("%d bytes: %v", len(ok)+1, err)
	}
	f, _ := Parse(strings.NewReader("[" + strings.Repeat("a", maxGlob+1) + "]\n"))
	if f.Sections[0].Match(strings.Repeat("a", maxGlob+1)) {
		t.Error("an overlong section name matches")
	}
}

// tree writes files (slash paths to contents) under a new folder and
// returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolve(t *testing.T) {
	// Every tree's top file says root = true, so that files above the
	// test's folder do not count.
	for _, tc := range []struct {
		name  string
		files map[string]string
		file  string
		want  map[string]string
	}{
		{"nothing applies", map[string]string{".editorconfig": "root=true\n[*.go]\nindent_style=tab\n"}, "a.ts", map[string]string{}},
		{"later section wins in a file", map[string]string{".editorconfig": "root=true\n[*]\nindent_size=4\ntab_width=8\n[*.ts]\nindent_size=2\n"},
			"src/a.ts", map[string]string{"indent_size": "2", "tab_width": "8"}},
		{"nearer file wins", map[string]string{
			".editorconfig":     "root=true\n[*.ts]\nindent_size=4\nindent_style=space\n",
			"sub/.editorconfig": "[*]\nindent_size=2\n",
		}, "sub/a.ts", map[string]string{"indent_size": "2", "indent_style": "space"}},
		{"nearer file's earlier section still beats a farther file", map[string]string{
			".editorconfig":     "root=true\n[*.ts]\nindent_size=4\n",
			"sub/.editorconfig": "[*]\nindent_size=2\n[*.go]\nindent_size=8\n",
		}, "sub/a.ts", map[string]string{"indent_size": "2"}},
		{"root stops the search", map[string]string{
			".editorconfig":          "root=true\n[*]\ntab_width=8\ncharset=utf-8\n",
			"proj/.editorconfig":     "root = TRUE\n[*]\nindent_size=3\n",
			"proj/sub/.editorconfig": "[*]\ninsert_final_newline=true\n",
		}, "proj/sub/a.ts", map[string]string{"indent_size": "3", "insert_final_newline": "true"}},
		{"anchored globs are relative to their file", map[string]string{
			".editorconfig":     "root=true\n[sub/lib/*.ts]\nk=top\n[lib/*.ts]\nk=wrong\n",
			"sub/.editorconfig": "[lib/*.ts]\nj=sub\n[/*.ts]\nj=wrong\n",
		}, "sub/lib/a.ts", map[string]string{"k": "top", "j": "sub"}},
		{"unset removes what a farther file set", map[string]string{
			".editorconfig":     "root=true\n[*]\nindent_size=2\ntab_width=4\n",
			"sub/.editorconfig": "[*]\nindent_size=unset\n",
		}, "sub/a.ts", map[string]string{"tab_width": "4"}},
		{"set again after unset", map[string]string{
			".editorconfig":     "root=true\n[*]\nindent_size=2\n",
			"sub/.editorconfig": "[*]\nindent_size=UNSET\n[*.ts]\nindent_size=5\n",
		}, "sub/a.ts", map[string]string{"indent_size": "5"}},
		{"a nearer unset loses to nothing farther", map[string]string{
			".editorconfig":     "root=true\n[*]\nindent_size=unset\n",
			"sub/.editorconfig": "[*]\nindent_size=6\n",
		}, "sub/a.ts", map[string]string{"indent_size": "6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files)
			p, err := Resolve(filepath.Join(root, filepath.FromSlash(tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.All, tc.want) {
				t.Errorf("got %v, want %v", p.All, tc.want)
			}
		})
	}
}

func TestResolveSkipsUnreadable(t *testing.T) {
	root := tree(t, map[string]string{
		".editorconfig":       "root=true\n[*]\nindent_size=2\n",
		"a/.editorconfig/x":   "", // a folder: not a file to read
		"a/b/.editorconfig":   "[*]\ntab_width=3\n",
		"a/b/c/.editorconfig": "[*]\n" + strings.Repeat("k=v\n", MaxFileSize/4+1),
	})
	p, err := Resolve(filepath.Join(root, "a/b/c/f.ts"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "a/.editorconfig")+": not a regular file") || !errors.Is(err, ErrTooLarge) {
		t.Errorf("error %v", err)
	}
	if want := map[string]string{"indent_size": "2", "tab_width": "3"}; !reflect.DeepEqual(p.All, want) {
		t.Errorf("got %v, want %v", p.All, want)
	}
}

func TestProperties(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		all  map[string]string
		want Properties
	}{
		{"none", nil, Properties{}},
		{"spaces", map[string]string{"indent_style": "space", "indent_size": "2"}, Properties{IndentStyle: "space", IndentSize: 2, TabWidth: 2}},
		{"tab width given", map[string]string{"indent_size": "2", "tab_width": "8"}, Properties{IndentSize: 2, TabWidth: 8}},
		{"indent_size = tab", map[string]string{"indent_size": "tab", "tab_width": "3"}, Properties{IndentSize: 3, TabWidth: 3}},
		{"indent_size = tab, no width", map[string]string{"indent_size": "tab"}, Properties{}},
		{"tabs default indent_size to tab_width", map[string]string{"indent_style": "tab", "tab_width": "8"}, Properties{IndentStyle: "tab", IndentSize: 8, TabWidth: 8}},
		{"tabs keep a given indent_size", map[string]string{"indent_style": "tab", "indent_size": "2", "tab_width": "8"}, Properties{IndentStyle: "tab", IndentSize: 2, TabWidth: 8}},
		{"invalid values", map[string]string{"indent_style": "tabs", "indent_size": "0", "tab_width": "-2", "trim_trailing_whitespace": "yes"}, Properties{}},
		{"booleans", map[string]string{"trim_trailing_whitespace": "true", "insert_final_newline": "false"}, Properties{TrimTrailingWhitespace: &yes, InsertFinalNewline: &no}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := build(tc.all)
			tc.want.All = got.All
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
}
