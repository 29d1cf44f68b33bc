package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// CheckReport is the answer of Manager.Check: the file's diagnostics on
// disk (Before) and with the edit (After), and what the edit adds and
// removes.
type CheckReport struct {
	Before, After FileDiagnostics
	// Added and Removed are LSP Diagnostic arrays ("[]" when none):
	// those of After not in Before and those of Before not in After,
	// matched across the edit (diagMatch: same severity, code and source,
	// and the same message at the same place once mapped through the
	// edit, the edit's word replacements applied to it; else the same
	// message anywhere). Only meaningful when both verdicts are Fresh.
	Added, Removed json.RawMessage
	// Other: the file is not in the edit; the server reported on it
	// while it held the edit (an edit of one file breaking a use in
	// another). Before is what the server last said of it on the disk's
	// content ("[]" when it had said nothing), After its report during
	// the check.
	Other bool `json:",omitempty"`
}

// CheckEditReport is the answer of Manager.CheckEdit: a CheckReport per
// edited file, in the order of their paths, then one per other file whose
// diagnostics the edit changed (CheckReport.Other).
type CheckEditReport struct {
	Files []CheckReport
}

// Check returns the diagnostics text would have as the content of path,
// without writing the disk: CheckEdit of that one file, without the
// other files' reports.
func (m *Manager) Check(ctx context.Context, path, text string, opts DiagnosticsOptions) (CheckReport, error) {
	rep, err := m.CheckEdit(ctx, map[string]string{path: text}, opts)
	return rep.Files[0], err
}

// CheckEdit returns the diagnostics files (path → new content) would have
// together, without writing the disk: per server process, every file's
// new content goes to the server as an unsaved version of the document
// (opened from disk first when it was not open, and closed after; a file
// not on disk, which the edit creates, is opened with its new content,
// having had no diagnostics, and closed after), the diagnostics of each
// for that version are collected with the freshness rules of
// Diagnostics, as are the reports the server makes meanwhile on files
// not in the edit, and the disk's content is sent back as new versions.
// Nothing else sees the edit: a check holds the process exclusively
// (regular requests wait for it and then see the disk's content), the
// server's reports during it are stored for no one else and told to no
// subscriber, a late report on a checked version is dropped, and so are
// the reports on the files held after it (proc.holdReported). Diagnostics
// are matched across the edit (diagMatch). Processes are checked one after
// another, never two held at once. Verdicts are as for Diagnostics: a
// timeout is never "no diagnostics". It returns an error only when the
// Manager is closed.
func (m *Manager) CheckEdit(ctx context.Context, files map[string]string, opts DiagnosticsOptions) (CheckEditReport, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	reps := make([]CheckReport, len(paths))
	type group struct {
		s   *server
		idx []int
		abs []string
	}
	var groups []*group
	for i, path := range paths {
		reps[i] = CheckReport{Added: json.RawMessage("[]"), Removed: json.RawMessage("[]")}
		fd := FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]")}
		abs, s, err := m.resolve(path)
		if err != nil {
			fd = unresolved(fd, err)
			reps[i].Before, reps[i].After = fd, fd
			continue
		}
		reps[i].Before = FileDiagnostics{Path: abs, URI: edit.URIFromPath(abs), Server: s.cfg.Name, Diagnostics: json.RawMessage("[]")}
		k := slices.IndexFunc(groups, func(g *group) bool { return g.s == s })
		if k < 0 {
			groups = append(groups, &group{s: s})
			k = len(groups) - 1
		}
		groups[k].idx = append(groups[k].idx, i)
		groups[k].abs = append(groups[k].abs, abs)
	}
	var others []CheckReport
	for _, g := range groups {
		texts := make([]string, len(g.idx))
		out := make([]*CheckReport, len(g.idx))
		for j, i := range g.idx {
			texts[j], out[j] = files[paths[i]], &reps[i]
		}
		others = append(others, m.checkOn(ctx, g.s, g.abs, texts, out, opts)...)
	}
	return CheckEditReport{Files: append(reps, others...)}, m.closedErr()
}

