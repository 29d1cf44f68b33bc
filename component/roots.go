package component

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// A session's workspace is its cwd (Root) and the additional directories
// the client gave with it (Extra, ACP's additionalDirectories): a tool call
// may touch files in any of them, and nothing else. Root stays the one
// paths are shown relative to; a file in another root is shown by its
// absolute path, which the tool takes back as input.

// within reports whether path, resolved (or its own resolution), is inside
// one of the session's roots.
func (s *Session) within(path string) bool {
	return edit.Within(s.Root, path) || slices.ContainsFunc(s.Extra, func(r string) bool { return edit.Within(r, path) })
}

// holdsRoot reports whether path is one of the session's roots or a folder
// above one.
func (s *Session) holdsRoot(path string) bool {
	return edit.Within(path, s.Root) || slices.ContainsFunc(s.Extra, func(r string) bool { return edit.Within(path, r) })
}

// checkPath is the session's path check (edit.Options.CheckPath): nil when
// path resolves inside one of its roots, else the refusal of Root's
// boundary.
func (s *Session) checkPath(path string) error {
	_, err := s.inside(path)
	return err
}

// inside resolves path (".." and links) and returns it when it is inside
// one of the session's roots, as that root's boundary answers it; else
// the refusal of Root's boundary, which words it.
func (s *Session) inside(path string) (string, error) {
	p, err := s.bounds[0](path)
	if err == nil {
		return p, nil
	}
	for _, bound := range s.bounds[1:] {
		if p, e := bound(path); e == nil {
			return p, nil
		}
	}
	return "", err
}

// workspaceRoot resolves dir as a session root (edit.RootDir: an absolute
// path to a folder): its real path and the boundary of paths inside it.
func workspaceRoot(dir string) (string, func(string) (string, error), error) {
	real, err := edit.RootDir(dir)
	if err != nil {
		return "", nil, err
	}
	bound, err := edit.RootResolver(real)
	if err != nil {
		return "", nil, err
	}
	return real, bound, nil
}

// maxPathLen bounds a file argument, a path or a glob: Linux's PATH_MAX.
// No system call takes a longer path, and resolving or matching one costs
// time in proportion to its length, so it is refused before either.
const maxPathLen = 4096

// checkPathLen refuses p, a path (what "path") or a glob, when it is
// longer than maxPathLen.
func checkPathLen(what, p string) error {
	if len(p) > maxPathLen {
		return fmt.Errorf("%s of %d bytes is longer than any file path can be (%d bytes)", what, len(p), maxPathLen)
	}
	return nil
}

// absPath is a file argument as an absolute, clean path: relative ones are
// taken from Root. Nothing is resolved or checked.
func (s *Session) absPath(file string) string {
	if !filepath.IsAbs(file) {
		file = filepath.Join(s.Root, file)
	}
	return filepath.Clean(file)
}

// workspace names the session's roots in messages.
func (s *Session) workspace() string {
	if len(s.Extra) == 0 {
		return s.Root
	}
	return s.Root + " (with " + strings.Join(s.Extra, ", ") + ")"
}

// resolve returns the absolute path of a workspace file argument, refusing
// anything outside the workspace after resolving ".." and symbolic links.
func (s *Session) resolve(file string) (string, error) {
	p, _, err := s.resolveExists(file)
	return p, err
}

// resolveExists is resolve that also reports whether the file was seen to
// exist (false: not there, or not known).
func (s *Session) resolveExists(file string) (string, bool, error) {
	if file == "" {
		return "", false, errors.New("file is required")
	}
	if err := checkPathLen("path", file); err != nil {
		return "", false, err
	}
	p := s.absPath(file)
	// One EvalLinks answers an existing file inside the workspace by its
	// name (the Root is resolved already); the boundary, a few times the
	// lstats, runs only for the rest: files not there (yet), a root
	// spelled otherwise (a file system that compares names without case)
	// and refusals, whose errors it words.
	real, rerr := edit.EvalLinks(p)
	if rerr == nil && s.within(real) {
		return real, true, nil
	}
	in, err := s.inside(p)
	if err != nil {
		return "", false, fmt.Errorf("file %q is outside the workspace %s: %w", file, s.workspace(), err)
	}
	if rerr == nil {
		// The boundary's look, the later one, in the root's spelling.
		return in, true, nil
	}
	if !s.within(p) {
		// Not there (yet), inside by the root's other spelling only.
		return in, false, nil
	}
	return p, false, nil
}

// relPath is path relative to root, with forward slashes, or path itself
// when it is not below root.
func relPath(root, path string) string {
	// The usual case, a clean path below the root, without Rel's cleaning
	// of both: a workspace-symbol answer takes this once per result, and
	// Rel was a fourteenth of its work. Anything that cleaning could change
	// (".", "..", doubled or trailing separators) takes Rel.
	if rest, ok := strings.CutPrefix(path, root); ok && filepath.Separator == '/' {
		if root != "/" {
			rest, ok = strings.CutPrefix(rest, "/")
		}
		if ok && rest != "" && rest[0] != '.' && rest[0] != '/' && !strings.HasSuffix(rest, "/") &&
			!strings.Contains(rest, "/.") && !strings.Contains(rest, "//") && filepath.Clean(root) == root {
			return rest
		}
	}
	if rel, err := filepath.Rel(root, path); err == nil && !climbs(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// climbs reports whether rel, a filepath.Rel answer, leads out of its base:
// ".." or "../…", not a name that merely starts with two dots ("..data").
func climbs(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
