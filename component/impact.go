package component

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// impact answers "what breaks if this symbol changes": its references
// grouped by the symbol holding them, its callers up to a depth through
// the call hierarchy, its implementations (textDocument/implementation)
// and subtypes (the type hierarchy), where the server answers them, test
// code apart from the rest; the counts first, then a place per row, paged
// and cut to the budget as every list is.
//
// Rows: one per symbol holding references (at the first of them, the
// others' positions in its label); one per caller beyond depth 1 (at its
// call; callers at depth 1 hold references already, and are rows of their
// own only when none of their calls is among the references); one per
// implementation and subtype. Rows in files of test code (testCode) come
// after the others, their files marked as test code.

// Bounds of an impact answer.
const (
	// impactDepth is how many levels of callers are walked when the call
	// gives no depth; impactMaxDepth the most it may ask.
	impactDepth    = 2
	impactMaxDepth = 5
	// impactMaxNodes bounds the callers, and the subtypes, a walk finds.
	impactMaxNodes = 200
	// impactMaxFiles bounds the files whose symbols are looked up for the
	// grouping: references beyond are grouped by file alone.
	impactMaxFiles = 100
)

// testCode are the conventions that make a file test code, one table for
// every language: a file name matching a pattern, or a file under a
// folder of one of the names.
var testCode = struct {
	names   []string // path.Match patterns on the file's name
	folders []string
}{
	names: []string{
		"*_test.go",                             // Go
		"test_*.py", "*_test.py", "conftest.py", // Python (pytest)
		"*.test.ts", "*.spec.ts", "*.test.tsx", "*.spec.tsx", "*.test.mts", "*.spec.mts", "*.test.cts", "*.spec.cts", // TypeScript
		"*.test.js", "*.spec.js", "*.test.jsx", "*.spec.jsx", "*.test.mjs", "*.spec.mjs", "*.test.cjs", "*.spec.cjs", // JavaScript
	},
	folders: []string{"tests", "test", "__tests__"},
}

