package component

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

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
	// outside are the paths of this answer outside the workspace, each
	// with why its line is not shown ("" when it is); readOut says lines
	// are read there for files of lang's language (outside.go).
	outside map[string]string
	readOut bool
	lang    *outsideLang
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
	if r.within(p) {
		d, _ = r.s.c.docs.readWith(p, r.infos[p])
	} else {
		// The standard library, dependencies: read only as outside.go's
		// rule allows, for answers that asked (readOutside).
		why := "outside the workspace"
		if r.readOut {
			d, why = r.outsideRead(p)
		}
		if r.outside == nil {
			r.outside = map[string]string{}
		}
		r.outside[p] = why
	}
	r.docs[p] = d
	return p, d
}

// readOutside makes the renderer show the lines of files outside the
// workspace that outside.go's rule allows for results of a call on from.
func (r *renderer) readOutside(from string) {
	r.readOut, r.lang = true, outsideLangOf(from)
}

// isOutside reports whether uri, placed already, names a file outside the
// workspace.
func (r *renderer) isOutside(uri string) bool {
	p, err := r.path(uri)
	if err != nil {
		return false
	}
	_, ok := r.outside[p]
	return ok
}

// outsideNotesMax is how many files outside the workspace notes name.
const outsideNotesMax = 3

// outsideNotes say, a note per file, why the files outside the workspace
// among items are shown without their lines: at most outsideNotesMax
// files, by name, and how many more.
func (r *renderer) outsideNotes(items []item) []string {
	shown := map[string]bool{}
	for _, it := range items {
		shown[it.File] = it.Outside
	}
	var why []string
	for p, w := range r.outside {
		if f := relPath(r.s.Root, p); w != "" && shown[f] {
			why = append(why, f+": line not shown: "+w)
		}
	}
	sort.Strings(why)
	if len(why) > outsideNotesMax {
		more := fmt.Sprintf("%d more files outside the workspace are shown without their lines", len(why)-outsideNotesMax)
		why = append(why[:outsideNotesMax], more)
	}
	return why
}

// place returns the relative path, 1-based line and column, and the line's
// text.
func (r *renderer) place(uri string, p position.Position) (string, int, int, string) {
	path, d := r.doc(uri)
	rel := relPath(r.s.Root, path)
	if d == nil {
		return rel, int(p.Line) + 1, int(p.Character) + 1, ""
	}
	line, col, err := d.ToUser(p, position.UTF16)
	if err != nil {
		return rel, int(p.Line) + 1, int(p.Character) + 1, ""
	}
	return rel, line, col, strings.TrimSpace(d.Line(line - 1))
}

func (r *renderer) loc(uri string, p position.Position) string {
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
	// Outside marks a file outside the session's workspace, shown by
	// path (absolute, unless a link in the workspace leads to it).
	Outside bool `json:"outside,omitempty"`
	// In is the symbol holding the place, its kind and qualified name
	// ("method (*Loader).Run"), from the file's document symbols
	// (enclosing.go); empty at the top level or when the server gave
	// none. It stays while items are listed: only the source line goes
	// first.
	In string `json:"in,omitempty"`
	// Test marks a file of test code (impact.go's testCode), in
	// impact's answer.
	Test bool `json:"test,omitempty"`
	// at is where the server placed it, for the enclosing lookup.
	at placed
}

// item places uri's position p as an item: its path, line and column,
// the source line, and where it is for the enclosing lookup.
func (r *renderer) item(uri string, p position.Position) item {
	rel, line, col, text := r.place(uri, p)
	return item{File: rel, Line: line, Column: col, Context: text, at: placed{uri, p}}
}

// outsideMark follows the name of a file outside the workspace in text
// answers, testMark that of a file of test code.
const (
	outsideMark = " (outside the workspace)"
	testMark    = " (test code)"
)

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
	// NotReady are the servers that had not loaded their project when
	// they answered: the list may be incomplete (readiness.go).
	NotReady []lspext.Readiness `json:"not_ready,omitempty"`
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
	mark := func(f string) string {
		switch first := groups[f][0]; {
		case first.Outside:
			return f + outsideMark
		case first.Test:
			return f + testMark
		}
		return f
	}
	// One file without a mark needs no heading: every line names it.
	headings := len(order) > 1 || len(order) == 1 && mark(order[0]) != order[0]
	switch level {
	case 0, 1:
		for _, f := range order {
			if headings {
				b.WriteString(mark(f) + "\n")
			}
			for _, it := range groups[f] {
				fmt.Fprintf(&b, "  %s:%d:%d", f, it.Line, it.Column)
				if it.In != "" {
					b.WriteString(" in " + it.In)
					if it.Label != "" {
						b.WriteByte(':')
					}
				}
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
			fmt.Fprintf(&b, "%s: %d\n", mark(f), len(groups[f]))
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// headOf returns s cut to at most n bytes on a character boundary, with
// "…" when cut.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeBoundary(s, n)] + "…"
}

// runeBoundary returns the largest i ≤ n (n < len(s)) at which s can be cut
// without splitting a character.
func runeBoundary(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
