package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	// matched by severity, code, source and message (positions move with
	// the edit). Only meaningful when both verdicts are Fresh.
	Added, Removed json.RawMessage
}

// Check returns the diagnostics text would have as the content of path,
// without writing the disk: the server gets text as an unsaved version of
// the document, its diagnostics for that version are collected with the
// freshness rules of Diagnostics, and the disk's content is sent back as a
// new version. Nothing else sees the edit: a check holds the document's
// process exclusively (regular requests wait for it and then see the
// disk's content), the server's reports during it are stored for no one
// else and told to no subscriber, and a late report on the checked
// version is dropped. Verdicts are as for Diagnostics: a timeout is never
// "no diagnostics". It returns an error only when the Manager is closed.
func (m *Manager) Check(ctx context.Context, path, text string, opts DiagnosticsOptions) (CheckReport, error) {
	rep := CheckReport{Added: json.RawMessage("[]"), Removed: json.RawMessage("[]")}
	fd := FileDiagnostics{Path: path, Diagnostics: json.RawMessage("[]")}
	abs, s, err := m.resolve(path)
	if err != nil {
		fd.Verdict, fd.Detail = Failed, err.Error()
		if errors.Is(err, ErrNoServer) {
			fd.Verdict = Unsupported
		}
		if me := (*MissingServerError)(nil); errors.As(err, &me) {
			fd.Server = me.Server
		}
		rep.Before, rep.After = fd, fd
		return rep, m.closedErr()
	}
	fd.Path, fd.URI, fd.Server = abs, edit.URIFromPath(abs), s.cfg.Name
	s.begin()
	defer s.end()
	settle := m.settleOf(opts)
	wait := max(s.diagnosticsWait(opts), 0)
	bctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	p, err := s.ensure(bctx)
	if err != nil {
		rep.Before = startVerdict(fd, err)
		rep.After = rep.Before
		return rep, m.closedErr()
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
	d, err := p.syncFor(abs, useKeep)
	if err != nil {
		fd.Verdict, fd.Detail = Failed, err.Error()
		rep.Before, rep.After = fd, fd
		return rep, m.closedErr()
	}
	rep.Before = s.diagnostics(bctx, p, d, settle)
	actx, cancel2 := context.WithTimeout(ctx, wait)
	defer cancel2()
	rep.After = p.checkText(actx, s, d, text, settle, m.checkSent)
	if rep.Before.Verdict == Fresh && rep.After.Verdict == Fresh {
		rep.Added = diagDelta(rep.After.Diagnostics, rep.Before.Diagnostics)
		rep.Removed = diagDelta(rep.Before.Diagnostics, rep.After.Diagnostics)
	}
	return rep, m.closedErr()
}

func (m *Manager) closedErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// checkText sends text as a new version of the synced document d, waits
// for its diagnostics and sends the disk's text d holds back, with syncMu
// held throughout (viewMu is held by the caller).
func (p *proc) checkText(ctx context.Context, s *server, d document, text string, settle time.Duration, sent func()) FileDiagnostics {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.mu.Lock()
	doc := p.docs[d.path]
	if doc == nil {
		p.mu.Unlock()
		return FileDiagnostics{Path: d.path, URI: d.uri, Server: s.cfg.Name, Verdict: Failed, Diagnostics: json.RawMessage("[]"),
			Detail: fmt.Sprintf("%s closed the document before the check", s.cfg.Name)}
	}
	diskText, pull := doc.text, doc.pull
	entry, had := p.diags.entry(d.uri)
	// The disk's report is no answer about the edit: without it a wait
	// that ends early says Timeout, not Stale with the disk's list.
	p.diags.forget(d.uri)
	doc.version++
	checked := document{uri: d.uri, version: doc.version, sentSeq: p.diags.current()}
	doc.text, doc.pull = position.NewDocumentString(text), nil
	p.checking = d.uri
	p.markResendLocked(d.path)
	p.mu.Unlock()
	uj, _ := encode(d.uri)
	tj, _ := encode(text)
	var fd FileDiagnostics
	if err := p.notify("textDocument/didChange", json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"version":%d},"contentChanges":[{"text":%s}]}`, uj, checked.version, tj))); err != nil {
		fd = FileDiagnostics{Path: d.path, URI: d.uri, Server: s.cfg.Name, Verdict: Failed, Diagnostics: json.RawMessage("[]"), Detail: "check: " + err.Error()}
	} else {
		// checked has no path: the wait neither resyncs the disk's
		// content into it nor keeps its pull reports.
		fd = s.diagnostics(ctx, p, checked, settle)
		fd.Path = d.path
		if sent != nil {
			sent()
		}
	}
	p.mu.Lock()
	if p.checkedVersions == nil {
		p.checkedVersions = map[string]int32{}
	}
	p.checkedVersions[d.uri] = checked.version
	p.checking = ""
	p.diags.put(d.uri, entry, had)
	doc.version++
	doc.text, doc.pull = diskText, pull
	doc.sentSeq = p.diags.current()
	doc.resend = false
	p.markResendLocked(d.path)
	back := doc.version
	p.mu.Unlock()
	dj, _ := encode(diskText.Text())
	if err := p.notify("textDocument/didChange", json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"version":%d},"contentChanges":[{"text":%s}]}`, uj, back, dj))); err != nil {
		// The server holds the checked text: it must not answer on it.
		s.recycle(p, fmt.Errorf("check: restoring the disk's content: %w", err))
	}
	return fd
}

// diagKey is what matches a diagnostic before and after an edit.
type diagKey struct {
	severity     int
	code, source string
	message      string
}

// diagDelta returns the diagnostics of a not matched in b (a multiset
// difference by diagKey), as a JSON array.
func diagDelta(a, b json.RawMessage) json.RawMessage {
	type diag struct {
		Severity int             `json:"severity"`
		Code     json.RawMessage `json:"code"`
		Source   string          `json:"source"`
		Message  string          `json:"message"`
	}
	var ra, rb []json.RawMessage
	_ = decode(a, &ra)
	_ = decode(b, &rb)
	key := func(raw json.RawMessage) diagKey {
		var d diag
		_ = decode(raw, &d)
		return diagKey{d.Severity, string(d.Code), d.Source, d.Message}
	}
	have := map[diagKey]int{}
	for _, r := range rb {
		have[key(r)]++
	}
	var out []json.RawMessage
	for _, r := range ra {
		k := key(r)
		if have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, r)
	}
	raw, _ := encode(append([]json.RawMessage{}, out...))
	return raw
}
