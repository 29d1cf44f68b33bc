package component

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Location is one result place, LSP-native.
type Location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

// parseLocations reads Location | Location[] | LocationLink[] | null.
func parseLocations(raw json.RawMessage) ([]Location, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	type link struct {
		TargetURI            string    `json:"targetUri"`
		TargetSelectionRange *lspRange `json:"targetSelectionRange"`
		TargetRange          lspRange  `json:"targetRange"`
		URI                  string    `json:"uri"`
		Range                lspRange  `json:"range"`
	}
	var many []link
	if raw[0] == '{' {
		var one link
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		many = []link{one}
	} else if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		if l.TargetURI != "" {
			r := l.TargetRange
			if l.TargetSelectionRange != nil {
				r = *l.TargetSelectionRange
			}
			out = append(out, Location{URI: l.TargetURI, Range: r})
		} else {
			out = append(out, Location{URI: l.URI, Range: l.Range})
		}
	}
	return out, nil
}

// renderer turns LSP places into workspace-relative path:line:col with the
// source line, reading each file once and checking each path once: a
// workspace-symbol or diagnostics answer names the same few files many
// times. The check is the session's (symbolic links resolved), but a path
// none of whose elements is a link resolves to itself, and telling that
// takes one lstat per element, each directory looked at once per answer:
// the paths of an answer share most of their directories (the workspace's,
// the standard library's), which EvalSymlinks would look at again for
// every path, and paths beside the workspace are known for the session
// (the 13 paths of the bench's workspace-symbol answer took 110 lstats
// and 8 stats that way, 49 lstats this way the first time, 23 later).
type renderer struct {
	s      *Session
	docs   map[string]*position.Document
	inside map[string]bool
	// paths are the paths of the URIs seen, and the error of one that
	// names none.
	paths map[string]uriPath
	// dirs says whether a directory is one, not a link, and no link is
	// above it.
	dirs map[string]bool
	// infos are the lstats of the files inside that are no links, taken
	// by the check: the stat the document cache needs.
	infos map[string]os.FileInfo
}

type uriPath struct {
	path string
	err  error
}

// newRenderer returns a renderer for one answer. known are targets this
// call resolved inside the workspace already (and read, when their doc is
// set): the answer's places are mostly in them, and neither the check nor
// the read needs doing again.
func (s *Session) newRenderer(known ...*target) *renderer {
	r := &renderer{s: s, docs: map[string]*position.Document{}, inside: map[string]bool{}}
	for _, t := range known {
		if t == nil || t.path == "" {
			continue
		}
		r.inside[t.path] = true
		if t.doc != nil {
			r.docs[t.path] = t.doc
		}
	}
	return r
}

// path is edit.PathFromURI, once per URI for the life of this answer.
func (r *renderer) path(uri string) (string, error) {
	if p, ok := r.paths[uri]; ok {
		return p.path, p.err
	}
	p, err := edit.PathFromURI(uri)
	if r.paths == nil {
		r.paths = map[string]uriPath{}
	}
	r.paths[uri] = uriPath{p, err}
	return p, err
}

// within reports whether path is inside the session's workspace (the
// session's check), once per path for the life of this answer.
func (r *renderer) within(path string) bool {
	in, ok := r.inside[path]
	if ok {
		return in
	}
	foreign := r.foreign(path)
	var fi os.FileInfo
	switch {
	case foreign && r.s.foreign.has(path):
		in = false
	case r.unlinked(path, &fi):
		// Its own resolution: the check's verdict is the names' (the
		// Root is resolved).
		in = r.s.within(path)
		if in && fi.Mode().IsRegular() {
			if r.infos == nil {
				r.infos = map[string]os.FileInfo{}
			}
			r.infos[path] = fi
		}
		if foreign {
			r.s.foreign.add(path)
		}
	default:
		in = r.s.checkPath(path) == nil
	}
	r.inside[path] = in
	return in
}

// foreign reports whether path is beside the workspace: clean and
// absolute, neither in it nor above it (the standard library's files,
// dependencies). A link on such a path could only lead into the
// workspace, so a path seen with none is kept as outside for the
// session's later answers (Session.foreign): should a link appear on it
// later, its results are left out as outside, and nothing outside is ever
// read for being taken as inside. Paths in the workspace and above it
// are looked at anew for every answer: a link there could lead out.
func (r *renderer) foreign(path string) bool {
	return filepath.IsAbs(path) && filepath.Clean(path) == path && !r.s.within(path) && !r.s.holdsRoot(path)
}

