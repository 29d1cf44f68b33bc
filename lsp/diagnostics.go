package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Verdict says how far a diagnostics answer can be trusted.
type Verdict string

// Verdicts of a diagnostics answer, per file and server.
const (
	// Fresh: the server reported on the file's current content.
	Fresh Verdict = "fresh"
	// Stale: the diagnostics are for an older version of the file; the
	// server did not report on the current one in time.
	Stale Verdict = "stale"
	// Timeout: the server reported nothing in time. It never means "no
	// diagnostics".
	Timeout Verdict = "timeout"
	// Indexing: the server is still loading the project.
	Indexing Verdict = "indexing"
	// Starting: the server is still starting (initializing, or waiting
	// out the restart delay after a crash): nothing is known yet.
	Starting Verdict = "starting"
	// Unsupported: no server handles the file.
	Unsupported Verdict = "unsupported"
	// Failed: the server is missing, crashed or answered with an error.
	Failed Verdict = "failed"
)

// FileDiagnostics is one server's diagnostics for one file.
type FileDiagnostics struct {
	Path   string `json:"path"`
	URI    string `json:"uri"`
	Server string `json:"server,omitempty"`
	// Verdict qualifies Diagnostics; only Fresh means "current".
	Verdict Verdict `json:"verdict"`
	// Version is the document version the diagnostics belong to, 0 when
	// the server did not say.
	Version int32 `json:"version,omitempty"`
	// Diagnostics is the LSP Diagnostic array with UTF-16 positions;
	// "[]" when the server reported none.
	Diagnostics json.RawMessage `json:"diagnostics"`
	// Detail explains a verdict other than Fresh.
	Detail string `json:"detail,omitempty"`
}

// DiagnosticsReport is the answer of Manager.Diagnostics.
type DiagnosticsReport struct {
	Files []FileDiagnostics `json:"files"`
}

// DiagnosticsOptions tune Manager.Diagnostics.
type DiagnosticsOptions struct {
	// Timeout bounds the wait; zero takes the server's Diagnostics
	// timeout. Negative does not wait: each file gets what its server has
	// already said, with the verdict that deserves (Fresh only for a
	// report on the current content, else Stale, Timeout, Starting or
	// Indexing), and nothing is asked that could not be answered in time.
	// A server not running yet is started for the calls to come.
	Timeout time.Duration
	// Settle is how long a server that does not echo document versions
	// must stay quiet after a publish before its diagnostics count as
	// fresh; zero takes Options.DiagnosticsSettle, negative makes a
	// publish after the sync fresh at once.
	Settle time.Duration
}

// DiagnosticsEvent is one textDocument/publishDiagnostics a server sent,
// positions in UTF-16.
type DiagnosticsEvent struct {
	Server      string          `json:"server"`
	Root        string          `json:"root"`
	URI         string          `json:"uri"`
	Path        string          `json:"path"`
	Version     int32           `json:"version,omitempty"`
	Diagnostics json.RawMessage `json:"diagnostics"`
	// Received is when the notification was read from the server.
	Received time.Time `json:"received"`
}

type diagEntry struct {
	version    int32
	hasVersion bool
	diags      json.RawMessage
	seq        uint64
	// passes counts the publishes in a row for this version (see
	// Quirks.PublishesInPasses).
	passes int
	// loading: the server had work in progress when it published, so an
	// empty list may only mean it had not got that far yet.
	loading bool
	// at is when the publish arrived: an unversioned publish that has
	// been quiet for the settle window since is settled, however late a
	// caller looks.
	at time.Time
}

// diagStore holds the last publish per URI. Waiters take the changed
// channel with a snapshot and wait on it: it is closed and replaced on
// every publish (a broadcast), so nobody polls.
type diagStore struct {
	mu      sync.Mutex
	seq     uint64
	m       map[string]diagEntry
	changed chan struct{}
	closed  bool
	// last is when the last publish arrived (zero: none yet).
	last time.Time
	// versioned: the server has published with a document version, so it
	// echoes versions, and a publish of its without one (the empty list
	// it sends when a document closes) says nothing about an open
	// document's current text.
	versioned bool
}

func (s *diagStore) init() {
	s.m = map[string]diagEntry{}
	s.changed = make(chan struct{})
}

func (s *diagStore) current() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

