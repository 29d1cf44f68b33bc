package component

import (
	"context"
	"encoding/json"
	"hash/maphash"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// Enclosing symbols. Every location an answer lists (references,
// definitions, implementations, callers, diagnostics) says which symbol of
// its file holds it ("internal/cache/load.go:212:9 in method
// (*Loader).Run"), so the model can judge a hit without reading the file.
// The symbol comes from the server's textDocument/documentSymbol answer
// for that file: the innermost symbol whose range holds the location,
// where a symbol's own name is not inside it (a declaration sits in its
// parent), and a function's local variables and parameters hold nothing
// (a call in `x := f()` is in the function, not in x).
//
// Only the files of the page shown are asked about, at most fanOut at a
// time, and only files the answer read for their source lines: inside the
// workspace, or outside it when outside.go's rule shows their lines. An
// outline is kept per file while its content is the same (outlineCache).
// A server that does not answer documentSymbol (not supported, failed,
// not ready within encloseWait) leaves its items without one: the answer
// is the same as without the lookup, never an error.

// encloseWait bounds the document symbol lookups of one answer: a server
// slower than that leaves the answer's items without their symbols.
const encloseWait = 5 * time.Second

// fanOut is how many requests one answer has in flight at a time where it
// asks many (documentSymbol per file, incoming calls per caller).
const fanOut = 8

// outlineFiles bounds how many files' outlines the cache holds.
const outlineFiles = 512

// outline is one file's symbols as the enclosing lookup needs them:
// names qualified by their parents', locals left out.
type outline []outlineSym

type outlineSym struct {
	// label is the symbol's kind and qualified name ("method Loader.run").
	label    string
	rng, sel position.Range
	children outline
}

// outlineCache keeps outlines by file path and content: an entry serves
// while the document read from disk is the same one (the document cache
// hands out one *Document per unchanged file) or has the same content
// hash. Safe for concurrent use.
type outlineCache struct {
	mu  sync.Mutex
	lru *simplelru.LRU[string, outlineEntry]
}

type outlineEntry struct {
	doc *position.Document
	sum uint64
	out outline
}

var outlineSeed = maphash.MakeSeed()

func contentSum(doc *position.Document) uint64 { return maphash.String(outlineSeed, doc.Text()) }

// get returns the outline kept for path whose content is doc's, and the
// content hash it computed (0 when it did not need one).
func (c *outlineCache) get(path string, doc *position.Document) (outline, uint64, bool) {
	c.mu.Lock()
	e, ok := c.lru.Get(path)
	c.mu.Unlock()
	if ok && e.doc == doc {
		return e.out, 0, true
	}
	sum := contentSum(doc)
	if ok && e.sum == sum {
		c.put(path, outlineEntry{doc, sum, e.out})
		return e.out, sum, true
	}
	return nil, sum, false
}

func (c *outlineCache) put(path string, e outlineEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Add(path, e)
}

func newOutlineCache() *outlineCache {
	lru, err := simplelru.NewLRU[string, outlineEntry](outlineFiles, nil)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &outlineCache{lru: lru}
}

// placed is where an item is, as the server said it: the URI it gave and
// the LSP position, what the enclosing lookup needs.
type placed struct {
	uri string
	pos position.Position
}

// enclose sets the In of each item placed by the renderer, from its
// file's outline. Files are asked about concurrently, at most fanOut at a
// time, within encloseWait.
func (r *renderer) enclose(ctx context.Context, items []item) {
	outs := r.outlines(ctx, items)
	for i := range items {
		if o, ok := outs[items[i].at.uri]; ok {
			items[i].In = o.enclosing(items[i].at.pos)
		}
	}
}

// outlines returns the outlines of the files of items the renderer read
// (so the lookup follows the rule for showing their lines), by URI.
func (r *renderer) outlines(ctx context.Context, items []item) map[string]outline {
	type job struct {
		uri, path string
		doc       *position.Document
		sum       uint64
	}
	outs := map[string]outline{}
	var jobs []job
	seen := map[string]bool{}
	cache := r.s.c.outlines
	for _, it := range items {
		p := it.at
		if p.uri == "" || seen[p.uri] {
			continue
		}
		seen[p.uri] = true
		path, doc := r.doc(p.uri)
		if doc == nil {
			continue
		}
		o, sum, ok := cache.get(path, doc)
		if ok {
			outs[p.uri] = o
			continue
		}
		jobs = append(jobs, job{p.uri, path, doc, sum})
	}
	if len(jobs) == 0 {
		return outs
	}
	ctx, cancel := context.WithTimeout(ctx, encloseWait)
	defer cancel()
	got := make([]outline, len(jobs))
	ok := make([]bool, len(jobs))
	sem := make(chan struct{}, fanOut)
	var wg sync.WaitGroup
	for i, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			got[i], ok[i] = r.s.documentOutline(ctx, j.uri)
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if !ok[i] {
			continue
		}
		outs[j.uri] = got[i]
		cache.put(j.path, outlineEntry{j.doc, j.sum, got[i]})
	}
	return outs
}