// checkOn checks the files abs (new contents texts) that server s serves,
// filling out (whose Before holds each file's path, URI and server), and
// returns the reports on other files whose diagnostics changed.
func (m *Manager) checkOn(ctx context.Context, s *server, abs, texts []string, out []*CheckReport, opts DiagnosticsOptions) []CheckReport {
	s.begin()
	defer s.end()
	settle := m.settleOf(opts)
	wait := max(s.diagnosticsWait(opts), 0)
	bctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	p, err := s.ensure(bctx)
	if err != nil {
		for _, r := range out {
			r.Before = startVerdict(r.Before, err)
			r.After = r.Before
		}
		return nil
	}
	m.syncDiskQuiet()
	if !p.viewMu.TryLock() {
		// Requests in flight hold it: the check waits for their answers
		// (said to tests, which order a request against a check).
		if m.checkWaits != nil {
			m.checkWaits()
		}
		p.viewMu.Lock()
	}
	defer p.viewMu.Unlock()
	var ds []document
	var dtexts []string
	var dout []*CheckReport
	for j, path := range abs {
		// A peek: a file the check opened is closed after it.
		d, err := p.syncFor(path, usePeek)
		if errors.Is(err, fs.ErrNotExist) {
			// The edit creates it: no diagnostics before, and the server
			// gets it as an unsaved document (version 0 here: none
			// synced), closed after.
			out[j].Before.Verdict = Fresh
			d = document{path: path, uri: edit.URIFromPath(path)}
			ds, dtexts, dout = append(ds, d), append(dtexts, texts[j]), append(dout, out[j])
			continue
		}
		if err != nil {
			out[j].Before.Verdict, out[j].Before.Detail = Failed, err.Error()
			out[j].After = out[j].Before
			continue
		}
		defer p.unpeek(path)
		out[j].Before = s.diagnostics(bctx, p, d, settle)
		ds, dtexts, dout = append(ds, d), append(dtexts, texts[j]), append(dout, out[j])
	}
	if len(ds) == 0 {
		return nil
	}
	if len(p.advertisedPulls()) == 0 {
		// The reports on other files that the disk's content brought
		// are the check's "before": let them in first.
		p.settled(bctx, settle)
	}
	// What the edit changed, for matching diagnostics across it: the
	// disk's content (as the server has it) against the checked one.
	reps := replacements{}
	emaps := make([]*editMap, len(ds))
	p.mu.Lock()
	for j, d := range ds {
		if doc := p.docs[d.path]; doc != nil || d.version == 0 {
			before := ""
			if doc != nil {
				before = doc.text.Text()
			}
			emaps[j] = newEditMap(before, dtexts[j], reps)
		}
	}
	p.mu.Unlock()
	actx, cancel2 := context.WithTimeout(ctx, wait)
	defer cancel2()
	afters, others := p.checkTexts(actx, s, ds, dtexts, settle, reps, m.checkSent)
	for j, r := range dout {
		r.After = afters[j]
		if r.Before.Verdict == Fresh && r.After.Verdict == Fresh && emaps[j] != nil {
			r.Added, r.Removed = diagMatch(r.Before.Diagnostics, r.After.Diagnostics, emaps[j], reps)
		}
	}
	return others
}

func (m *Manager) closedErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// checked is one document during a check: what to put back after it.
type checked struct {
	d        document // as synced from disk (version 0: not on disk)
	doc      *document
	at       document // the checked version
	diskText *position.Document
	pull     map[string]pullState
	entry    diagEntry
	had      bool
	sent     bool
}