func (s *diagStore) publish(uri string, version int32, has bool, diags json.RawMessage, loading bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.seq++
	s.versioned = s.versioned || has
	passes := 1
	if prev, ok := s.m[uri]; ok && has && prev.hasVersion && prev.version == version {
		passes = prev.passes + 1
	}
	s.last = time.Now()
	s.m[uri] = diagEntry{version: version, hasVersion: has, diags: diags, seq: s.seq, passes: passes, loading: loading, at: s.last}
	close(s.changed)
	s.changed = make(chan struct{})
}

// lastPublish returns when the last publish arrived (zero: none), with
// the channel closed at the next and whether the store is closed.
func (s *diagStore) lastPublish() (time.Time, <-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.changed, s.closed
}

// bump wakes waiters without new data (diagnostic refresh).
func (s *diagStore) bump() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

// entry returns the raw stored entry for uri, for put to restore.
func (s *diagStore) entry(uri string) (diagEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[uri]
	return e, ok
}

// put restores an entry taken by entry (deleting it when there was none),
// without waking waiters: nothing new was said.
func (s *diagStore) put(uri string, e diagEntry, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok {
		s.m[uri] = e
	} else {
		delete(s.m, uri)
	}
}

func (s *diagStore) forget(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, uri)
}

func (s *diagStore) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.changed)
	}
}

// echoesVersions reports whether the server has published with a
// document version (diagStore.versioned).
func (s *diagStore) echoesVersions() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versioned
}

func (s *diagStore) get(uri string) (diagEntry, bool, <-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[uri]
	if ok && !e.hasVersion && s.versioned {
		// Not the server's word on any version: as if it had not
		// published (see versioned), so waiters wait for one that is.
		return diagEntry{}, false, s.changed, s.closed
	}
	return e, ok, s.changed, s.closed
}

