package lsp

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// DefaultMaxWatchedDirs is Options.MaxWatchedDirs's default.
const DefaultMaxWatchedDirs = filewatch.DefaultMaxDirs

// WatchStatus says how far file changes made behind the client's back
// (by the agent's shell, a build, git) are seen.
type WatchStatus struct {
	// Mode is "inotify" (the kernel reports every change), "scan" (file
	// times compared at each request), "off", or "pending" (watching
	// starts with the first server).
	Mode string `json:"mode"`
	// Dirs is the number of folders watched.
	Dirs int `json:"dirs"`
	// Note says what is not covered, empty when every folder is: the
	// folder limit reached, or events lost to a burst of changes.
	Note string `json:"note,omitempty"`
}

// watchSet is a Manager's watcher, made when the first server starts.
// mu serialises drains with the delivery of their events, so a request
// that follows another finds the changes before it already told.
type watchSet struct {
	mu     sync.Mutex
	w      filewatch.Watcher
	closed bool
	// held are changes seen while no server ran but one was starting,
	// for when it runs; heldLost, that some were dropped.
	held     []filewatch.Event
	heldLost bool
	// note is why watching fell back or lost events; it joins the
	// watcher's own note in status.
	note string
	// told is closed when the goroutine telling changes as they are
	// seen has ended (nil: none runs).
	told chan struct{}
}

// watchRoot watches a workspace root for changes; it runs before a
// server's process starts, so every change after the server read the disk
// is seen. The watcher is made on first use: a Manager whose servers never
// start holds no watch.
func (m *Manager) watchRoot(root string) {
	if m.opts.MaxWatchedDirs < 0 {
		return
	}
	ws := &m.watch
	ws.mu.Lock()
	if ws.closed {
		ws.mu.Unlock()
		return
	}
	if ws.w == nil {
		w, err := filewatch.New(m.opts.MaxWatchedDirs)
		if err != nil {
			ws.note = err.Error()
			m.log.Warn("file watching degraded", "err", err)
		}
		ws.w = w
		if wake := w.Wake(); wake != nil && !m.opts.TellAtRequest {
			ws.told = make(chan struct{})
			go m.tellChanges(wake, ws.told)
		}
	}
	w := ws.w
	ws.mu.Unlock()
	w.Add(root)
}

// tellChanges tells the running servers about changes on disk as the
// watcher signals them, until it closes. Signals coalesce while a round
// runs, so a burst of writes is told in batches of several files (about
// one notification per four to eight new files), not one per file; gopls
// spends the same CPU on a burst told so as on one batch (docs/lsp.md).
func (m *Manager) tellChanges(wake <-chan struct{}, done chan struct{}) {
	defer close(done)
	for range wake {
		m.syncDiskQuiet()
	}
}

// WatchStatus says how changes made on disk behind the client's back are
// seen, and what is not covered.
func (m *Manager) WatchStatus() WatchStatus {
	ws := &m.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.w == nil {
		if m.opts.MaxWatchedDirs < 0 {
			return WatchStatus{Mode: "off", Note: "file watching is off (local.watch = false): files changed outside acp-lsp reach a language server only when the file itself is asked about"}
		}
		return WatchStatus{Mode: "pending"} // it starts with the first server
	}
	st := WatchStatus(ws.w.Status())
	switch {
	case st.Note == "":
		st.Note = ws.note
	case ws.note != "":
		st.Note = ws.note + "; " + st.Note
	}
	return st
}

// syncDisk tells the running servers about the changes on disk seen since
// the last call, and about paths (files the caller knows changed: created,
// changed or deleted, as the disk now says). It runs before every request
// that depends on file state; the lock keeps the changes a request drained
// ahead of the requests after it.
func (m *Manager) syncDisk(paths ...string) error {
	ws := &m.watch
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return nil
	}
	var evs []filewatch.Event
	lost := false
	if ws.w != nil {
		evs, lost = ws.w.Drain()
	}
	if len(ws.held) > 0 || ws.heldLost {
		evs, lost = append(ws.held, evs...), lost || ws.heldLost
		ws.held, ws.heldLost = nil, false
	}
	if len(paths) > 0 || len(evs) > 1 {
		q := filewatch.Queue{Max: math.MaxInt}
		for _, e := range evs {
			q.Add(e)
		}
		for _, path := range paths {
			abs, err := filepath.Abs(path)
			if err != nil {
				continue
			}
			typ := changeChanged
			if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
				typ = changeDeleted
			}
			q.Record(abs, typ, false)
		}
		evs, _ = q.Take()
	}
	procs := m.running()
	if len(procs) == 0 {
		// Nobody to tell: a server started later reads the disk itself.
		// One starting now may have read a file before it changed, so
		// the changes are held for when it runs.
		if m.anyStarting() && (len(evs) > 0 || lost) {
			ws.held, ws.heldLost = evs, lost
			if len(ws.held) > filewatch.MaxEvents {
				ws.held, ws.heldLost = nil, true
			}
		}
		return nil
	}
	if lost {
		ws.note = fmt.Sprintf("file watching lost events at %s (more than %d files changed at once); servers were told of the rest and open files were resent, but a server may keep an outdated copy of a file nobody asked about: restart it if its answers look out of date",
			m.now().UTC().Format(time.TimeOnly), filewatch.MaxEvents)
		m.log.Warn("file watching lost events")
	}
	var errs []error
	for _, p := range procs {
		m.watchBasesLocked(p)
		pevs, plost := evs, lost
		if back, blost, ok := p.takeBacklog(); ok {
			// Changes seen before the server registered its watchers go
			// first, merged with the new ones.
			q := filewatch.Queue{Max: math.MaxInt}
			for _, e := range append(back, evs...) {
				q.Add(e)
			}
			pevs, _ = q.Take()
			plost = plost || blost
		}
		if len(pevs) > 0 || plost {
			errs = append(errs, p.diskChanged(pevs, plost))
		}
	}
	return errors.Join(errs...)
}