// unlinked reports whether neither path nor any directory above it is a
// symbolic link, so that path is its own resolution, and sets *fi to
// path's lstat; false for a link, a missing element, a path not clean and
// absolute.
func (r *renderer) unlinked(path string, fi *os.FileInfo) bool {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || !r.realDir(filepath.Dir(path)) {
		return false
	}
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		return false
	}
	*fi = st
	return true
}

// realDir reports whether dir is a directory with no link on its way
// from the file system's root, looking at each directory once per answer
// (and at one beside the workspace once per session).
func (r *renderer) realDir(dir string) bool {
	if ok, seen := r.dirs[dir]; seen {
		return ok
	}
	parent := filepath.Dir(dir)
	foreign := parent != dir && r.foreign(dir)
	ok := parent == dir || foreign && r.s.foreign.has(dir) // the file system's root, or known
	if !ok && parent != dir && r.realDir(parent) {
		fi, err := os.Lstat(dir)
		ok = err == nil && fi.IsDir()
		if ok && foreign {
			r.s.foreign.add(dir)
		}
	}
	if r.dirs == nil {
		r.dirs = map[string]bool{}
	}
	r.dirs[dir] = ok
	return ok
}

// plainPaths is a set of paths seen with no link on them, bounded: at
// plainPathsMax entries it starts over. Safe for concurrent use.
type plainPaths struct {
	mu sync.Mutex
	m  map[string]struct{}
}

const plainPathsMax = 4096

func (p *plainPaths) has(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.m[path]
	return ok
}

func (p *plainPaths) add(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil || len(p.m) >= plainPathsMax {
		p.m = map[string]struct{}{}
	}
	p.m[path] = struct{}{}
}

func (r *renderer) doc(uri string) (string, *position.Document) {
	p, err := r.path(uri)
	if err != nil {
		return uri, nil
	}
	if d, ok := r.docs[p]; ok {
		return p, d
	}
	var d *position.Document
	// Files outside the workspace (the standard library, dependencies) are
	// shown by path, never read.
	if r.within(p) {
		d, _ = r.s.c.docs.readWith(p, r.infos[p])
	}
	r.docs[p] = d
	return p, d
}

// place returns the relative path, 1-based line and column, and the line's
// text.
func (r *renderer) place(uri string, p lspPosition) (string, int, int, string) {
	path, d := r.doc(uri)
	rel := relPath(r.s.Root, path)
	if d == nil {
		return rel, int(p.Line) + 1, int(p.Character) + 1, ""
	}
	line, col, err := d.ToUser(position.Position(p), position.UTF16)
	if err != nil {
		return rel, int(p.Line) + 1, int(p.Character) + 1, ""
	}
	return rel, line, col, strings.TrimSpace(d.Line(line - 1))
}

func (r *renderer) loc(uri string, p lspPosition) string {
	rel, l, c, _ := r.place(uri, p)
	return fmt.Sprintf("%s:%d:%d", rel, l, c)
}

// item is one rendered result.
type item struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Label is what the item is (a symbol's kind and name, a diagnostic's
	// severity and message); empty for plain locations.
	Label   string `json:"label,omitempty"`
	Context string `json:"context,omitempty"`
}

