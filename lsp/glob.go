package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// File change types of workspace/didChangeWatchedFiles (the watcher
// numbers its events as LSP does), and the watch kinds (a bit mask) a
// server's FileSystemWatcher asks for.
const (
	changeCreated = filewatch.Created
	changeChanged = filewatch.Changed
	changeDeleted = filewatch.Deleted

	watchCreate = 1
	watchChange = 2
	watchDelete = 4
)

// fileWatcher is one compiled FileSystemWatcher of a server's
// registration: a glob, matched against paths relative to base (a
// RelativePattern) or against the absolute slash path (a plain pattern),
// and the kinds of change it wants.
type fileWatcher struct {
	base string // absolute folder of a RelativePattern; "" for a plain pattern
	re   *regexp.Regexp
	kind int
}

// wants reports whether the watcher asks for a change of type typ to path
// (absolute); root is the server's root, against which a plain pattern
// that matches no absolute path is tried too ("*.go" means the root's Go
// files to some servers). A folder's deletion goes to every watcher whose
// base holds it, or that holds the base: a folder moved away takes files
// the pattern matches with it, and the server is the one to know which. A
// watcher without a pattern (re nil) wants everything.
func (w fileWatcher) wants(path, root string, typ filewatch.Op, dir bool) bool {
	if w.kind&(1<<(typ-1)) == 0 {
		return false
	}
	if w.re == nil {
		return true
	}
	if dir {
		if typ != changeDeleted {
			return false // a new folder's files are reported one by one
		}
		base := w.base
		if base == "" {
			base = root
		}
		// A folder holding the base took every file the watcher
		// watches with it.
		return edit.Within(base, path) || edit.Within(path, base)
	}
	if w.base != "" {
		if !edit.Within(w.base, path) || path == w.base {
			return false
		}
		rel, err := filepath.Rel(w.base, path)
		return err == nil && w.re.MatchString(filepath.ToSlash(rel))
	}
	if w.re.MatchString(filepath.ToSlash(path)) {
		return true
	}
	if root != "" && edit.Within(root, path) && path != root {
		rel, err := filepath.Rel(root, path)
		return err == nil && w.re.MatchString(filepath.ToSlash(rel))
	}
	return false
}

// parseWatchers reads the watchers of a didChangeWatchedFiles
// registration (DidChangeWatchedFilesRegistrationOptions). A watcher whose
// pattern cannot be read is skipped, and reported in the error, so one bad
// glob does not blind the server to every change.
func parseWatchers(raw json.RawMessage) ([]fileWatcher, error) {
	var opts struct {
		Watchers []struct {
			GlobPattern json.RawMessage `json:"globPattern"`
			Kind        *int            `json:"kind"`
		} `json:"watchers"`
	}
	if !present(raw) {
		return nil, nil
	}
	if err := decode(raw, &opts); err != nil {
		return nil, fmt.Errorf("parse file watchers: %w", err)
	}
	var out []fileWatcher
	var bad []string
	for _, w := range opts.Watchers {
		fw, err := parseWatcher(w.GlobPattern, w.Kind)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		out = append(out, fw)
	}
	if len(bad) > 0 {
		return out, fmt.Errorf("parse file watchers: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

func parseWatcher(glob json.RawMessage, kind *int) (fileWatcher, error) {
	fw := fileWatcher{kind: watchCreate | watchChange | watchDelete}
	if kind != nil {
		fw.kind = *kind
	}
	var pattern string
	switch {
	case len(glob) > 0 && glob[0] == '"':
		if err := decode(glob, &pattern); err != nil {
			return fw, err
		}
	case len(glob) > 0 && glob[0] == '{':
		var rel struct {
			BaseURI json.RawMessage `json:"baseUri"`
			Pattern string          `json:"pattern"`
		}
		if err := decode(glob, &rel); err != nil {
			return fw, err
		}
		// baseUri is a URI or a WorkspaceFolder {uri, name}.
		var uri string
		if len(rel.BaseURI) > 0 && rel.BaseURI[0] == '{' {
			var folder struct {
				URI string `json:"uri"`
			}
			if err := decode(rel.BaseURI, &folder); err != nil {
				return fw, err
			}
			uri = folder.URI
		} else if err := decode(rel.BaseURI, &uri); err != nil {
			return fw, err
		}
		base, err := edit.PathFromURI(uri)
		if err != nil {
			return fw, fmt.Errorf("relative pattern base %q: %w", uri, err)
		}
		fw.base = filepath.Clean(base)
		pattern = rel.Pattern
	default:
		return fw, fmt.Errorf("glob pattern %s is neither a string nor a relative pattern", glob)
	}
	re, err := compileGlob(pattern)
	if err != nil {
		return fw, err
	}
	fw.re = re
	return fw, nil
}

// compileGlob translates an LSP glob pattern to an anchored regular
// expression: "*" is any run of characters within a path segment, "?" one
// such character, "**" any number of segments (none included), "{a,b}"
// alternatives (nested too), "[a-z]" and "[!a-z]" character ranges within a
// segment. A "{" or "[" without its closing bracket is a literal.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?s)^`) // "**" (".*") spans names with a newline too
	depth := 0
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			// "**/" may match nothing; a trailing or inner "**" any run.
			switch {
			case strings.HasPrefix(pattern[i:], "**/"):
				b.WriteString(`(?:[^/]*(?:/[^/]*)*/)?`)
				i += 3
			default:
				b.WriteString(`.*`)
				i += 2
			}
			for strings.HasPrefix(pattern[i:], "**/") { // "**/**/" is "**/"
				i += 3
			}
			continue
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '{' && closes(pattern[i+1:], '{', '}'):
			b.WriteString(`(?:`)
			depth++
		case c == '}' && depth > 0:
			b.WriteString(`)`)
			depth--
		case c == ',' && depth > 0:
			b.WriteString(`|`)
		case c == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				break
			}
			class := pattern[i+1 : i+1+end]
			if end == 0 || class == "!" || class == "^" {
				// "[]" and "[!]" are literals, as in most glob dialects.
				b.WriteString(regexp.QuoteMeta(pattern[i : i+2+end]))
				i += end + 2
				continue
			}
			b.WriteString(`[`)
			if class[0] == '!' || class[0] == '^' {
				b.WriteString(`^/`)
				class = class[1:]
			}
			for j, r := range class {
				// A leading "-" is the character: after the "/" that a
				// negated class excludes, it would make a range from "/".
				if r == '\\' || r == '[' || r == ']' || r == '^' || r == '-' && j == 0 {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteString(`]`)
			i += end + 2
			continue
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
		i++
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return re, nil
}

// closes reports whether s holds the bracket closing one already opened
// (nesting counted).
func closes(s string, open, close byte) bool {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return true
			}
		}
	}
	return false
}
