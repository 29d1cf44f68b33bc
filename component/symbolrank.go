package component

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// Workspace symbols are ranked by acp-lsp, not left in the server's
// order: pyright answers every fuzzy match in the order it walks its
// files (a class found after fifty local variables of the same name),
// gopls by its own score, typescript-language-server by file. The rule,
// stated in docs/tool.md, compares in turn:
//
//  1. how the name matches the query (matchTier): exactly, then by the
//     last part of a name the server qualifies ("Server.Run",
//     "example.com/m/pkg.Parse"), then exactly but for letter case, then
//     starting with it, then the rest (a substring, a fuzzy match);
//  2. the kind (kindTier): types first, then functions and methods, then
//     modules and packages, then the rest (variables, fields, constants,
//     type parameters, locals);
//  3. where it is (symbolPlace): in the workspace, then in a dependency
//     folder inside it (vendor, node_modules, site-packages, a hidden
//     folder), then outside it;
//  4. the shorter container name, then the shorter path;
//  5. the server's order.

// Match tiers, best first.
const (
	matchExact = iota
	matchQualified
	matchFold
	matchPrefix
	matchOther
)

// matchTier is how name matches query: one of the match tiers. A name
// the server qualifies matches by its last part too, but a name equal to
// the query comes before one whose last part is.
func matchTier(query, name string) int {
	if name == query {
		return matchExact
	}
	best := matchOther
	for _, n := range []string{name, name[strings.LastIndexByte(name, '.')+1:]} {
		switch {
		case n == query:
			best = min(best, matchQualified)
		case strings.EqualFold(n, query):
			best = min(best, matchFold)
		case len(n) >= len(query) && strings.EqualFold(n[:len(query)], query):
			best = min(best, matchPrefix)
		}
	}
	return best
}

// kindTier ranks an LSP SymbolKind: types, then functions, then modules,
// then the rest. Type parameters go with the rest: a query naming one
// almost never means the T of a generic function.
func kindTier(kind int) int {
	switch kindName(kind) {
	case "class", "interface", "struct", "enum":
		return 0
	case "function", "method", "constructor", "operator":
		return 1
	case "module", "namespace", "package":
		return 2
	}
	return 3
}

// Places of a symbol, best first.
const (
	placeWorkspace = iota
	placeDependency
	placeOutside
)

// dependencyDirs name folders inside a workspace that hold others' code.
var dependencyDirs = map[string]bool{
	"vendor": true, "node_modules": true, "site-packages": true, "dist-packages": true,
	"third_party": true, "bower_components": true,
}

// symbolPlace is where the symbol at the workspace-relative path rel is:
// one of the places. inside says rel is in the workspace.
func symbolPlace(rel string, inside bool) int {
	if !inside {
		return placeOutside
	}
	dir, _ := path.Split(filepath.ToSlash(rel))
	for d := range strings.SplitSeq(strings.Trim(dir, "/"), "/") {
		if dependencyDirs[d] || len(d) > 1 && d[0] == '.' && d != ".." {
			return placeDependency
		}
	}
	return placeWorkspace
}

// rankedSymbol is a workspace symbol with what rankSymbols compares.
type rankedSymbol struct {
	sym  wire.SymbolInformation
	rel  string
	keys [5]int
}

// rankSymbols orders syms for query by the rule above, stably. where
// returns a symbol's workspace-relative path (as shown) and whether it is
// in the workspace.
func rankSymbols(query string, syms []wire.SymbolInformation, where func(uri string) (rel string, inside bool)) []rankedSymbol {
	out := make([]rankedSymbol, len(syms))
	for i, sym := range syms {
		rel, inside := where(sym.Location.URI)
		out[i] = rankedSymbol{sym: sym, rel: rel, keys: [5]int{
			matchTier(query, sym.Name),
			kindTier(sym.Kind),
			symbolPlace(rel, inside),
			len(sym.ContainerName),
			len(rel),
		}}
	}
	slices.SortStableFunc(out, func(a, b rankedSymbol) int {
		return slices.Compare(a.keys[:], b.keys[:])
	})
	return out
}

// groupByFirstFile orders items by file, files in the order of their
// first item, keeping the items' order within a file: a page of ranked
// results reads file by file with the best one first.
func groupByFirstFile(items []item) {
	first := map[string]int{}
	for i, it := range items {
		if _, ok := first[it.File]; !ok {
			first[it.File] = i
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Compare(first[a.File], first[b.File])
	})
}

// where is a symbol's place for rankSymbols: its path relative to the
// workspace and whether it is in it (a URI naming no local file is not).
func (r *renderer) where(uri string) (rel string, inside bool) {
	p, err := r.path(uri)
	if err != nil {
		return uri, false
	}
	return relPath(r.s.Root, p), r.within(p)
}