// listing is a paged, budgeted list of items grouped by file. Encoded, it
// is the answer's structuredContent (diagnostics': its "listing"), as
// render cuts it: the same page and the same shortening as the text, no
// more.
type listing struct {
	Title  string `json:"title"`
	Total  int    `json:"total"`
	Offset int    `json:"offset"`
	// Shown is how many results from Offset on the answer covers: listed
	// in Items (forms full and no_context), counted per file in Files
	// (counts) or only numbered (total).
	Shown int `json:"shown"`
	// Form is how far the answer was shortened to fit the budget, one of
	// forms.
	Form  string `json:"form"`
	Items []item `json:"items"`
	// Files are the per-file counts of the counts form.
	Files []fileCount `json:"files,omitempty"`
	// FileCount is how many files the shown results are in, in the
	// forms that do not list them (counts, total).
	FileCount int      `json:"file_count,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	NextPage  int      `json:"next_offset,omitempty"`
	// Truncated says the answer leaves something out: results of a later
	// page, or what a shortened form drops (source lines, the items).
	Truncated bool `json:"truncated"`
}

type fileCount struct {
	File  string `json:"file"`
	Count int    `json:"count"`
}

// forms name render's levels of shortening, in order, for a listing's
// Form.
var forms = [...]string{"full", "no_context", "counts", "total"}

// window is the page in's offset and limit ask for among n results:
// results off to end.
func window(in Input, n int) (off, end int) {
	off = min(max(in.Offset, 0), n)
	lim := in.Limit
	if lim <= 0 {
		lim = DefaultPageSize // call fills Limit from the session's PageSize first
	}
	// off+lim could overflow for a huge limit: the rest is what can be.
	return off, off + min(lim, n-off)
}

// page cuts items to the requested window and notes what was left.
func page(in Input, items []item, l *listing) {
	l.Total = len(items)
	off, end := window(in, len(items))
	l.Offset = off
	l.Items = items[off:end]
	if end < len(items) {
		l.NextPage = end
	}
}

// dataBudget is the most bytes an answer's structuredContent may take in
// JSON for an output budget of budget: twice it. Clients decode it, and
// some hand it to the model beside the text, so it is bounded as the text
// is, with room for what JSON adds to the same content: each item's field
// names, and escapes (json.Marshal writes a quote as two bytes, < or a
// control character as six). A page of source lines or symbols that fits
// the budget as text takes well under twice it as JSON; what does not
// (pages far longer than tool.page_size, text made of escapes) is
// shortened further, text and data alike.
func dataBudget(budget int) int { return 2 * budget }

// render writes l within budget, shortening progressively: full, without
// context lines, per-file counts, the total alone. The note says what was
// cut. It also encodes l for structuredContent at the same level, so a
// program reads what the model reads; a level is taken only when that
// JSON, with reserve bytes the caller wraps around it, fits dataBudget as
// well, else both text and data go one level shorter. The last level lists
// no result: neither its text nor its data grows with their number, only
// with the title, the notes and the detail both show.
func render(l *listing, budget, reserve int) (string, encoded) {
	for level := range len(forms) {
		last := level == len(forms)-1
		text := renderLevel(l, level)
		if len(text) > budget && !last {
			continue
		}
		data, err := json.Marshal(l.at(level))
		if err != nil {
			return text, nil // strings and numbers only: it cannot fail
		}
		if len(data)+reserve > dataBudget(budget) && !last {
			continue
		}
		return text, data
	}
	panic("unreachable")
}

// at returns l as structuredContent shows it at render's level: the
// items the text lists, with their source lines only at level 0, the
// per-file counts at level 2, the number of files at levels 2 and 3, and
// what was cut.
func (l *listing) at(level int) *listing {
	v := *l
	v.Form = forms[level]
	v.Shown = len(l.Items)
	v.Truncated = level > 0 || l.NextPage > 0
	if level >= 2 {
		groups, order := groupByFile(l.Items)
		v.FileCount = len(order)
		if level == 2 {
			v.Files = make([]fileCount, len(order))
			for i, f := range order {
				v.Files[i] = fileCount{f, len(groups[f])}
			}
		}
	}
	switch level {
	case 0:
		if v.Items == nil {
			v.Items = []item{} // [], not null, for an empty page
		}
	case 1:
		v.Items = make([]item, len(l.Items))
		for i, it := range l.Items {
			it.Context = ""
			v.Items[i] = it
		}
	default:
		v.Items = []item{}
	}
	return &v
}

func renderLevel(l *listing, level int) string {
	var b strings.Builder
	header := fmt.Sprintf("%s: %d", l.Title, l.Total)
	switch {
	case len(l.Items) == 0 && l.Offset > 0:
		header += fmt.Sprintf(" (none shown: offset %d is past the last one)", l.Offset)
	case l.Offset > 0 || l.NextPage > 0:
		header += fmt.Sprintf(" (showing %d-%d)", l.Offset+1, l.Offset+len(l.Items))
	}
	b.WriteString(header + "\n")
	if l.Detail != "" {
		b.WriteString(l.Detail + "\n")
	}
	groups, order := groupByFile(l.Items)
	switch level {
	case 0, 1:
		for _, f := range order {
			b.WriteString(f + "\n")
			for _, it := range groups[f] {
				fmt.Fprintf(&b, "  %s:%d:%d", f, it.Line, it.Column)
				if it.Label != "" {
					b.WriteString(" " + it.Label)
				}
				b.WriteByte('\n')
				if level == 0 && it.Context != "" {
					b.WriteString("    " + it.Context + "\n")
				}
			}
		}
		if level == 1 {
			b.WriteString("note: source lines left out to fit the output budget\n")
		}
	case 2:
		for _, f := range order {
			fmt.Fprintf(&b, "%s: %d\n", f, len(groups[f]))
		}
		b.WriteString("note: only counts per file fit the output budget; narrow with file, kind or limit\n")
	case 3:
		fmt.Fprintf(&b, "note: %d results in %d files do not fit the output budget; narrow with file, kind or a smaller limit\n", len(l.Items), len(order))
	}
	for _, n := range l.Notes {
		b.WriteString("note: " + n + "\n")
	}
	if l.NextPage > 0 {
		fmt.Fprintf(&b, "note: more results: call again with offset=%d\n", l.NextPage)
	}
	return b.String()
}

func groupByFile(items []item) (map[string][]item, []string) {
	groups := map[string][]item{}
	var order []string
	for _, it := range items {
		if _, ok := groups[it.File]; !ok {
			order = append(order, it.File)
		}
		groups[it.File] = append(groups[it.File], it)
	}
	return groups, order
}

func (s *Session) renderLocations(ctx context.Context, in Input, title string, locs []Location, context bool, known *target) *answer {
	r := s.newRenderer(known)
	items := make([]item, 0, len(locs))
	for _, l := range locs {
		rel, line, col, text := r.place(l.URI, l.Range.Start)
		it := item{File: rel, Line: line, Column: col}
		if context {
			it.Context = text
		}
		items = append(items, it)
	}
	sortItems(items)
	l := &listing{Title: title}
	page(in, items, l)
	if l.Total == 0 {
		l.Notes = append(l.Notes, "the server found nothing at this position (check line and symbol; during indexing try again)")
		if n := s.c.emptyNote(ctx); n != "" {
			l.Notes = append(l.Notes, n)
		}
	}
	return s.listed(l)
}

// listed is the answer for l: its text and its structuredContent, cut
// alike to the budget.
func (s *Session) listed(l *listing) *answer {
	text, data := render(l, s.cfg.Budget, 0)
	return &answer{text: text, data: data}
}

func sortItems(items []item) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// sortByFirstFile groups items by file, files in the order of their first
// item, and orders each file's items by position.
func sortByFirstFile(items []item) {
	rank := map[string]int{}
	for i, it := range items {
		if _, ok := rank[it.File]; !ok {
			rank[it.File] = i
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.File != b.File {
			return rank[a.File] < rank[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// dataReserve is the room fitText leaves in the data budget for the
// fields of a text answer's structuredContent besides the text.
const dataReserve = 256

// fitText cuts text to the budget for an answer whose structuredContent
// holds that text too: shown is the part of text the answer shows (all of
// it when nothing is cut), out the answer's text, shown followed by a note
// saying what was cut. The cut keeps out within the budget and shown,
// encoded as a JSON string, within the data budget less dataReserve.
func (s *Session) fitText(text string) (out, shown string) {
	room := max(dataBudget(s.cfg.Budget)-dataReserve, 0)
	if len(text) <= s.cfg.Budget && jsonPrefix(text, room) == len(text) {
		return text, text
	}
	// The note takes up to 80 characters; a budget smaller than that
	// (possible through the Go API only: the configuration file's floor is
	// 256) leaves the note alone.
	cut := min(max(s.cfg.Budget-80, 0), len(text))
	if cut < len(text) {
		cut = runeBoundary(text, cut)
	}
	cut = jsonPrefix(text[:cut], room)
	return text[:cut] + fmt.Sprintf("\nnote: cut at %d of %d characters to fit the output budget\n", cut, len(text)), text[:cut]
}

// jsonPrefix returns the length of the longest prefix of text, cut
// between characters, that json.Marshal encodes in at most room bytes
// inside a string's quotes, counting what it escapes at its longest: a
// quote, a backslash, \n, \r and \t take two bytes, another control
// character, <, >, &, U+2028, U+2029 and an invalid byte (written
// \ufffd) six.
func jsonPrefix(text string, room int) int {
	n := 0
	for i := 0; i < len(text); {
		c, w, size := text[i], 1, 1
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			w = 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			w = 6
		case c >= utf8.RuneSelf:
			r, sz := utf8.DecodeRuneInString(text[i:])
			w, size = sz, sz
			if r == utf8.RuneError && sz == 1 || r == '\u2028' || r == '\u2029' {
				w = 6
			}
		}
		if n+w > room {
			return i
		}
		n, i = n+w, i+size
	}
	return len(text)
}

// textAnswer is the answer made of text alone, with data as its
// structuredContent: data itself while the text is shown whole and data's
// JSON fits the data budget; else, so that a program reads what the model
// reads, the text shown under key, "truncated", the whole text's "length"
// in bytes, and the fields of keep.
func (s *Session) textAnswer(text string, data any, key string, keep map[string]any) *answer {
	out, shown := s.fitText(text)
	if len(shown) == len(text) {
		if b, err := json.Marshal(data); err == nil && len(b) <= dataBudget(s.cfg.Budget) {
			return &answer{text: out, data: encoded(b)}
		}
	}
	cut := map[string]any{key: shown, "truncated": true, "length": len(text)}
	maps.Copy(cut, keep)
	return &answer{text: out, data: cut}
}

// hoverText reads MarkupContent | MarkedString | MarkedString[].
func hoverText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	return strings.TrimSpace(markupText(h.Contents))
}

func markupText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &mc) == nil {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, p := range list {
			parts = append(parts, markupText(p))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum_member", "struct", "event", "operator", "type_parameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind%d", k)
}

func kindMatches(filter string, k int) bool {
	if filter == "" {
		return true
	}
	f := strings.ReplaceAll(strings.ToLower(filter), " ", "_")
	return kindName(k) == f || kindName(k) == strings.ReplaceAll(f, "typeparameter", "type_parameter")
}

type symbolInfo struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	ContainerName string   `json:"containerName"`
	Location      Location `json:"location"`
}

func (s *Session) workspaceSymbols(ctx context.Context, query string) ([]symbolInfo, error) {
	raw, err := s.request(ctx, "", "workspace/symbol", map[string]string{"query": query})
	if err != nil {
		return nil, err
	}
	var syms []symbolInfo
	if len(raw) > 0 && string(raw) != "null" {
		// encoding/json's semantics on go-json-experiment's engine
		// (built in already, for go.lsp.dev/protocol): this answer is the
		// largest a tool call decodes (13 KB for 44 symbols on the bench's
		// workspace), and this decodes it in less than half the time.
		if err := jsonv1.Unmarshal(raw, &syms); err != nil {
			return nil, fmt.Errorf("workspace symbols: malformed answer: %w", err)
		}
	}
	return syms, nil
}

type docSymbol struct {
	Name           string      `json:"name"`
	Detail         string      `json:"detail"`
	Kind           int         `json:"kind"`
	Range          lspRange    `json:"range"`
	SelectionRange lspRange    `json:"selectionRange"`
	Children       []docSymbol `json:"children"`
	// SymbolInformation form.
	Location *Location `json:"location"`
}

func (s *Session) symbols(ctx context.Context, in Input) (*answer, error) {
	r := s.newRenderer()
	var items []item
	outside := 0
	title := "symbols"
	if in.Query != "" || in.File == "" {
		if in.Query == "" {
			return nil, fmt.Errorf("symbols needs file (its symbols) or query (search the workspace)")
		}
		syms, err := s.workspaceSymbols(ctx, in.Query)
		if err != nil {
			return nil, err
		}
		title = fmt.Sprintf("workspace symbols matching %q", in.Query)
		for _, sym := range syms {
			if !kindMatches(in.Kind, sym.Kind) {
				continue
			}
			p, err := r.path(sym.Location.URI)
			if err != nil || !r.within(p) {
				outside++ // dependencies, the standard library
				continue
			}
			rel, line, col, _ := r.place(sym.Location.URI, sym.Location.Range.Start)
			items = append(items, item{File: rel, Line: line, Column: col, Label: symbolLabel(sym)})
		}
		// Servers rank workspace symbols by how well they match: files
		// keep the order of their best match, so the first file listed
		// holds what the model most likely asked for.
		sortByFirstFile(items)
	} else {
		path, err := s.resolve(in.File)
		if err != nil {
			return nil, err
		}
		uri := edit.URIFromPath(path)
		raw, err := s.request(ctx, uri, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}})
		if err != nil {
			return nil, err
		}
		var syms []docSymbol
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &syms); err != nil {
				return nil, fmt.Errorf("document symbols: malformed answer: %w", err)
			}
		}
		title = "symbols in " + relPath(s.Root, path)
		var walk func([]docSymbol, string)
		walk = func(list []docSymbol, prefix string) {
			for _, sym := range list {
				start, u := sym.SelectionRange.Start, uri
				if sym.Location != nil {
					start, u = sym.Location.Range.Start, sym.Location.URI
				}
				if kindMatches(in.Kind, sym.Kind) {
					rel, line, col, _ := r.place(u, start)
					label := prefix + kindName(sym.Kind) + " " + sym.Name
					if sym.Detail != "" {
						label += " " + firstLine(sym.Detail)
					}
					items = append(items, item{File: rel, Line: line, Column: col, Label: label})
				}
				walk(sym.Children, prefix+"  ")
			}
		}
		walk(syms, "")
	}
	l := &listing{Title: title}
	page(in, items, l)
	if outside > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d more outside the workspace (dependencies) left out", outside))
	}
	if l.Total == 0 && in.Kind != "" {
		l.Notes = append(l.Notes, fmt.Sprintf("nothing of kind %q; call again without kind to see every symbol", in.Kind))
	}
	if l.Total == 0 {
		if n := s.c.emptyNote(ctx); n != "" {
			l.Notes = append(l.Notes, n)
		}
	}
	return s.listed(l), nil
}

// symbolLabel is a workspace symbol's kind and name, and its container
// when the name does not say it already: gopls qualifies a name with its
// package's path when the query matched there
// ("example.com/m/checker_test.TestCheck") and names the same path as the
// container, which said twice cost a third of a long answer's text.
func symbolLabel(sym symbolInfo) string {
	label := kindName(sym.Kind) + " " + sym.Name
	if c := sym.ContainerName; c != "" && !strings.HasPrefix(sym.Name, c+".") {
		label += " (in " + c + ")"
	}
	return label
}

type hierItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          lspRange        `json:"range"`
	SelectionRange lspRange        `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

func (s *Session) prepare(ctx context.Context, in Input, method string) (*target, []json.RawMessage, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	raw, err := s.request(ctx, t.uri, method, textDocPos(t))
	if err != nil {
		return nil, nil, err
	}
	var items []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, fmt.Errorf("%s: malformed answer: %w", method, err)
		}
	}
	if len(items) == 0 {
		err := fmt.Errorf("no callable or type at %s (give the line and symbol of a declaration or a use)", s.newRenderer().loc(t.uri, lspPosition(t.pos)))
		if n := s.c.emptyNote(ctx); n != "" {
			err = fmt.Errorf("%w\nnote: %s", err, n)
		}
		return nil, nil, err
	}
	return t, items, nil
}

