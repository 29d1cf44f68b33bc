package editorconfig

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// MaxFileSize is the largest .editorconfig file Parse reads. Real ones are
// a few hundred bytes; the bound keeps a stray or hostile file in a
// project (or above it) from costing memory and time on every format.
const MaxFileSize = 1 << 20

// maxLine is the longest pair, after trimming, that Parse takes, and
// maxGlob the longest section name it matches files against: four times
// what the spec requires cores to accept (keys of 1024 characters, values
// of 4096, section names of 1024). Longer pairs are ignored as invalid; a
// longer section name still opens a section, one that matches nothing,
// so that the pairs under it do not fall to the section before.
const (
	maxLine = 4 * (1024 + 1 + 4096)
	maxGlob = 4 * 1024
)

// ErrTooLarge is returned by Parse for input over MaxFileSize.
var ErrTooLarge = errors.New("file larger than 1 MiB")

// File is a parsed .editorconfig file.
type File struct {
	// Root is the preamble's root = true: files in the folders above
	// are not read.
	Root bool
	// Sections are in the order written: later ones override earlier.
	Sections []Section
}

// Section is one [glob] section of a File.
type Section struct {
	// Glob is the section name as written between the brackets.
	Glob string
	// Pairs are the section's properties in the order written, keys in
	// lower case, values of the spec's own properties in lower case too.
	Pairs []Pair
	// re matches the slash-separated path of a file relative to the
	// .editorconfig's folder; nil matches nothing (a glob too long, or
	// one that does not compile).
	re *regexp.Regexp
}

// Pair is one key = value line.
type Pair struct {
	Key, Value string
}

// Match reports whether the section applies to the file at rel, its
// slash-separated path relative to the .editorconfig's folder.
func (s *Section) Match(rel string) bool {
	return s.re != nil && s.re.MatchString(rel)
}

// caseless are the properties the spec defines, whose values are case
// insensitive; other values keep their case, tools may depend on it
// (spelling_language's "en-US" among them).
var caseless = map[string]bool{
	"indent_style": true, "indent_size": true, "tab_width": true, "end_of_line": true,
	"charset": true, "trim_trailing_whitespace": true, "insert_final_newline": true, "root": true,
}

// Parse reads an .editorconfig file. Lines the spec calls invalid are
// ignored, as it says; the errors are r's and ErrTooLarge.
func Parse(r io.Reader) (*File, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("parse editorconfig: %w", err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("parse editorconfig: %w", ErrTooLarge)
	}
	return parse(string(b)), nil
}

func parse(text string) *File {
	f := &File{}
	text = strings.TrimPrefix(text, "\uFEFF")
	var sec *Section // nil in the preamble
	for len(text) > 0 {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		line = trimSpace(line)
		switch {
		case line == "", line[0] == '#', line[0] == ';':
			continue
		case len(line) >= 2 && line[0] == '[' && line[len(line)-1] == ']':
			f.Sections = append(f.Sections, Section{Glob: line[1 : len(line)-1]})
			sec = &f.Sections[len(f.Sections)-1]
			if len(sec.Glob) <= maxGlob {
				sec.re = compileGlob(sec.Glob)
			}
			continue
		case len(line) > maxLine:
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = asciiLower(trimSpace(k))
		if !ok || k == "" {
			continue
		}
		v = trimSpace(v)
		if caseless[k] {
			v = asciiLower(v)
		}
		if sec == nil {
			// The preamble holds root alone; anything else there
			// applies to no file.
			if k == "root" {
				f.Root = v == "true"
			}
			continue
		}
		sec.Pairs = append(sec.Pairs, Pair{k, v})
	}
	return f
}

// trimSpace trims ASCII white space only: the spec speaks of white space
// around keys and values, and a non-breaking space is more likely part of
// a value than a typing slip.
func trimSpace(s string) string { return strings.Trim(s, " \t\r\v\f") }

// asciiLower lower-cases ASCII letters only: every key and value the spec
// defines is ASCII, and Unicode case mapping may change a string's length.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
