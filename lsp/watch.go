package lsp

import (
	"encoding/binary"
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

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// fileEvent is one change seen on disk, coalesced per path since the last
// drain.
type fileEvent struct {
	path string
	typ  int // changeCreated, changeChanged or changeDeleted
	dir  bool
	// absent: the path did not exist before its first change coalesced
	// here, so if it exists after the last one it is new to the server.
	absent bool
}

// DefaultMaxWatchedDirs is Options.MaxWatchedDirs's default.
const DefaultMaxWatchedDirs = 10000

// maxPendingEvents bounds the distinct paths kept between two drains; a
// burst beyond it (a checkout of another branch, say) is reported as lost
// events rather than held in memory.
const maxPendingEvents = 20000

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

// diskWatcher reports changes under workspace roots. All methods are safe
// for concurrent use. Events are coalesced per path and returned by drain
// in the order each path first changed; drain returns every change whose
// system call returned before drain was called.
type diskWatcher interface {
	// add watches root and every folder below it (up to the limit,
	// skipping heavy folders such as .git and node_modules).
	add(root string)
	// drain returns and forgets the changes seen so far; lost reports
	// that some were dropped (the queue overflowed).
	drain() (events []fileEvent, lost bool)
	status() WatchStatus
	close() error
}

// eventQueue coalesces the changes seen between two drains, one entry
// per path, bounded by max distinct paths. The caller locks.
type eventQueue struct {
	events []fileEvent
	index  map[string]int
	max    int
	lost   bool
}

func (q *eventQueue) record(path string, typ int, dir bool) {
	q.add(fileEvent{path: path, typ: typ, dir: dir, absent: typ == changeCreated})
}

// add records e, coalesced with the earlier changes to its path: what the
// server knew is the state before the first of them, what it must hear
// the state after the last. A file created, deleted and created again is
// still created (not changed: a watcher of creations only wants it); one
// deleted and created again was replaced, so changed.
func (q *eventQueue) add(e fileEvent) {
	if i, ok := q.index[e.path]; ok {
		typ := e.typ
		switch {
		case typ == changeDeleted: // gone now, whatever it was
		case q.events[i].absent:
			typ = changeCreated // still new to whoever hears of it
		default:
			typ = changeChanged // it existed before, and does now
		}
		q.events[i].typ, q.events[i].dir = typ, e.dir
		return
	}
	if len(q.events) >= q.max {
		q.lost = true
		return
	}
	if q.index == nil {
		q.index = map[string]int{}
	}
	q.index[e.path] = len(q.events)
	q.events = append(q.events, e)
}

func (q *eventQueue) take() ([]fileEvent, bool) {
	evs, lost := q.events, q.lost
	q.events, q.lost = nil, false
	clear(q.index)
	return evs, lost
}

// ignoredDirs are folders never watched: version control data, package
// and build caches, virtual environments. Watching them costs a watch per
// folder (node_modules alone can hold tens of thousands) and tells a
// language server nothing it acts on.
var ignoredDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true,
	"node_modules": true, ".cache": true, "__pycache__": true, ".venv": true,
	".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	".gradle": true, ".idea": true, ".next": true, ".nuxt": true, ".direnv": true,
	".zig-cache": true, "zig-cache": true, ".terraform": true, ".dart_tool": true,
}

// skipDir reports whether the folder dir (named name) is not watched:
// named in ignoredDirs, or tagged as a cache with CACHEDIR.TAG (Cargo's
// target folder, among others, carries one).
func skipDir(dir, name string) bool {
	if ignoredDirs[name] {
		return true
	}
	_, err := os.Lstat(filepath.Join(dir, "CACHEDIR.TAG"))
	return err == nil
}

// watchSet is a Manager's watcher, made when the first server starts.
// mu serialises drains with the delivery of their events, so a request
// that follows another finds the changes before it already told.
type watchSet struct {
	mu     sync.Mutex
	w      diskWatcher
	closed bool
	// held are changes seen while no server ran but one was starting,
	// for when it runs; heldLost, that some were dropped.
	held     []fileEvent
	heldLost bool
	// note is why watching fell back or lost events; it joins the
	// watcher's own note in status.
	note string
	// told is closed when the goroutine telling changes as they are
	// seen has ended (nil: none runs).
	told chan struct{}
}