func (s *Session) callHierarchy(ctx context.Context, in Input) (*answer, error) {
	dir := cmp.Or(in.Direction, "incoming")
	if dir != "incoming" && dir != "outgoing" {
		return nil, fmt.Errorf("direction must be incoming or outgoing, not %q", dir)
	}
	t, prepared, err := s.prepare(ctx, in, "textDocument/prepareCallHierarchy")
	if err != nil {
		return nil, err
	}
	r := s.newRenderer()
	var items []item
	for _, p := range prepared {
		raw, err := s.c.backend.Request(ctx, t.uri, "callHierarchy/"+dir+"Calls", json.RawMessage(`{"item":`+string(p)+`}`))
		if err != nil {
			return nil, err
		}
		var calls []struct {
			From       *hierItem  `json:"from"`
			To         *hierItem  `json:"to"`
			FromRanges []lspRange `json:"fromRanges"`
		}
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &calls); err != nil {
				return nil, fmt.Errorf("call hierarchy: malformed answer: %w", err)
			}
		}
		for _, c := range calls {
			h := c.From
			if dir == "outgoing" {
				h = c.To
			}
			if h == nil {
				continue
			}
			rel, line, col, text := r.place(h.URI, h.SelectionRange.Start)
			items = append(items, item{File: rel, Line: line, Column: col, Label: kindName(h.Kind) + " " + h.Name, Context: text})
		}
	}
	sortItems(items)
	title := "callers"
	if dir == "outgoing" {
		title = "callees"
	}
	l := &listing{Title: title}
	page(in, items, l)
	if l.Total == 0 {
		if n := s.c.emptyNote(ctx); n != "" {
			l.Notes = append(l.Notes, n)
		}
	}
	return s.listed(l), nil
}