func (p *proc) publishDiagnostics(params json.RawMessage) {
	received := time.Now()
	var m struct {
		URI         string          `json:"uri"`
		Version     *int32          `json:"version"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if err := decode(params, &m); err != nil {
		p.log.Warn("bad publishDiagnostics", "server", p.srv.cfg.Name, "err", err)
		return
	}
	diags := m.Diagnostics
	if len(diags) == 0 || string(diags) == "null" {
		diags = json.RawMessage("[]")
	}
	if !isArray(diags) {
		p.log.Warn("bad publishDiagnostics: diagnostics is not an array", "server", p.srv.cfg.Name, "uri", m.URI)
		return
	}
	if p.enc != position.UTF16 {
		c := newConverter(p.enc, position.UTF16, p.openText, p.srv.mgr.opts.MaxFileSize)
		if out, err := c.convert(diags, m.URI); err == nil {
			diags = out
		}
	} else {
		// The raw message may alias a larger buffer; keep our own copy.
		diags = append(json.RawMessage(nil), diags...)
	}
	var v int32
	if m.Version != nil {
		v = *m.Version
	}
	// Stored under the URI this client writes for the file: servers
	// spell URIs their own way (typescript-language-server and clangd
	// percent-encode "@" and "+", which net/url leaves), and a wait for
	// the document looks it up by ours.
	uri := m.URI
	path, err := edit.PathFromURI(m.URI)
	if err == nil {
		uri = edit.URIFromPath(path)
	}
	p.mu.Lock()
	checking, checked := p.checking != nil, p.checking[uri]
	late := m.Version != nil && p.checkedVersions[uri] == v && v != 0
	other := checking && !checked && !late && p.checkOthers != nil
	if other {
		// Kept for the check's answer alone (an edit breaking a use in
		// a file it does not touch).
		p.checkOthers[uri] = diags
	}
	held := false
	if base, ok := p.held[uri]; ok && !other {
		// A file a check saw reported on: see holdReported.
		held = m.Version == nil || v <= base
		if !held {
			delete(p.held, uri)
		}
	}
	p.mu.Unlock()
	if other {
		p.diags.bump() // said to the check's wait for quiet
	}
	switch {
	case late || (checking && !checked) || held:
		// A check's content (or, during a check, another document's
		// report that may rest on it, or after it one on a held file)
		// is nobody's business: not stored, not told to subscribers
		// (the tool's cache, the editor). The other documents are sent
		// again before their next request.
		return
	case checked:
		// Stored for the check's own wait only (Manager.Check puts the
		// entry back), never broadcast.
		p.mu.Lock()
		loading := p.readinessLocked().State != Ready
		p.mu.Unlock()
		p.diags.publish(uri, v, m.Version != nil, diags, loading)
		return
	}
	// Subscribers see the event before any Diagnostics call it satisfies
	// returns.
	p.srv.mgr.broadcast(DiagnosticsEvent{
		Server: p.srv.cfg.Name, Root: p.srv.root, URI: uri, Path: path, Version: v, Diagnostics: diags, Received: received,
	})
	p.mu.Lock()
	loading := p.readinessLocked().State != Ready
	p.mu.Unlock()
	p.diags.publish(uri, v, m.Version != nil, diags, loading)
}

// pullSupported returns the diagnostic identifiers to pull with, once
// each, or false when the server only pushes. The empty identifier stands
// for the static provider, or for the pull a server answers without
// offering it (Quirks.UnadvertisedPull) until it refuses one.
func (p *proc) pullSupported() ([]string, bool) {
	ids := p.advertisedPulls()
	if len(ids) == 0 && p.srv.cfg.Quirks.UnadvertisedPull && !p.pullRefused.Load() {
		ids = []string{""}
	}
	return ids, len(ids) > 0
}

// advertisedPulls returns the diagnostic identifiers the server offers
// to pull with, statically or by registration, once each. A provider
// registered twice under one identifier is pulled once: pyright 1.1.414
// registers "Pyright" twice, and pulling both doubled every error.
func (p *proc) advertisedPulls() []string {
	var ids []string
	if present(p.caps.DiagnosticProv) {
		var opt struct {
			Identifier string `json:"identifier"`
		}
		_ = decode(p.caps.DiagnosticProv, &opt)
		ids = append(ids, opt.Identifier)
	}
	for _, r := range p.dynamic("textDocument/diagnostic") {
		var opt struct {
			Identifier string `json:"identifier"`
		}
		if len(r.RegisterOptions) > 0 {
			_ = decode(r.RegisterOptions, &opt)
		}
		if !slices.Contains(ids, opt.Identifier) {
			ids = append(ids, opt.Identifier)
		}
	}
	sort.Strings(ids) // registrations come from a map: a stable order
	return ids
}

// diagnosticsWait is how long a diagnostics call may wait: opts.Timeout,
// else the server's Diagnostics timeout. Negative means no wait.
func (s *server) diagnosticsWait(opts DiagnosticsOptions) time.Duration {
	if opts.Timeout != 0 {
		return opts.Timeout
	}
	return s.tm.Diagnostics.d()
}

// diagnostics answers for one synced document, pulling when the server
// supports it and waiting for a matching push otherwise.
func (s *server) diagnostics(ctx context.Context, p *proc, d document, settle time.Duration) FileDiagnostics {
	fd := FileDiagnostics{Path: d.path, URI: d.uri, Server: s.cfg.Name, Version: d.version, Diagnostics: json.RawMessage("[]")}
	if ids, ok := p.pullSupported(); ok {
		return s.pull(ctx, p, d, settle, ids, fd)
	}
	return s.waitPush(ctx, p, d, settle, fd)
}

func (s *server) pull(ctx context.Context, p *proc, d document, settle time.Duration, ids []string, fd FileDiagnostics) FileDiagnostics {
	if ctx.Err() != nil {
		// No time to ask (a caller that does not wait): a request now
		// could only time out, so answer from what the server said before.
		pulled := s.pulled(p, d, ids, fd)
		if pulled.Verdict == Fresh || len(p.advertisedPulls()) > 0 {
			return pulled
		}
		// Pulled without offering it (Quirks.UnadvertisedPull), it
		// pushes too: what it pushed for the version is more than
		// nothing, but never fresh, as only a pull says a version's
		// check is done.
		pushed := s.waitPush(ctx, p, d, settle, fd)
		switch {
		case pushed.Verdict == Fresh:
			pushed.Verdict = Stale
			pushed.Detail = fmt.Sprintf("%s pushed these for version %d; there was no time to pull the list that says its check is done: not known to be complete", s.cfg.Name, pushed.Version)
			return pushed
		case pulled.Verdict == Stale:
			return pulled
		}
		return pushed
	}
	var all []json.RawMessage
	for _, id := range ids {
		p.mu.Lock()
		prev := pullState{}
		if doc := p.docs[d.path]; doc != nil && doc.pull != nil {
			prev = doc.pull[id]
		}
		gen := p.refreshGen
		p.mu.Unlock()
		params := map[string]any{"textDocument": map[string]string{"uri": d.uri}}
		if id != "" {
			params["identifier"] = id
		}
		if prev.resultID != "" {
			params["previousResultId"] = prev.resultID
		}
		raw, _ := encode(params)
		var rep pullReport
		reasks := 0
		for {
			mark := p.mark()
			res, _, err := s.call(ctx, p, d, "textDocument/diagnostic", raw)
			if re := (*ResponseError)(nil); errors.As(err, &re) && refusal(re.Code) && len(p.advertisedPulls()) == 0 {
				// A pull it does not offer, refused: its pushes are its
				// word (this and every later call of the process).
				p.pullRefused.Store(true)
				p.log.Info("server refused an unadvertised pull; reading its pushes", "server", s.cfg.Name, "err", err)
				return s.waitPush(ctx, p, d, settle, fd)
			}
			if err != nil {
				return s.failVerdict(p, fd, err)
			}
			rep = pullReport{}
			if err := decode(res, &rep); err != nil {
				fd.Verdict, fd.Detail = Failed, err.Error()
				return fd
			}
			if rep.Kind == "unchanged" || !isEmptyResult(rep.Items) {
				break
			}
			// An empty report from a loading server is not "no
			// diagnostics": wait for the load to end and pull again.
			again, err := s.afterEmpty(ctx, p, "textDocument/diagnostic", mark, &reasks)
			if err != nil {
				fd = s.failVerdict(p, fd, err)
				if ie := (*IndexingError)(nil); errors.As(err, &ie) {
					fd.Detail = fmt.Sprintf("%s is still loading the project (%s) and reported nothing yet: its diagnostics are unknown, not empty",
						s.cfg.Name, Readiness{State: ReadyLoading, Progress: ie.Progress}.Work())
				}
				return fd
			}
			if !again {
				break
			}
		}
		items := rep.Items
		if rep.Kind == "unchanged" {
			items = prev.items
		}
		if len(items) == 0 || string(items) == "null" {
			items = json.RawMessage("[]")
		}
		if !isArray(items) {
			fd.Verdict, fd.Detail = Failed, fmt.Sprintf("%s answered textDocument/diagnostic with items that are not an array", s.cfg.Name)
			return fd
		}
		if rep.Kind != "unchanged" && p.enc != position.UTF16 {
			// As pushed ones are (publishDiagnostics): kept, and
			// reported, in UTF-16; an unchanged report reuses them.
			c := newConverter(p.enc, position.UTF16, p.openText, p.srv.mgr.opts.MaxFileSize)
			out, err := c.convert(items, d.uri)
			if err != nil {
				fd.Verdict, fd.Detail = Failed, fmt.Sprintf("%s's textDocument/diagnostic: %v", s.cfg.Name, err)
				return fd
			}
			items = out
		}
		p.mu.Lock()
		if doc := p.docs[d.path]; doc != nil {
			if doc.pull == nil {
				doc.pull = map[string]pullState{}
			}
			doc.pull[id] = pullState{resultID: rep.ResultID, items: items, version: d.version, gen: gen}
		}
		p.mu.Unlock()
		all = append(all, items)
	}
	fd.Diagnostics = concatArrays(all)
	fd.Verdict = Fresh
	return fd
}

// refusal reports whether a server's error answer to a request says it
// does not handle it, rather than that this one answer is moot (the
// document changed, the request was cancelled: asked again by call).
func refusal(code int64) bool {
	switch code {
	case codeContentModified, codeServerCancelled, codeRequestCancelled:
		return false
	}
	return true
}

// pulled answers for d from the reports already pulled for it, without
// asking the server: the caller's wait was over before a request could be
// answered. The reports are fresh only when every identifier was pulled
// for the current version and the server has not asked for a new pull
// since (workspace/diagnostic/refresh: something else changed); older
// reports are stale; no report at all is a timeout (indexing while the
// server reports work in progress), never "no diagnostics".
func (s *server) pulled(p *proc, d document, ids []string, fd FileDiagnostics) FileDiagnostics {
	p.mu.Lock()
	gen := p.refreshGen
	var states []pullState
	if doc := p.docs[d.path]; doc != nil {
		for _, id := range ids {
			if st, ok := doc.pull[id]; ok {
				states = append(states, st)
			}
		}
	}
	p.mu.Unlock()
	if len(states) == 0 {
		fd.Verdict = Timeout
		fd.Detail = fmt.Sprintf("%s has not reported on this file yet and there was no time to ask: its diagnostics are unknown, not empty", s.cfg.Name)
		if r, _ := p.readiness(); r.State != Ready {
			fd.Verdict = Indexing
			fd.Detail = fmt.Sprintf("%s is still loading the project (%s) and has not reported on this file yet: its diagnostics are unknown, not empty", s.cfg.Name, r.Work())
		}
		return fd
	}
	all := make([]json.RawMessage, 0, len(states))
	fresh := len(states) == len(ids)
	version := d.version
	for _, st := range states {
		all = append(all, st.items)
		fresh = fresh && st.version == d.version && st.gen == gen
		version = min(version, st.version)
	}
	fd.Diagnostics, fd.Version = concatArrays(all), version
	switch {
	case fresh:
		fd.Verdict = Fresh
	case len(states) < len(ids):
		fd.Verdict = Stale
		fd.Detail = fmt.Sprintf("%s was not asked again: these are from its last report, which covers only some of its diagnostic providers", s.cfg.Name)
	case version < d.version:
		fd.Verdict = Stale
		fd.Detail = fmt.Sprintf("%s was not asked again: these are from its last report, on version %d; the document is at version %d", s.cfg.Name, version, d.version)
	default:
		fd.Verdict = Stale
		fd.Detail = fmt.Sprintf("%s was not asked again: these are from its last report, and it has said since that its diagnostics changed", s.cfg.Name)
	}
	return fd
}

// pullReport is a document diagnostic report (full or unchanged).
type pullReport struct {
	Kind     string          `json:"kind"`
	ResultID string          `json:"resultId"`
	Items    json.RawMessage `json:"items"`
}

func concatArrays(arrs []json.RawMessage) json.RawMessage {
	if len(arrs) == 1 {
		return arrs[0]
	}
	out := []byte("[")
	for _, a := range arrs {
		inner := a[1 : len(a)-1]
		if len(inner) == 0 {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, inner...)
	}
	return append(out, ']')
}

func (s *server) failVerdict(p *proc, fd FileDiagnostics, err error) FileDiagnostics {
	var ie *IndexingError
	var se *StartingError
	switch {
	case errors.As(err, &se):
		fd.Verdict = Starting
	case errors.As(err, &ie):
		fd.Verdict = Indexing
	case errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		fd.Verdict = Timeout
		if r, _ := p.readiness(); r.State != Ready {
			fd.Verdict = Indexing
		}
	default:
		fd.Verdict = Failed
	}
	fd.Detail = err.Error()
	return fd
}

// waitPush waits until the server published for the document's current
// version (when it echoes versions; its last pass of it when it publishes
// in passes, Quirks.PublishesInPasses) or published after the version was
// sent and then stayed quiet for settle (when it does not). An empty list
// published while the server reports work in progress is provisional
// (typescript-language-server publishes [] while its project loads, then
// the real errors): it counts only once the work has ended and no newer
// publish came within settle; at the deadline, with the server still
// busy, the verdict is Indexing, never an empty "fresh".
func (s *server) waitPush(ctx context.Context, p *proc, d document, settle time.Duration, fd FileDiagnostics) FileDiagnostics {
	var settleC <-chan time.Time
	var settleT *time.Timer
	defer func() {
		if settleT != nil {
			settleT.Stop()
		}
	}()
	var settledSeq uint64
	for {
		// Servers such as pyright register pull diagnostics only after
		// initialized, and then never push: switch over when they do.
		if ids := p.advertisedPulls(); len(ids) > 0 {
			return s.pull(ctx, p, d, settle, ids, fd)
		}
		e, ok, changed, closed := p.diags.get(d.uri)
		current := false
		var idleC <-chan struct{}
		provisional, partial := false, false
		if ok {
			current = (e.hasVersion && e.version >= d.version) || (!e.hasVersion && e.seq > d.sentSeq)
			// An earlier pass of a version is not the server's word on it:
			// Volar's syntax pass is often empty, or carries the last
			// version's type errors, and may come long before the rest.
			partial = current && e.hasVersion && e.passes < s.cfg.Quirks.PublishesInPasses
			r, change := p.readiness()
			provisional = current && isEmptyArray(e.diags) && (e.loading || r.State != Ready)
			switch {
			case partial:
				// Wait for the next pass, however long after settle.
			case provisional && r.State != Ready:
				idleC = change // wait for the load to end (or a newer publish)
			case current && e.hasVersion && !provisional:
				fd.Diagnostics, fd.Version, fd.Verdict = e.diags, e.version, Fresh
				return fd
			case current && !e.hasVersion && !e.loading && !provisional && time.Since(e.at) >= settle:
				// Unversioned and quiet for the settle window already
				// (a caller that looks late, or does not wait): settled.
				// Not an empty list while the server has work in
				// progress: that may only mean it has not got there yet.
				fd.Diagnostics, fd.Verdict, fd.Version = e.diags, Fresh, 0
				return fd
			case current:
				// Unversioned, or an empty list from a load that has
				// ended since: fresh once nothing newer comes within
				// settle.
				if e.seq != settledSeq {
					settledSeq = e.seq
					if settleT == nil {
						settleT = time.NewTimer(settle)
					} else {
						settleT.Reset(settle)
					}
					settleC = settleT.C
				}
			}
		}
		if closed {
			fd.Verdict, fd.Detail = Failed, fmt.Sprintf("server %s exited while waiting for diagnostics", s.cfg.Name)
			return fd
		}
		select {
		case <-changed:
		case <-idleC:
		case <-settleC:
			fd.Diagnostics, fd.Verdict = e.diags, Fresh
			fd.Version = 0
			if e.hasVersion {
				fd.Version = e.version
			}
			return fd
		case <-p.done:
			fd.Verdict, fd.Detail = Failed, fmt.Sprintf("server %s exited while waiting for diagnostics", s.cfg.Name)
			return fd
		case <-p.lostC():
			fd.Verdict, fd.Detail = Failed, fmt.Sprintf("connection to server %s lost while waiting for diagnostics", s.cfg.Name)
			if err := p.lostErr(); err != nil {
				fd.Detail += ": " + err.Error()
			}
			return fd
		case <-ctx.Done():
			if partial {
				fd.Diagnostics, fd.Version, fd.Verdict = e.diags, e.version, Stale
				fd.Detail = fmt.Sprintf("%s publishes each version's diagnostics in %d passes and had sent %d for version %d when the wait ended: not its last word, not known to be complete",
					s.cfg.Name, s.cfg.Quirks.PublishesInPasses, e.passes, e.version)
				return fd
			}
			if r, _ := p.readiness(); provisional && r.State != Ready {
				fd.Verdict = Indexing
				fd.Detail = fmt.Sprintf("%s is still loading the project (%s) and has reported nothing for this file yet: its diagnostics are unknown, not empty", s.cfg.Name, r.Work())
				return fd
			}
			if provisional {
				// An empty list from the load, which has ended, but not
				// the settle window since: the server may not have got
				// to this file yet, so it is not known to be clean.
				fd.Diagnostics, fd.Verdict = e.diags, Stale
				if e.hasVersion {
					fd.Version = e.version
				}
				fd.Detail = fmt.Sprintf("%s published an empty list while loading and had not been quiet for %s since the load ended: its diagnostics are not known to be empty", s.cfg.Name, settle)
				return fd
			}
			switch {
			case ok && current:
				// Reported after this version was sent, but not quiet
				// for the settle window yet: more may follow.
				fd.Diagnostics, fd.Verdict = e.diags, Stale
				if e.hasVersion {
					fd.Version = e.version
				}
				fd.Detail = fmt.Sprintf("%s reported on version %d but had not been quiet for %s when the wait ended: these may not be its last word", s.cfg.Name, d.version, settle)
			case ok:
				fd.Diagnostics, fd.Verdict = e.diags, Stale
				if e.hasVersion {
					fd.Version = e.version
				}
				fd.Detail = fmt.Sprintf("%s did not report on version %d in time; these are from an earlier version", s.cfg.Name, d.version)
			default:
				fd.Verdict = Timeout
				fd.Detail = fmt.Sprintf("%s published no diagnostics for this file in time", s.cfg.Name)
			}
			if r, _ := p.readiness(); r.State != Ready && fd.Verdict == Timeout {
				fd.Verdict = Indexing
				fd.Detail = fmt.Sprintf("%s is still loading the project (%s)", s.cfg.Name, r.Work())
			}
			return fd
		}
	}
}

// isEmptyArray reports whether raw is a JSON array with no element.
func isEmptyArray(raw json.RawMessage) bool {
	return strings.Join(strings.Fields(string(raw)), "") == "[]"
}

// startVerdict is the verdict when no running server could be had: the
// server is starting (never "timeout": it is not failing, and nothing is
// known yet), or it failed to start (missing, crashing, broken), or the
// wait ended on something else.
func startVerdict(fd FileDiagnostics, err error) FileDiagnostics {
	fd.Verdict, fd.Detail = Failed, err.Error()
	var se *StartingError
	switch {
	case errors.As(err, &se):
		fd.Verdict = Starting
	case errors.Is(err, context.DeadlineExceeded):
		fd.Verdict = Timeout
	}
	return fd
}