// isTestCode reports whether the file shown as file (workspace-relative,
// or absolute outside it) is test code by testCode's conventions; only a
// relative path's folders count, never those above the workspace.
func isTestCode(file string) bool {
	file = strings.ReplaceAll(file, "\\", "/")
	name := path.Base(file)
	for _, p := range testCode.names {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	if path.IsAbs(file) {
		return false
	}
	dirs := strings.Split(path.Dir(file), "/")
	return slices.ContainsFunc(dirs, func(d string) bool { return slices.Contains(testCode.folders, d) })
}

// impactCounts is the summary an impact answer starts with, and its
// structuredContent's "counts".
type impactCounts struct {
	// References counts the references, Files their files, Symbols the
	// symbols holding them, TopLevel those no symbol holds (imports, a
	// file's top-level statements); TestReferences and TestFiles those
	// in test code.
	References     int `json:"references"`
	Files          int `json:"files"`
	Symbols        int `json:"symbols"`
	TopLevel       int `json:"top_level"`
	TestReferences int `json:"test_references"`
	TestFiles      int `json:"test_files"`
	// Callers counts the callers found per depth, from depth 1; Depth is
	// the depth walked.
	Callers []int `json:"callers"`
	Depth   int   `json:"depth"`
	// Implementations and Subtypes count what the server answered.
	Implementations int `json:"implementations"`
	Subtypes        int `json:"subtypes"`
	// Unanswered says, a phrase per part, what the server did not answer.
	Unanswered []string `json:"unanswered,omitempty"`
}

// hnode is an item a hierarchy walk found.
type hnode struct {
	h     wire.HierarchyItem
	depth int
	// via is the name of the item of the level above it calls or derives
	// from.
	via string
	// sites are its calls of that item (incoming calls' fromRanges), in
	// its own file.
	sites []position.Range
}

// walked is what one walk up a call hierarchy, or down a type hierarchy,
// found.
type walked struct {
	// root is the item prepared at the position, nil when none.
	root  *wire.HierarchyItem
	nodes []hnode
	// cut says it stopped at impactMaxNodes.
	cut bool
	err error
}

// walk prepares the hierarchy at t (prepare: the prepare method) and
// follows next from each item found, level by level, to depth levels,
// asking at most fanOut at a time; calls says next answers incoming calls
// (the item under "from"), else items. An item is found once, at its
// first depth. Every answer's readiness goes to seen.
func (s *Session) walk(ctx context.Context, t *target, prepare, next string, depth int, calls bool, seen func(lspext.RequestResult)) walked {
	var w walked
	res, err := s.ask(ctx, t.uri, prepare, textDocPos(t))
	seen(res)
	raw := res.Result
	if err != nil {
		w.err = err
		return w
	}
	var prepared []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &prepared); err != nil {
			w.err = fmt.Errorf("%s: malformed answer: %w", prepare, err)
			return w
		}
	}
	type level struct {
		raw  json.RawMessage
		name string
	}
	var frontier []level
	found := map[string]bool{}
	for _, p := range prepared {
		var h wire.HierarchyItem
		if json.Unmarshal(p, &h) != nil {
			continue
		}
		if w.root == nil {
			w.root = &h
		}
		found[hierarchyKey(h)] = true
		frontier = append(frontier, level{p, h.Name})
	}
	for d := 1; d <= depth && len(frontier) > 0 && !w.cut; d++ {
		answers := make([]json.RawMessage, len(frontier))
		errs := make([]error, len(frontier))
		sem := make(chan struct{}, fanOut)
		var wg sync.WaitGroup
		for i, f := range frontier {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				res, err := s.c.backend.Request(ctx, t.uri, next, json.RawMessage(`{"item":`+string(f.raw)+`}`))
				seen(res)
				answers[i], errs[i] = res.Result, err
			})
		}
		wg.Wait()
		var below []level
		for i, a := range answers {
			if errs[i] != nil {
				w.err = cmp.Or(w.err, errs[i])
				continue
			}
			items, err := hierarchyAnswer(a, calls)
			if err != nil {
				w.err = cmp.Or(w.err, fmt.Errorf("%s: malformed answer: %w", next, err))
				continue
			}
			for _, n := range items {
				k := hierarchyKey(n.n.h)
				if found[k] {
					continue
				}
				if len(w.nodes) == impactMaxNodes {
					w.cut = true
					break
				}
				found[k] = true
				n.n.depth, n.n.via = d, frontier[i].name
				w.nodes = append(w.nodes, n.n)
				below = append(below, level{n.raw, n.n.h.Name})
			}
		}
		frontier = below
	}
	return w
}

// hierarchyFound is an item of a hierarchy answer, as read and as sent
// (for the next request).
type hierarchyFound struct {
	n   hnode
	raw json.RawMessage
}

