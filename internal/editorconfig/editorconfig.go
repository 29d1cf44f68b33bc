// Package editorconfig finds the EditorConfig properties
// (https://spec.editorconfig.org) that apply to a file: how the project
// wants it indented, which editors otherwise take from the user's
// settings. acp-lsp has no user settings, so it reads the project's to
// tell language servers how to format.
package editorconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
)

// Properties are the EditorConfig properties of one file. The typed
// fields follow the spec's rules between indent_style, indent_size and
// tab_width; a zero value means the files do not say.
type Properties struct {
	// IndentStyle is "tab" or "space".
	IndentStyle string
	// IndentSize is the columns of one indentation level. indent_size =
	// tab, or indent_style = tab with no indent_size, makes it
	// TabWidth.
	IndentSize int
	// TabWidth is the columns of a tab character: tab_width, else a
	// numeric indent_size.
	TabWidth int
	// TrimTrailingWhitespace and InsertFinalNewline are nil when not
	// given.
	TrimTrailingWhitespace, InsertFinalNewline *bool
	// All holds every property that applies, the ones above included,
	// as written but for case: keys, and the values of the spec's own
	// properties, are in lower case. Unset ones are left out.
	All map[string]string
}

// Resolve returns the properties of the file at path, from the
// .editorconfig files in its folder and the folders above up to one whose
// preamble says root = true: nearer files override farther ones, and in
// each file later sections override earlier ones. The search goes above
// any workspace, as editors' does, so that a project nested in a bigger
// one inherits its settings.
//
// A file that cannot be read, or is larger than MaxFileSize, is skipped:
// the error names it, and the Properties of the others come with it, as an
// editor would still use them. Missing files are no error.
func Resolve(path string) (*Properties, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return build(nil), fmt.Errorf("resolve editorconfig: %w", err)
	}
	type found struct {
		dir string
		f   *File
	}
	var files []found // nearest first
	var errs []error
	for dir := filepath.Dir(abs); ; {
		f, err := readFile(filepath.Join(dir, ".editorconfig"))
		if err != nil {
			errs = append(errs, err)
		}
		if f != nil {
			files = append(files, found{dir, f})
			if f.Root {
				break
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	all := map[string]string{}
	for i := len(files) - 1; i >= 0; i-- {
		rel, err := filepath.Rel(files[i].dir, abs)
		if err != nil {
			continue // cannot happen: dir holds abs
		}
		rel = filepath.ToSlash(rel)
		for j := range files[i].f.Sections {
			s := &files[i].f.Sections[j]
			if s.Match(rel) {
				for _, p := range s.Pairs {
					all[p.Key] = p.Value
				}
			}
		}
	}
	// unset removes a property whatever set it before; applied last,
	// since a nearer file may set the property again.
	for k, v := range all {
		if strings.EqualFold(v, "unset") {
			delete(all, k)
		}
	}
	if len(errs) > 0 {
		return build(all), fmt.Errorf("resolve editorconfig: %w", errors.Join(errs...))
	}
	return build(all), nil
}

// readFile parses the .editorconfig at name: nil and no error when there is
// none.
func readFile(name string) (*File, error) {
	// Only a regular file: a FIFO or a device would block or never end.
	fd, err := regfile.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer fd.Close()
	f, err := Parse(fd)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return f, nil
}

func build(all map[string]string) *Properties {
	if all == nil {
		all = map[string]string{}
	}
	p := &Properties{All: all}
	switch v := all["indent_style"]; v {
	case "tab", "space":
		p.IndentStyle = v
	}
	p.TabWidth = positive(all["tab_width"])
	size := all["indent_size"]
	p.IndentSize = positive(size)
	if p.TabWidth == 0 {
		p.TabWidth = p.IndentSize
	}
	if size == "tab" || size == "" && p.IndentStyle == "tab" {
		p.IndentSize = p.TabWidth
	}
	p.TrimTrailingWhitespace = boolean(all["trim_trailing_whitespace"])
	p.InsertFinalNewline = boolean(all["insert_final_newline"])
	return p
}

func positive(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

func boolean(s string) *bool {
	switch s {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	return nil
}