func (s *Session) typeHierarchy(ctx context.Context, in Input) (*answer, error) {
	dir := cmp.Or(in.Direction, "supertypes")
	if dir != "supertypes" && dir != "subtypes" {
		return nil, fmt.Errorf("direction must be supertypes or subtypes, not %q", dir)
	}
	t, prepared, err := s.prepare(ctx, in, "textDocument/prepareTypeHierarchy")
	if err != nil {
		return nil, err
	}
	r := s.newRenderer()
	var items []item
	for _, p := range prepared {
		raw, err := s.c.backend.Request(ctx, t.uri, "typeHierarchy/"+dir, json.RawMessage(`{"item":`+string(p)+`}`))
		if err != nil {
			return nil, err
		}
		var hs []hierItem
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &hs); err != nil {
				return nil, fmt.Errorf("type hierarchy: malformed answer: %w", err)
			}
		}
		for _, h := range hs {
			rel, line, col, text := r.place(h.URI, h.SelectionRange.Start)
			items = append(items, item{File: rel, Line: line, Column: col, Label: kindName(h.Kind) + " " + h.Name, Context: text})
		}
	}
	sortItems(items)
	l := &listing{Title: dir}
	page(in, items, l)
	if l.Total == 0 {
		if n := s.c.emptyNote(ctx); n != "" {
			l.Notes = append(l.Notes, n)
		}
	}
	return s.listed(l), nil
}