// checkTexts sends texts as new versions of the synced documents ds, waits
// for their diagnostics and sends the disk's text each holds back, with
// syncMu held throughout (viewMu is held by the caller). It returns each
// document's diagnostics and the reports on other files whose diagnostics
// the server changed meanwhile (matched across the edit's word
// replacements reps, diagMatch).
func (p *proc) checkTexts(ctx context.Context, s *server, ds []document, texts []string, settle time.Duration, reps replacements, sent func()) ([]FileDiagnostics, []CheckReport) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	fds := make([]FileDiagnostics, len(ds))
	cs := make([]*checked, len(ds))
	p.mu.Lock()
	p.checking = map[string]bool{}
	p.checkOthers = map[string]json.RawMessage{}
	for i, d := range ds {
		doc := p.docs[d.path]
		if d.version == 0 && doc == nil {
			// A file the edit creates: opened with the new content under
			// a version later than any it had, closed after.
			c := &checked{d: d}
			c.entry, c.had = p.diags.entry(d.uri)
			p.diags.forget(d.uri)
			c.at = document{uri: d.uri, version: max(p.closedVersions[d.path], p.closedFloor) + 1, sentSeq: p.diags.current()}
			p.checking[d.uri] = true
			cs[i] = c
			continue
		}
		if doc == nil || d.version == 0 {
			fds[i] = FileDiagnostics{Path: d.path, URI: d.uri, Server: s.cfg.Name, Verdict: Failed, Diagnostics: json.RawMessage("[]"),
				Detail: fmt.Sprintf("%s closed the document before the check", s.cfg.Name)}
			continue
		}
		c := &checked{d: d, doc: doc, diskText: doc.text, pull: doc.pull}
		c.entry, c.had = p.diags.entry(d.uri)
		// The disk's report is no answer about the edit: without it a
		// wait that ends early says Timeout, not Stale with the disk's
		// list.
		p.diags.forget(d.uri)
		doc.version++
		c.at = document{uri: d.uri, version: doc.version, sentSeq: p.diags.current()}
		doc.text, doc.pull = position.NewDocumentString(texts[i]), nil
		p.checking[d.uri] = true
		cs[i] = c
	}
	p.markResendLocked("")
	p.mu.Unlock()
	// Files the edit creates go first: the server takes them into their
	// packages before it checks the edited files against them.
	order := make([]int, 0, len(cs))
	for pass := range 2 {
		for i, c := range cs {
			if c != nil && (c.doc == nil) == (pass == 0) {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		c := cs[i]
		method, params := "textDocument/didChange", didChangeParams(c.d.uri, c.at.version, texts[i])
		if c.doc == nil {
			method, params = "textDocument/didOpen", didOpenParams(c.d.uri, s.cfg.LanguageID(c.d.path), c.at.version, texts[i])
		}
		if err := p.notify(method, params); err != nil {
			fds[i] = FileDiagnostics{Path: c.d.path, URI: c.d.uri, Server: s.cfg.Name, Verdict: Failed, Diagnostics: json.RawMessage("[]"), Detail: "check: " + err.Error()}
			continue
		}
		c.sent = true
	}
	for i, c := range cs {
		if c == nil || !c.sent {
			continue
		}
		// c.at has no path: the wait neither resyncs the disk's content
		// into it nor keeps its pull reports.
		fds[i] = s.diagnostics(ctx, p, c.at, settle)
		fds[i].Path = c.d.path
	}
	if len(p.advertisedPulls()) == 0 {
		// A server that pushes (also one pulled without offering it,
		// Quirks.UnadvertisedPull) publishes a change's reports on
		// several files one after another, those on files not in the
		// edit after the edited files' own: they are the check's once
		// quiet, and do not come after it for the cache (a server slower
		// than settle between them can still send one late).
		p.quiet(ctx, settle)
	}
	if sent != nil {
		sent()
	}
	p.mu.Lock()
	if p.checkedVersions == nil {
		p.checkedVersions = map[string]int32{}
	}
	reported := p.checkOthers
	p.holdReported(reported, p.checking)
	p.checking, p.checkOthers = nil, nil
	last := ""
	back := make([]int32, len(cs))
	for i, c := range cs {
		if c == nil {
			continue
		}
		p.checkedVersions[c.d.uri] = c.at.version
		p.diags.put(c.d.uri, c.entry, c.had)
		if c.doc == nil {
			// Its version is kept for a later open, as a closed
			// document's is.
			p.dropDocLocked(&document{path: c.d.path, version: c.at.version})
			continue
		}
		c.doc.version++
		c.doc.text, c.doc.pull = c.diskText, c.pull
		c.doc.sentSeq = p.diags.current()
		back[i], last = c.doc.version, c.d.path
	}
	if k := slices.IndexFunc(cs, func(c *checked) bool { return c != nil && c.d.path == last }); k >= 0 {
		cs[k].doc.resend = false
	}
	// The server may check a restored document against another's checked
	// content before the rest reach it: every document but the one
	// restored last is sent again before its next request.
	p.markResendLocked(last)
	var others []CheckReport
	for _, uri := range slices.Sorted(maps.Keys(reported)) {
		before := json.RawMessage("[]")
		if e, ok := p.diags.entry(uri); ok {
			before = e.diags
		}
		r := CheckReport{Other: true}
		r.Added, r.Removed = diagMatch(before, reported[uri], nil, reps)
		if isEmptyArray(r.Added) && isEmptyArray(r.Removed) {
			continue
		}
		path, _ := edit.PathFromURI(uri)
		r.Before = FileDiagnostics{Path: path, URI: uri, Server: s.cfg.Name, Verdict: Fresh, Diagnostics: before}
		r.After = FileDiagnostics{Path: path, URI: uri, Server: s.cfg.Name, Verdict: Fresh, Diagnostics: reported[uri]}
		others = append(others, r)
	}
	p.mu.Unlock()
	for i, c := range cs {
		if c == nil || !c.sent && c.doc == nil {
			continue
		}
		if c.doc == nil {
			if err := p.notify("textDocument/didClose", didCloseParams(c.d.uri)); err != nil {
				s.recycle(p, fmt.Errorf("check: closing a file the edit creates: %w", err))
				break
			}
			continue
		}
		if err := p.notify("textDocument/didChange", didChangeParams(c.d.uri, back[i], c.diskText.Text())); err != nil {
			// The server holds the checked text: it must not answer on it.
			s.recycle(p, fmt.Errorf("check: restoring the disk's content: %w", err))
			break
		}
	}
	return fds, others
}

// holdReported holds the files not in the edit (edited) that the
// server reported on during a check, and the open documents (p.mu held,
// the disk's content about to be restored): until a report on one
// carries a version later than the one the server has of it now, its
// reports are dropped, and it keeps the report from before the check.
// The server may report on such a file again from the checked content
// after the check has ended (a slow pass, later than the settle time),
// and a report without a version, or with the version the server had
// during the check, cannot say which content it comes from. LSP orders
// the stream: a report carrying a version comes after the didOpen or
// didChange that sent it, and that, sent after the restore, after the
// restore; so a report on a later version was computed with the disk's
// content. The next diagnostics of the file send one (it is opened, or
// sent again: every document is marked to be resent after a check). A
// server that never sends versions gives no such sign: its reports are
// taken as they come, as its reports on the edited documents are.
func (p *proc) holdReported(reported map[string]json.RawMessage, edited map[string]bool) {
	if !p.diags.echoesVersions() {
		return
	}
	if p.held == nil {
		p.held = map[string]int32{}
	}
	for uri := range reported {
		path, err := edit.PathFromURI(uri)
		if err != nil {
			continue
		}
		base := max(p.closedVersions[path], p.closedFloor)
		if d := p.docs[path]; d != nil {
			base = d.version
		}
		p.held[uri] = base
	}
	for _, d := range p.docs {
		if !edited[d.uri] {
			p.held[d.uri] = d.version
		}
	}
}

// settled waits until settle has passed since the server's last publish
// (at once when it has), ctx ends or the process is gone: a server that
// diagnoses a package reports its other files a little after the one
// asked about, and a check that began before those reports arrived would
// take a file's first report, of the disk's content, for the edit's.
func (p *proc) settled(ctx context.Context, settle time.Duration) {
	for {
		last, changed, closed := p.diags.lastPublish()
		left := settle - time.Since(last)
		if closed || last.IsZero() || left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
		case <-p.done:
		}
		t.Stop()
		if ctx.Err() != nil || p.exited() {
			return
		}
	}
}

// quiet waits until the server has published nothing for settle, ctx
// ends or the process is gone.
func (p *proc) quiet(ctx context.Context, settle time.Duration) {
	t := time.NewTimer(settle)
	defer t.Stop()
	for {
		_, _, changed, closed := p.diags.get("")
		if closed {
			return
		}
		select {
		case <-changed:
			t.Reset(settle)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		case <-p.done:
			return
		}
	}
}

// diagKey is what matches a diagnostic before and after an edit, with
// its place (diagMatch).
type diagKey struct {
	severity     int
	code, source string
	message      string
}