// hierarchyAnswer reads an answer to next: incoming calls when calls,
// else hierarchy items.
func hierarchyAnswer(raw json.RawMessage, calls bool) ([]hierarchyFound, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var out []hierarchyFound
	if calls {
		var list []struct {
			From       json.RawMessage  `json:"from"`
			FromRanges []position.Range `json:"fromRanges"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
		for _, c := range list {
			var h wire.HierarchyItem
			if len(c.From) == 0 || json.Unmarshal(c.From, &h) != nil {
				continue
			}
			out = append(out, hierarchyFound{hnode{h: h, sites: uniqueRanges(c.FromRanges)}, c.From})
		}
		return out, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	for _, r := range list {
		var h wire.HierarchyItem
		if json.Unmarshal(r, &h) != nil {
			continue
		}
		out = append(out, hierarchyFound{hnode{h: h}, r})
	}
	return out, nil
}

// uniqueRanges is rs without repeats (pyright names a call twice).
func uniqueRanges(rs []position.Range) []position.Range {
	var out []position.Range
	for _, r := range rs {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func hierarchyKey(h wire.HierarchyItem) string {
	return NormalizeURI(h.URI) + "#" + h.SelectionRange.Start.String()
}

func placeKey(uri string, p position.Position) string {
	return NormalizeURI(uri) + "#" + p.String()
}

// impactDepthOf is the depth a call asks for, within the bounds, and a
// note when it asked for more than the most.
func impactDepthOf(asked int) (int, string) {
	switch {
	case asked <= 0:
		return impactDepth, ""
	case asked > impactMaxDepth:
		return impactMaxDepth, fmt.Sprintf("depth %d is over the most, %d: callers were walked %d levels up", asked, impactMaxDepth, impactMaxDepth)
	}
	return asked, ""
}

func (s *Session) impact(ctx context.Context, in Input) (*answer, error) {
	depth, depthNote := impactDepthOf(in.Depth)
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	var (
		wg             sync.WaitGroup
		refs, impls    []wire.Location
		refErr, implEr error
		callers, types walked
		// ld gathers every answer's readiness: a list any part of which
		// came from a loading server says so.
		ld   loading
		ldMu sync.Mutex
	)
	seen := func(res lspext.RequestResult) {
		ldMu.Lock()
		defer ldMu.Unlock()
		ld.add(res)
	}
	wg.Go(func() {
		p := textDocPos(t)
		p["context"] = map[string]bool{"includeDeclaration": false}
		res, err := s.ask(ctx, t.uri, "textDocument/references", p)
		seen(res)
		if err == nil {
			refs, err = wire.ParseLocations(res.Result)
		}
		refErr = err
	})
	wg.Go(func() {
		res, err := s.ask(ctx, t.uri, "textDocument/implementation", textDocPos(t))
		seen(res)
		if err == nil {
			impls, err = wire.ParseLocations(res.Result)
		}
		implEr = err
	})
	wg.Go(func() {
		callers = s.walk(ctx, t, "textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", depth, true, seen)
	})
	wg.Go(func() {
		types = s.walk(ctx, t, "textDocument/prepareTypeHierarchy", "typeHierarchy/subtypes", impactMaxDepth, false, seen)
	})
	wg.Wait()
	if refErr != nil {
		return nil, fmt.Errorf("impact: references: %w", refErr)
	}

	r := s.newRenderer(t)
	r.readOutside(t.path)
	counts := impactCounts{Depth: depth, Callers: make([]int, depth)}
	// Every place the answer may show, its enclosing symbol looked up
	// for the first impactMaxFiles files.
	var places []item
	refAt := map[string]bool{}
	for _, l := range refs {
		it := r.item(l.URI, l.Range.Start)
		it.Outside = r.isOutside(l.URI)
		it.Label = referenceLabel
		refAt[placeKey(l.URI, l.Range.Start)] = true
		places = append(places, it)
	}
	for _, n := range callers.nodes {
		counts.Callers[n.depth-1]++
		if n.depth == 1 && slices.ContainsFunc(n.sites, func(rg position.Range) bool { return refAt[placeKey(n.h.URI, rg.Start)] }) {
			continue // its calls are among the references
		}
		at := n.h.SelectionRange.Start
		if len(n.sites) > 0 {
			at = n.sites[0].Start
		}
		it := r.item(n.h.URI, at)
		it.Outside = r.isOutside(n.h.URI)
		it.Label = fmt.Sprintf("calls %s (depth %d)", n.via, n.depth)
		if len(n.sites) > 1 {
			it.Label = fmt.Sprintf("calls %s %d times (depth %d)", n.via, len(n.sites), n.depth)
		}
		places = append(places, it)
	}
	self := placeKey(t.uri, t.pos)
	for _, l := range impls {
		if placeKey(l.URI, l.Range.Start) == self {
			continue // a server may name the symbol itself
		}
		counts.Implementations++
		it := r.item(l.URI, l.Range.Start)
		it.Outside = r.isOutside(l.URI)
		it.Label = "implementation"
		places = append(places, it)
	}
	for _, n := range types.nodes {
		counts.Subtypes++
		it := r.item(n.h.URI, n.h.SelectionRange.Start)
		it.Outside = r.isOutside(n.h.URI)
		it.Label = "subtype of " + n.via
		places = append(places, it)
	}
	for i := range places {
		places[i].Test = isTestCode(places[i].File)
	}
	sortImpact(places)
	looked := places
	files := 0
	for i := range places {
		if i == 0 || places[i].File != places[i-1].File {
			if files++; files > impactMaxFiles {
				looked = places[:i]
				break
			}
		}
	}
	r.enclose(ctx, looked)
	rows := impactRows(places, len(looked), &counts)

	var notes []string
	if depthNote != "" {
		notes = append(notes, depthNote)
	}
	if len(looked) < len(places) {
		notes = append(notes, fmt.Sprintf("the symbols holding the places were looked up in the first %d files only: the references in the others are grouped by file", impactMaxFiles))
	}
	detail := []string{counts.referencesLine()}
	detail = append(detail, counts.walkLine("callers", callers, depth))
	implLine := fmt.Sprintf("implementations: %d", counts.Implementations)
	if implEr != nil {
		implLine = "implementations: no answer (" + unanswered(implEr) + ")"
		counts.Unanswered = append(counts.Unanswered, implLine)
	}
	detail = append(detail, implLine+"; "+counts.walkLine("subtypes", types, impactMaxDepth))

	name := in.Symbol
	if h := cmp.Or(callers.root, types.root); h != nil {
		name = kindName(h.Kind) + " " + h.Name
	}
	if name == "" {
		name = "the symbol"
	}
	l := &listing{Title: "impact of " + name + " at " + r.loc(t.uri, t.pos), Detail: strings.Join(detail, "\n")}
	page(in, rows, l)
	l.Notes = append(l.Notes, notes...)
	l.Notes = append(l.Notes, r.outsideNotes(l.Items)...)
	s.markLoading(ctx, &ld, l)
	// {"counts":…,"listing":…}, the listing cut with the text.
	cb, err := json.Marshal(counts)
	if err != nil {
		return nil, fmt.Errorf("impact: encode counts: %w", err)
	}
	const open, mid = `{"counts":`, `,"listing":`
	text, inner := render(l, s.cfg.Budget, len(open)+len(cb)+len(mid)+1)
	if inner == nil {
		return &answer{text: text}, nil
	}
	data := make(encoded, 0, len(open)+len(cb)+len(mid)+len(inner)+1)
	data = append(append(append(append(append(data, open...), cb...), mid...), inner...), '}')
	return &answer{text: text, data: data}, nil
}

// sortImpact orders places: the rest, then test code; each by file,
// line and column.
func sortImpact(items []item) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Test != b.Test {
			return !a.Test
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// impactRows groups the references among places by the symbol holding
// them (one row each, at the first) and counts them into c; other places
// are rows as they are. The order is places'. Places from index looked on
// had their symbols not looked up: their references are grouped by file,
// and counted neither as held by a symbol nor as at top level.
func impactRows(places []item, looked int, c *impactCounts) []item {
	type group struct {
		row   int
		sites []string
	}
	groups := map[[2]string]*group{}
	files, testFiles := map[string]bool{}, map[string]bool{}
	// others are the rows of other places by place: a place both an
	// implementation and a subtype is one row saying both.
	others := map[[3]any]int{}
	var rows []item
	for i, it := range places {
		if it.Label != referenceLabel {
			k := [3]any{it.File, it.Line, it.Column}
			if i, ok := others[k]; ok {
				rows[i].Label += ", " + it.Label
				continue
			}
			others[k] = len(rows)
			rows = append(rows, it)
			continue
		}
		c.References++
		files[it.File] = true
		if it.Test {
			c.TestReferences++
			testFiles[it.File] = true
		}
		if it.In == "" && i < looked {
			c.TopLevel++
		}
		at := fmt.Sprintf("%d:%d", it.Line, it.Column)
		k := [2]string{it.File, it.In}
		if g, ok := groups[k]; ok {
			g.sites = append(g.sites, at)
			continue
		}
		if it.In != "" {
			c.Symbols++
		}
		groups[k] = &group{row: len(rows), sites: []string{at}}
		rows = append(rows, it)
	}
	c.Files, c.TestFiles = len(files), len(testFiles)
	for _, g := range groups {
		rows[g.row].Label = referencesLabel(g.sites)
	}
	return rows
}

// referenceLabel marks the references among an impact answer's places
// until they are grouped.
const referenceLabel = "reference"

// referencesLabel says how many references a row stands for, and where
// they are (line:column), up to referencesShown of them.
func referencesLabel(sites []string) string {
	n := len(sites)
	if n == 1 {
		return "1 reference"
	}
	const referencesShown = 8
	more := ""
	if n > referencesShown {
		more = fmt.Sprintf(" and %d more", n-referencesShown)
		sites = sites[:referencesShown]
	}
	return fmt.Sprintf("%d references (%s%s)", n, strings.Join(sites, ", "), more)
}

func (c *impactCounts) referencesLine() string {
	if c.References == 0 {
		return "references: none"
	}
	var held []string
	if c.Symbols > 0 {
		held = append(held, "held by "+countOf(c.Symbols, "symbol"))
	}
	if c.TopLevel > 0 {
		held = append(held, fmt.Sprintf("%d at top level", c.TopLevel))
	}
	line := fmt.Sprintf("references: %d in %s: %s", c.References, countOf(c.Files, "file"), strings.Join(held, ", "))
	if c.TestReferences > 0 {
		line += fmt.Sprintf("; in test code: %d in %s", c.TestReferences, countOf(c.TestFiles, "file"))
	}
	return line
}

// walkLine says what a walk found: per depth for callers, the total for
// subtypes; and what it left out, which it adds to c.Unanswered.
func (c *impactCounts) walkLine(what string, w walked, depth int) string {
	var line string
	switch {
	case w.root == nil && w.err != nil:
		line = what + ": no answer (" + unanswered(w.err) + ")"
		c.Unanswered = append(c.Unanswered, line)
		return line
	case w.root == nil && what == "callers":
		return "callers: none (not a function or method)"
	case w.root == nil:
		return "subtypes: none (not a type)"
	case what == "callers":
		var per []string
		for d, n := range c.Callers {
			if n > 0 {
				per = append(per, fmt.Sprintf("%d at depth %d", n, d+1))
			}
		}
		line = "callers: " + cmp.Or(strings.Join(per, ", "), "none")
		if depth < impactMaxDepth && len(c.Callers) > 0 && c.Callers[depth-1] > 0 {
			line += fmt.Sprintf(" (walked %s up; depth up to %d walks further)", countOf(depth, "level"), impactMaxDepth)
		}
	default:
		line = fmt.Sprintf("subtypes: %d", len(w.nodes))
	}
	if w.cut {
		line += fmt.Sprintf(" (stopped at %d: the rest not asked)", impactMaxNodes)
	}
	if w.err != nil {
		part := "not all answered (" + unanswered(w.err) + ")"
		c.Unanswered = append(c.Unanswered, what+": "+part)
		line += "; " + part
	}
	return line
}

// unansweredMax bounds the server's words unanswered quotes.
const unansweredMax = 120

// unanswered says briefly why the server gave no answer: the first line
// of its error, cut to unansweredMax.
func unanswered(err error) string {
	return headOf(firstLine(err.Error()), unansweredMax)
}