func renderServers(action string, infos []lspext.ServerInfo) string {
	if len(infos) == 0 {
		return "no language server handles this workspace (or file); see acp-lsp's configuration"
	}
	var b strings.Builder
	var busy []string
	for _, i := range infos {
		if i.State == "starting" || i.State == "indexing" {
			busy = append(busy, i.Name)
		}
		fmt.Fprintf(&b, "%s (%s)", i.Name, i.Source)
		if i.State != "" {
			b.WriteString(" " + i.State)
		}
		if len(i.Languages) > 0 {
			b.WriteString(" languages=" + strings.Join(i.Languages, ","))
		}
		if action == "status" {
			if i.Root != "" {
				b.WriteString(" root=" + i.Root)
			}
			if i.PID != 0 {
				fmt.Fprintf(&b, " pid=%d", i.PID)
			}
			if i.RSS != 0 {
				fmt.Fprintf(&b, " rss=%dMB", i.RSS>>20)
			}
			if i.LastError != "" {
				b.WriteString(" last_error=" + i.LastError)
			}
		}
		b.WriteByte('\n')
		if action == "capabilities" && len(i.Capabilities) > 0 {
			var caps map[string]json.RawMessage
			if json.Unmarshal(i.Capabilities, &caps) == nil {
				b.WriteString("  " + strings.Join(slices.Sorted(maps.Keys(caps)), " ") + "\n")
			}
		}
	}
	if len(busy) > 0 {
		fmt.Fprintf(&b, "note: %s still loading the project: answers may be missing until ready (an empty answer from them is not final)\n", strings.Join(busy, ", "))
	}
	return b.String()
}