// waker is a diskWatcher that signals when a change worth telling at once
// was seen: a file written and closed, moved or deleted (not a write in
// progress, whose half-written text would reach the server). The channel
// has a buffer of one, so signals coalesce, and is closed when the
// watcher is.
type waker interface {
	wakes() <-chan struct{}
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
		w, err := newDiskWatcher(m.opts.MaxWatchedDirs)
		if err != nil {
			ws.note = err.Error()
			m.log.Warn("file watching degraded", "err", err)
		}
		ws.w = w
		if wk, ok := w.(waker); ok && !m.opts.TellAtRequest {
			ws.told = make(chan struct{})
			go m.tellChanges(wk.wakes(), ws.told)
		}
	}
	w := ws.w
	ws.mu.Unlock()
	w.add(root)
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
	st := ws.w.status()
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
	var evs []fileEvent
	lost := false
	if ws.w != nil {
		evs, lost = ws.w.drain()
	}
	if len(ws.held) > 0 || ws.heldLost {
		evs, lost = append(ws.held, evs...), lost || ws.heldLost
		ws.held, ws.heldLost = nil, false
	}
	if len(paths) > 0 || len(evs) > 1 {
		q := eventQueue{max: math.MaxInt}
		for _, e := range evs {
			q.add(e)
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
			q.record(abs, typ, false)
		}
		evs, _ = q.take()
	}
	procs := m.running()
	if len(procs) == 0 {
		// Nobody to tell: a server started later reads the disk itself.
		// One starting now may have read a file before it changed, so
		// the changes are held for when it runs.
		if m.anyStarting() && (len(evs) > 0 || lost) {
			ws.held, ws.heldLost = evs, lost
			if len(ws.held) > maxPendingEvents {
				ws.held, ws.heldLost = nil, true
			}
		}
		return nil
	}
	if lost {
		ws.note = fmt.Sprintf("file watching lost events at %s (more than %d files changed at once); servers were told of the rest and open files were resent, but a server may keep an outdated copy of a file nobody asked about: restart it if its answers look out of date",
			m.now().UTC().Format(time.TimeOnly), maxPendingEvents)
		m.log.Warn("file watching lost events")
	}
	var errs []error
	for _, p := range procs {
		m.watchBasesLocked(p)
		pevs, plost := evs, lost
		if back, blost, ok := p.takeBacklog(); ok {
			// Changes seen before the server registered its watchers go
			// first, merged with the new ones.
			q := eventQueue{max: math.MaxInt}
			for _, e := range append(back, evs...) {
				q.add(e)
			}
			pevs, _ = q.take()
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
func (p *proc) keepBacklog(evs []fileEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hadWatchers {
		return
	}
	for _, e := range evs {
		if !edit.Within(p.srv.ceiling, e.path) {
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
func (p *proc) takeBacklog() (evs []fileEvent, lost, ok bool) {
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
		_ = ws.w.close() // closes the wake channel
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
func (p *proc) diskChanged(evs []fileEvent, lost bool) error {
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
		if !edit.Within(s.ceiling, e.path) {
			continue
		}
		open := false
		if !e.dir {
			p.mu.Lock()
			if d := p.docs[e.path]; d != nil {
				open = true
				// It changed: the resync compares the text, as its size
				// and mtime may be the same (a copy that kept the mtime).
				d.statStale = true
			}
			p.mu.Unlock()
			switch {
			case open && e.typ == changeDeleted:
				p.closeDoc(e.path)
				open = false // closed: the server reads the disk now
			case open:
				changed = append(changed, e.path)
			}
		}
		tell := false
		for _, w := range watchers {
			if w.wants(e.path, s.root, e.typ, e.dir) {
				tell = true
				break
			}
		}
		switch {
		case tell && open:
			held[e.path] = fileChange{URI: edit.URIFromPath(e.path), Type: e.typ}
		case tell:
			changes = append(changes, fileChange{URI: edit.URIFromPath(e.path), Type: e.typ})
		case !open && !e.dir && s.cfg.Serves(e.path):
			untold = true
		case e.dir:
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

// parseInotify walks a buffer of struct inotify_event records (wd int32,
// mask uint32, cookie uint32, len uint32, then len bytes of NUL-padded
// name), calling fn for each; it stops with an error at a record that
// does not fit in the buffer.
func parseInotify(b []byte, fn func(wd int32, mask uint32, name string)) error {
	const header = 16
	for len(b) > 0 {
		if len(b) < header {
			return fmt.Errorf("inotify: %d stray bytes", len(b))
		}
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		n := binary.NativeEndian.Uint32(b[12:])
		if uint64(n) > uint64(len(b)-header) {
			return fmt.Errorf("inotify: name of %d bytes in a record of %d", n, len(b)-header)
		}
		name := b[header : header+int(n)]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		fn(wd, mask, string(name))
		b = b[header+int(n):]
	}
	return nil
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
	w, err := newDiskWatcher(maxDirs)
	defer w.close()
	w.add(root)
	st := w.status()
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
		w.add(base)
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
				if edit.Within(r, fw.base) && skippedBetween(r, fw.base) {
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

// skippedBetween reports whether a folder on the way down from root to
// dir (dir included, root not) is one the watch skips.
func skippedBetween(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return false
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		if skipDir(cur, part) {
			return true
		}
	}
	return false
}

// venvSitePackages returns the site-packages folders of dir when it is a
// Python virtual environment (it holds pyvenv.cfg).
func venvSitePackages(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err != nil {
		return nil
	}
	out, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages"))
	if win := filepath.Join(dir, "Lib", "site-packages"); !slices.Contains(out, win) {
		if fi, err := os.Stat(win); err == nil && fi.IsDir() {
			out = append(out, win)
		}
	}
	return out
}
