package component

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxGlobFiles bounds a diagnostics glob.
const maxGlobFiles = 200

// maxGlobStars bounds the ** in a diagnostics glob.
const maxGlobStars = 3

// glob matches a pattern with ** for any depth: relative to Root, or
// absolute in one of the session's roots. It stops after maxGlobFiles+1
// matches: more than maxGlobFiles means the list was cut; and when ctx is
// done, with its error.
func (s *Session) glob(ctx context.Context, pattern string) ([]string, error) {
	if err := checkPathLen("glob", pattern); err != nil {
		return nil, err
	}
	base := s.Root
	if filepath.IsAbs(pattern) {
		// The deepest root that holds the pattern: a root nested in
		// another may be in a folder the walk skips (vendor, dot folders).
		base = ""
		rel := ""
		for _, root := range append([]string{s.Root}, s.Extra...) {
			if r, err := filepath.Rel(root, pattern); err == nil && !climbs(r) && len(root) > len(base) {
				base, rel = root, r
			}
		}
		if base == "" {
			return nil, fmt.Errorf("glob %q is outside the workspace %s", pattern, s.workspace())
		}
		pattern = rel
	}
	pattern = filepath.ToSlash(pattern)
	if strings.Count(pattern, "**") > maxGlobStars {
		// Matching costs their number times a path's depth (see
		// globPattern.match); a glob needs few.
		return nil, fmt.Errorf("glob %q has more than %d ** in it; use fewer", pattern, maxGlobStars)
	}
	if strings.HasPrefix(pattern, "../") || strings.Contains(pattern, "/../") {
		return nil, fmt.Errorf("glob %q is outside the workspace %s", pattern, s.workspace())
	}
	g := compileGlob(pattern)
	var out []string
	err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			// The call was cancelled (the client left): a walk of a big
			// or deep workspace stops at the next entry.
			return err
		}
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != base && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(relPath(base, p))
		if g.match(rel) && d.Type().IsRegular() {
			if len(out) == maxGlobFiles {
				// One more match: the caller says the rest went unchecked.
				out = append(out, p)
				return filepath.SkipAll
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return out, nil
}

// globPattern is a diagnostics glob compiled for matching the walk's
// names: a path.Match pattern where ** is any run of folders. The text
// before a ** must start the name (taken literally); what follows it,
// less a leading '/', is tried on the rest of the name and on each tail
// of it after a '/'; a part without '/' after the last ** (or a whole
// pattern without either) matches a name by its base too.
type globPattern struct {
	// pres are the texts before each **, last what follows the last one.
	pres []string
	last string
	// tries counts the matches of last, the matching's work.
	tries int
	// match's scratch: where the name's '/' are; per **, whether a tail
	// after the i-th slash or a later one matches the rest of the glob
	// (known for i from known[j] on).
	slashes []int
	any     [][]bool
	known   []int
}

// compileGlob splits pattern at its **.
func compileGlob(pattern string) *globPattern {
	g := &globPattern{}
	for {
		pre, post, ok := strings.Cut(pattern, "**")
		if !ok {
			g.last = pattern
			break
		}
		g.pres = append(g.pres, pre)
		pattern = strings.TrimPrefix(post, "/")
	}
	g.any = make([][]bool, len(g.pres))
	g.known = make([]int, len(g.pres))
	return g
}

// match reports whether name, a slash path relative to the glob's base,
// matches. Which tails of name the rest of the glob after a ** matches is
// worked out once per ** and '/', so a name's depth costs linear work
// whatever the number of ** (trying every split of the name among them
// was the depth to the power of their number: 44 s for three ** on 1,200
// levels).
func (g *globPattern) match(name string) bool {
	if len(g.pres) == 0 {
		return g.tail(name)
	}
	g.slashes = g.slashes[:0]
	for i := range len(name) {
		if name[i] == '/' {
			g.slashes = append(g.slashes, i)
		}
	}
	for j := range g.pres {
		g.any[j] = slices.Grow(g.any[j][:0], len(g.slashes))[:len(g.slashes)]
		g.known[j] = len(g.slashes)
	}
	return g.from(name, 0, 0)
}

// from reports whether name[pos:] matches the glob from its j-th **
// (counting from 0) on.
func (g *globPattern) from(name string, j, pos int) bool {
	if j == len(g.pres) {
		return g.tail(name[pos:])
	}
	if !strings.HasPrefix(name[pos:], g.pres[j]) {
		return false
	}
	pos += len(g.pres[j])
	if g.from(name, j+1, pos) {
		return true
	}
	// The ** spans folders: the tails after each later '/'.
	k, _ := slices.BinarySearch(g.slashes, pos)
	return g.after(name, j, k)
}

// after reports whether a tail of name after its k-th slash or a later
// one matches the glob from its j+1-th ** on, working the answers out
// from the last slash back, once.
func (g *globPattern) after(name string, j, k int) bool {
	if k >= len(g.slashes) {
		return false
	}
	anyFrom := g.any[j]
	for ; g.known[j] > k; g.known[j]-- {
		i := g.known[j] - 1
		anyFrom[i] = (i+1 < len(g.slashes) && anyFrom[i+1]) || g.from(name, j+1, g.slashes[i]+1)
	}
	return anyFrom[k]
}

// tail matches the part after the last ** against s.
func (g *globPattern) tail(s string) bool {
	g.tries++
	ok, _ := path.Match(g.last, s)
	if !ok && !strings.Contains(g.last, "/") {
		ok, _ = path.Match(g.last, path.Base(s))
	}
	return ok
}