// maxBacklog bounds the changes kept for a server that has not registered
// file watchers yet.
const maxBacklog = 5000

// keepBacklog keeps changes for a server that has not registered file
// watchers yet: gopls registers them only once it has loaded the
// workspace, seconds into a large one, and a change made meanwhile to a
// file it already read would otherwise never reach it. A server that
// never registers holds at most maxBacklog changes.
func (p *proc) keepBacklog(evs []filewatch.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hadWatchers {
		return
	}
	for _, e := range evs {
		if !edit.Within(p.srv.ceiling, e.Path) {
			continue
		}
		if len(p.backlog) >= maxBacklog {
			p.backlogLost = true
			return
		}
		p.backlog = append(p.backlog, e)
	}
}

// takeBacklog returns the kept changes once the server has registered
// file watchers (ok false before, or with nothing kept).
func (p *proc) takeBacklog() (evs []filewatch.Event, lost, ok bool) {
	p.mu.Lock()
	kept := len(p.backlog) > 0 || p.backlogLost
	p.mu.Unlock()
	if !kept || len(p.fileWatchers()) == 0 {
		return nil, false, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	evs, lost = p.backlog, p.backlogLost
	p.backlog, p.backlogLost = nil, false
	return evs, lost, true
}

// closeWatch ends the watcher (Manager.Close).
func (m *Manager) closeWatch() {
	ws := &m.watch
	ws.mu.Lock()
	ws.closed = true
	if ws.w != nil {
		_ = ws.w.Close() // closes the wake channel
	}
	told := ws.told
	ws.mu.Unlock()
	// Not under ws.mu: a round in progress needs it to end.
	if told != nil {
		<-told
	}
}

// diskChanged tells the server about changes on disk, in this order:
// open documents deleted are closed; the changes its file watchers ask for
// are sent with workspace/didChangeWatchedFiles, except those of documents
// still open; changed open documents are resynced. An open document's
// content is the client's to tell (LSP): its didChange carries the new
// text, and a watched event for it as well made gopls load and check the
// change twice (diagnostics after an edit took ~1.4x gopls's own publish
// time). Should the resync close the document instead (now too large or
// binary), its event is sent after all, so the server reads the disk.
//
// Every other open document is sent again before its next request once
// any change concerning the server was told (or, for a file of its
// languages it does not watch, or a folder that may have held some,
// happened untold), since its diagnostics may depend on the changed
// files: a server that echoes versions would
// otherwise seem to have reported on it already. Each change marks the
// documents sent before it, so of the changed open documents only the
// last one sent is spared: the server may have checked the others before
// the rest reached it, and published for their current versions
// diagnostics the rest would change (gopls did, after a rename touching
// two files, also when the two changes reached acp-lsp in two batches).
// A single changed open document is thus sent once, and never again.
func (p *proc) diskChanged(evs []filewatch.Event, lost bool) error {
	s := p.srv
	watchers := p.fileWatchers()
	if len(watchers) == 0 {
		p.keepBacklog(evs)
	}
	var (
		changes []fileChange
		changed []string                  // open documents to resync
		held    = map[string]fileChange{} // their watched events, sent only if the resync closes them
		errs    []error
	)
	untold := lost
	for _, e := range evs {
		if !edit.Within(s.ceiling, e.Path) {
			continue
		}
		open := false
		if !e.Dir {
			p.mu.Lock()
			if d := p.docs[e.Path]; d != nil {
				open = true
				// It changed: the resync compares the text, as its size
				// and mtime may be the same (a copy that kept the mtime).
				d.statStale = true
			}
			p.mu.Unlock()
			switch {
			case open && e.Op == changeDeleted:
				p.closeDoc(e.Path)
				open = false // closed: the server reads the disk now
			case open:
				changed = append(changed, e.Path)
			}
		}
		tell := false
		for _, w := range watchers {
			if w.wants(e.Path, s.root, e.Op, e.Dir) {
				tell = true
				break
			}
		}
		switch {
		case tell && open:
			held[e.Path] = fileChange{URI: edit.URIFromPath(e.Path), Type: int(e.Op)}
		case tell:
			changes = append(changes, fileChange{URI: edit.URIFromPath(e.Path), Type: int(e.Op)})
		case !open && !e.Dir && s.cfg.Serves(e.Path):
			untold = true
		case e.Dir:
			// A folder moved away comes as one event, none for its
			// files, which may have been of the server's languages.
			untold = true
		}
	}
	if err := p.notifyWatched(changes); err != nil {
		errs = append(errs, err)
	}
	if untold {
		p.markResend()
	}
	var closed []fileChange
	for _, path := range changed {
		if _, err := p.sync(path); err != nil {
			errs = append(errs, err)
			p.mu.Lock()
			_, open := p.docs[path]
			p.mu.Unlock()
			// A vanished file's deletion was told by the resync.
			if ch, ok := held[path]; ok && !open && !errors.Is(err, fs.ErrNotExist) {
				closed = append(closed, ch)
			}
		}
	}
	if err := p.notifyWatched(closed); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// fileWatchers returns the compiled watchers of the server's
// didChangeWatchedFiles registrations. A registration none of whose
// patterns can be read is taken as watching everything: better an event
// too many than a server blind to changes.
func (p *proc) fileWatchers() []fileWatcher {
	var out []fileWatcher
	for _, r := range p.dynamic("workspace/didChangeWatchedFiles") {
		key := r.ID + "\x00" + string(r.RegisterOptions)
		p.mu.Lock()
		ws, ok := p.watchCache[key]
		p.mu.Unlock()
		if !ok {
			var err error
			ws, err = parseWatchers(r.RegisterOptions)
			if err != nil {
				p.log.Warn("file watcher patterns not understood", "server", p.srv.cfg.Name, "err", err)
			}
			if len(ws) == 0 {
				ws = []fileWatcher{{kind: watchCreate | watchChange | watchDelete}}
			}
			p.mu.Lock()
			if p.watchCache == nil {
				p.watchCache = map[string][]fileWatcher{}
			}
			p.watchCache[key] = ws
			p.mu.Unlock()
		}
		out = append(out, ws...)
	}
	if len(out) > 0 {
		p.mu.Lock()
		p.hadWatchers = true
		p.mu.Unlock()
	}
	return out
}

// syncDiskQuiet is syncDisk before a request: a failure to tell a server
// about another file is logged, not the request's error.
func (m *Manager) syncDiskQuiet() {
	if err := m.syncDisk(); err != nil {
		m.log.Debug("changes on disk not all told", "err", err)
	}
}

// WatchCoverage says how file watching would cover root with at most
// maxDirs folders (negative: off): the mode, the folders watched and what
// is left out. It keeps no watch.
func WatchCoverage(root string, maxDirs int) WatchStatus {
	if maxDirs < 0 {
		return WatchStatus{Mode: "off", Note: "file watching is off: files changed outside acp-lsp reach a language server only when the file itself is asked about"}
	}
	if maxDirs == 0 {
		maxDirs = DefaultMaxWatchedDirs
	}
	w, err := filewatch.New(maxDirs)
	defer w.Close()
	w.Add(root)
	st := WatchStatus(w.Status())
	if err != nil {
		st.Note = strings.TrimPrefix(st.Note+"; "+err.Error(), "; ")
	}
	return st
}

// anyStarting reports whether some server is starting.
func (m *Manager) anyStarting() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		s.mu.Lock()
		starting := s.state == StateStarting
		s.mu.Unlock()
		if starting {
			return true
		}
	}
	return false
}

