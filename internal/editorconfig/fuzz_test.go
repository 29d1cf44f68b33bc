package editorconfig

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary .editorconfig files and paths to the parser and
// the glob matcher: neither may panic, keys come out trimmed, non-empty
// and lower case, and writing the result back out parses to the same
// file.
func FuzzParse(f *testing.F) {
	for _, s := range []struct{ file, path string }{
		{"root = true\n\n[*]\nindent_style = space\nindent_size = 4\n", "a.go"},
		{"[*.{js,ts}]\nindent_size = 2\n[Makefile]\nindent_style = tab\n", "src/x.ts"},
		{"\uFEFF; comment\r\n[lib/**/*.py]\r\nindent_size = 4\r\n", "lib/a/b.py"},
		{"[{3..120}]\nk=v\n[{-5..5}.txt]\nk=unset\n", "60"},
		{"[[!a-c]?.{x,{y,z}}]\nK = V\n[a\\*b]\n=x\n[\n[]\n", "d1.z"},
		{"[{},b}.h]\n[{{,b,c{d}.i]\n[ab[e/]cd.i]\n[ab[/c]\n", "ab[/c"},
		{"root=TRUE\n[**]\ntrim_trailing_whitespace = FALSE\n", "a/b/c"},
	} {
		f.Add(s.file, s.path)
	}
	f.Fuzz(func(t *testing.T, file, path string) {
		parsed, err := Parse(strings.NewReader(file))
		if err != nil {
			if len(file) <= MaxFileSize {
				t.Fatal(err)
			}
			return
		}
		for i := range parsed.Sections {
			s := &parsed.Sections[i]
			s.Match(path)
			for _, p := range s.Pairs {
				if p.Key == "" || p.Key != trimSpace(p.Key) || p.Key != asciiLower(p.Key) || strings.ContainsAny(p.Key, "=\n") {
					t.Fatalf("key %q", p.Key)
				}
			}
		}
		again, err := Parse(strings.NewReader(render(parsed)))
		if err != nil {
			t.Fatal(err)
		}
		if again.Root != parsed.Root || !reflect.DeepEqual(sections(again), sections(parsed)) {
			t.Fatalf("%q parses to %v %q, written out to %v %q", file, parsed.Root, sections(parsed), again.Root, sections(again))
		}
		for i := range again.Sections {
			if again.Sections[i].Match(path) != parsed.Sections[i].Match(path) {
				t.Fatalf("[%s] matches %q differently", again.Sections[i].Glob, path)
			}
		}
	})
}

// render writes f out as an .editorconfig file.
func render(f *File) string {
	var b strings.Builder
	if f.Root {
		b.WriteString("root=true\n")
	}
	for _, s := range f.Sections {
		b.WriteString("[" + s.Glob + "]\n")
		for _, p := range s.Pairs {
			b.WriteString(p.Key + "=" + p.Value + "\n")
		}
	}
	return b.String()
}