// documentOutline asks the server for uri's document symbols; false when
// it gives none (an error, a malformed answer). It peeks (Peeker): the
// agent did not ask about the file, so a server that did not have it open
// is asked without opening it (or, if it needs it open, with it closed
// again after): opening every file of a page made gopls analyse their
// packages, 1.7× the bare client's memory on golang.org/x/tools.
func (s *Session) documentOutline(ctx context.Context, uri string) (outline, bool) {
	params, err := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": uri}})
	if err != nil {
		return nil, false
	}
	res, err := s.peek(ctx, uri, "textDocument/documentSymbol", params)
	if err != nil {
		return nil, false
	}
	raw := res.Result
	var syms []wire.DocumentSymbol
	if len(raw) > 0 && string(raw) != "null" {
		if json.Unmarshal(raw, &syms) != nil {
			return nil, false
		}
	}
	return outlineOf(uri, syms), true
}

// outlineOf builds the outline of the file at uri from its document
// symbols, either form: the tree of DocumentSymbols, or the flat
// SymbolInformation list (nested here by their ranges; its symbols in
// other files are left out).
func outlineOf(uri string, syms []wire.DocumentSymbol) outline {
	flat := false
	for _, s := range syms {
		if s.Location != nil {
			flat = true
			break
		}
	}
	if flat {
		syms = nestFlat(uri, syms)
	}
	return build(syms, "", false)
}

// build turns syms into outline entries qualified by prefix; inFunc says
// they are inside a function, where variables are locals.
func build(syms []wire.DocumentSymbol, prefix string, inFunc bool) outline {
	var out outline
	for _, s := range syms {
		if inFunc && isLocalKind(s.Kind) {
			continue
		}
		name := s.Name
		if prefix != "" && !strings.HasPrefix(name, prefix+".") {
			name = prefix + "." + name
		}
		out = append(out, outlineSym{
			label:    kindName(s.Kind) + " " + name,
			rng:      s.Range,
			sel:      s.SelectionRange,
			children: build(s.Children, name, inFunc || isFuncKind(s.Kind)),
		})
	}
	return out
}

// Symbol kinds (LSP SymbolKind) the outline treats apart.
const (
	kindMethod      = 6
	kindConstructor = 9
	kindFunction    = 12
	kindVariable    = 13
	kindConstant    = 14
)

func isFuncKind(k int) bool { return k == kindMethod || k == kindConstructor || k == kindFunction }

func isLocalKind(k int) bool { return k == kindVariable || k == kindConstant }

// nestFlat nests the flat form's symbols of uri by their ranges: a symbol
// is the child of the last one before it whose range holds its own.
func nestFlat(uri string, syms []wire.DocumentSymbol) []wire.DocumentSymbol {
	var list []wire.DocumentSymbol
	for _, s := range syms {
		if s.Location == nil || NormalizeURI(s.Location.URI) != NormalizeURI(uri) {
			continue
		}
		s.Range, s.SelectionRange, s.Location, s.Children = s.Location.Range, position.Range{}, nil, nil
		list = append(list, s)
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i].Range, list[j].Range
		if a.Start != b.Start {
			return before(a.Start, b.Start)
		}
		return before(b.End, a.End) // the larger first
	})
	// stack holds the path from a root to the symbol last placed, as
	// pointers into the tree being built.
	var roots []wire.DocumentSymbol
	type frame struct {
		list *[]wire.DocumentSymbol
		i    int
	}
	var stack []frame
	at := func(f frame) *wire.DocumentSymbol { return &(*f.list)[f.i] }
	for _, s := range list {
		for len(stack) > 0 && !holds(at(stack[len(stack)-1]).Range, s.Range) {
			stack = stack[:len(stack)-1]
		}
		parent := &roots
		if len(stack) > 0 {
			parent = &at(stack[len(stack)-1]).Children
		}
		*parent = append(*parent, s)
		stack = append(stack, frame{parent, len(*parent) - 1})
	}
	return roots
}

// enclosing returns the label of the innermost symbol holding p: the
// symbol whose name p is on is not its own enclosing symbol; "" when none
// (top level).
func (o outline) enclosing(p position.Position) string {
	label := ""
	for level := o; ; {
		var next *outlineSym
		for i := range level {
			if contains(level[i].rng, p) {
				next = &level[i]
				break
			}
		}
		if next == nil || contains(next.sel, p) {
			return label
		}
		label, level = next.label, next.children
	}
}

// contains reports whether p is in r: at its start or after, before its
// end (or at an empty range's start).
func contains(r position.Range, p position.Position) bool {
	if r.Start == r.End {
		return p == r.Start && r != (position.Range{})
	}
	return !before(p, r.Start) && before(p, r.End)
}

// holds reports whether outer holds inner entirely.
func holds(outer, inner position.Range) bool {
	return !before(inner.Start, outer.Start) && !before(outer.End, inner.End)
}

func before(a, b position.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