// diagnostics answers for one file, a glob or the workspace, with a
// verdict per server.
func (s *Session) diagnostics(ctx context.Context, in Input) (*answer, error) {
	minSev := 2
	switch in.Severity {
	case "error":
		minSev = 1
	case "", "warning":
	case "info", "information":
		minSev = 3
	case "hint", "all":
		minSev = 4
	default:
		return nil, fmt.Errorf("severity must be error, warning, info or hint, not %q", in.Severity)
	}
	var uris []string
	var globCut string
	var known *target
	scope := "the workspace"
	switch {
	case in.File == "" || in.File == "*":
	case strings.ContainsAny(in.File, "*?["):
		matches, err := s.glob(ctx, in.File)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no file in the workspace matches %q", in.File)
		}
		if len(matches) > maxGlobFiles {
			matches = matches[:maxGlobFiles]
			globCut = fmt.Sprintf("more than %d files match %s: only the first %d were checked (the others are NOT known to be clean); narrow the glob", maxGlobFiles, in.File, maxGlobFiles)
		}
		for _, m := range matches {
			uris = append(uris, edit.URIFromPath(m))
		}
		scope = fmt.Sprintf("%d files matching %s", len(uris), in.File)
	default:
		p, exists, err := s.resolveExists(in.File)
		if err != nil {
			return nil, err
		}
		if !exists {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("diagnostics: %w", err)
			}
		}
		uris = []string{edit.URIFromPath(p)}
		scope = relPath(s.Root, p)
		known = &target{path: p}
	}
	rep, err := s.c.backend.DiagnosticReport(ctx, uris, s.cfg.DiagnosticsWait)
	if err != nil {
		return nil, err
	}
	decoded := s.c.store(rep)
	r := s.newRenderer(known)
	var items []item
	hidden := 0
	for i, f := range rep.Files {
		p, err := edit.PathFromURI(f.URI)
		if err != nil || !r.within(p) {
			continue
		}
		diags, err := decoded[i].diags, decoded[i].err
		if err != nil {
			return nil, fmt.Errorf("diagnostics of %s: malformed answer: %w", f.URI, err)
		}
		for _, d := range diags {
			sev := cmp.Or(d.Severity, 1)
			if sev > minSev {
				hidden++
				continue
			}
			rel, line, col, text := r.place(f.URI, d.Range.Start)
			label := severityName(sev) + ": " + firstLine(d.Message)
			var tags []string
			if d.Source != "" {
				tags = append(tags, d.Source)
			}
			if c := codeString(d.Code); c != "" {
				tags = append(tags, c)
			}
			if len(tags) > 0 {
				label += " [" + strings.Join(tags, " ") + "]"
			}
			items = append(items, item{File: rel, Line: line, Column: col, Label: label, Context: text})
		}
	}
	sortItems(items)
	l := &listing{Title: "diagnostics for " + scope}
	page(in, items, l)
	fresh := false
	var verdicts []string
	for _, v := range rep.Servers {
		line := v.Server + ": " + v.Verdict
		if v.Detail != "" {
			line += " (" + v.Detail + ")"
		}
		verdicts = append(verdicts, line)
		if v.Verdict == lspext.VerdictFresh {
			fresh = true
		}
		if v.Verdict == lspext.VerdictIndexing {
			l.Notes = append(l.Notes, v.Server+" is still loading the project: its diagnostics are missing or incomplete; check again in a few seconds")
		}
		if v.Verdict == lspext.VerdictStarting {
			l.Notes = append(l.Notes, v.Server+" is still starting: it has not checked these files yet; check again in a few seconds")
		}
	}
	if len(verdicts) == 0 {
		verdicts = []string{"no language server answered for these files"}
	}
	l.Detail = "servers: " + strings.Join(verdicts, "; ")
	if hidden > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d less severe diagnostics hidden (severity=%s)", hidden, cmp.Or(in.Severity, "warning")))
	}
	if globCut != "" {
		l.Notes = append(l.Notes, globCut)
	}
	if l.Total > 0 && !fresh {
		l.Notes = append(l.Notes, "no server answered fresh for the current content: these may be outdated (fixed already, or not yet reported); check again")
	}
	if l.Total == 0 {
		if fresh {
			l.Notes = append(l.Notes, "no problems: the servers marked fresh checked the current content")
		} else {
			l.Notes = append(l.Notes, "no diagnostics received, but NO server answered fresh for the current content: this is not a clean bill of health; try again")
		}
	}
	// {"listing":…,"servers":…} as json.Marshal writes the map it was,
	// the listing cut with the text and the servers' verdicts beside it.
	servers, err := json.Marshal(rep.Servers)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: encode verdicts: %w", err)
	}
	const open, mid = `{"listing":`, `,"servers":`
	text, inner := render(l, s.cfg.Budget, len(open)+len(mid)+len(servers)+1)
	if inner == nil {
		return &answer{text: text}, nil
	}
	data := make(encoded, 0, len(open)+len(inner)+len(mid)+len(servers)+1)
	data = append(append(append(append(append(data, open...), inner...), mid...), servers...), '}')
	return &answer{text: text, data: data}, nil
}

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