// watchBasesLocked watches the folders a server's file watchers are based
// in where the workspace watch skips them (inside node_modules or .venv,
// say: pyright bases a watcher on a project's site-packages, so that a
// package installed there reaches it). Bases outside every workspace root
// are not watched. It runs at every sync: a base deleted and made again
// (a package reinstalled) is watched again, at the cost of a map lookup
// for a base already watched. ws.mu is held.
func (m *Manager) watchBasesLocked(p *proc) {
	w := m.watch.w
	if w == nil {
		return
	}
	for _, base := range p.skippedBases(m) {
		w.Add(base)
	}
}

// skippedBases returns the bases of the server's relative-pattern
// watchers that lie in a workspace root but in a folder the workspace
// watch skips; each base is judged once.
func (p *proc) skippedBases(m *Manager) []string {
	watchers := p.fileWatchers()
	var out []string
	for _, fw := range watchers {
		if fw.base == "" {
			continue
		}
		p.mu.Lock()
		skipped, judged := p.bases[fw.base]
		p.mu.Unlock()
		if !judged {
			m.mu.Lock()
			roots := slices.Clone(m.roots)
			m.mu.Unlock()
			for _, r := range roots {
				if edit.Within(r, fw.base) && filewatch.Skips(r, fw.base) {
					skipped = true
					break
				}
			}
			p.mu.Lock()
			if p.bases == nil {
				p.bases = map[string]bool{}
			}
			p.bases[fw.base] = skipped
			p.mu.Unlock()
		}
		if skipped && !slices.Contains(out, fw.base) {
			out = append(out, fw.base)
		}
	}
	return out
}
