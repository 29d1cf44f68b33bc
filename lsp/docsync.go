package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acp-lsp/acp-lsp/internal/filewatch"
	"github.com/acp-lsp/acp-lsp/internal/regfile"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// document is one file open in one server process.
type document struct {
	path, uri string
	dir       string // filepath.Dir(path), for closeVanished
	version   int32
	hash      [32]byte
	size      int64
	mtime     time.Time
	text      *position.Document
	lastUsed  time.Time
	// sentSeq is the diagnostics sequence number when the current version
	// was sent: a publish with a higher number came after it.
	sentSeq uint64
	// pull keeps the last pulled report per identifier for "unchanged"
	// answers.
	pull map[string]pullState
	// resend: the workspace changed under the server since this version
	// was sent (a file deleted or changed on disk), so diagnostics the
	// server published for it may be outdated; the next sync sends the
	// same text again with a new version, and the diagnostics wait for
	// that one.
	resend bool
	// statStale: size and mtime cannot vouch for the content, so the next
	// sync compares its hash. The mtime was within racyWindow of the stat
	// (a rewrite of the same size within the file system's timestamp
	// granularity leaves it equal), or a change to the file was reported
	// (a copy that kept the old mtime: cp -p, rsync -a, tar).
	statStale bool
	// peek: only peeks (usePeek) opened it and no request of the agent's
	// used it since; the last peek's end closes it.
	peek bool
}

// DefaultMaxFileSize is Options.MaxFileSize's default: 10 MiB.
const DefaultMaxFileSize = edit.DefaultMaxFileSize

// Reasons a file is not sent to a language server, wrapped by *FileError.
var (
	// ErrFileTooLarge: the file is over Options.MaxFileSize. It is
	// regfile.ErrTooLarge, so one errors.Is matches a file refused here or
	// by regfile.Read.
	ErrFileTooLarge = regfile.ErrTooLarge
	// ErrBinaryFile: the file holds NUL bytes or invalid UTF-8, so it is
	// not text a language server could read.
	ErrBinaryFile = errors.New("binary file")
)

// FileError says why a file was not sent to its language server. The
// server is not told about the file (a copy it had open is closed) and
// keeps serving every other file. errors.Is matches ErrFileTooLarge or
// ErrBinaryFile.
type FileError struct {
	Path string
	// Size is the file's size in bytes.
	Size int64
	// Limit is the cap a too-large file is over (Options.MaxFileSize).
	Limit int64
	// Offset is the first NUL byte or invalid UTF-8 of a binary file.
	Offset int
	// Err is ErrFileTooLarge or ErrBinaryFile.
	Err error
	nul bool // the bad byte at Offset is a NUL (else invalid UTF-8)
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, ErrFileTooLarge) {
		return fmt.Sprintf("sync %s: too large for a language server: %s, over the cap of %s; not sent to the server",
			e.Path, regfile.SizeAndBytes(e.Size), regfile.ByteSize(e.Limit))
	}
	what := "invalid UTF-8"
	if e.nul {
		what = "a NUL byte"
	}
	return fmt.Sprintf("sync %s: binary content (%s at byte %d of %d), not text; not sent to the server",
		e.Path, what, e.Offset, e.Size)
}

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// binaryAt returns the offset of the first NUL byte or invalid UTF-8
// sequence in b, or -1 when b is UTF-8 text.
func binaryAt(b []byte) int {
	first := bytes.IndexByte(b, 0)
	if first < 0 && utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0 || (r == utf8.RuneError && n == 1) {
			return i
		}
		i += n
	}
	return first
}

type pullState struct {
	resultID string
	items    json.RawMessage
	version  int32
	// gen is the process's count of workspace/diagnostic/refresh requests
	// when the report was asked for: a refresh since means the server's
	// word may have changed without the document changing.
	gen uint64
}

// sync brings the server's view of path up to date with the disk: didOpen
// the first time, didChange (full text) with the next version when the
// content hash changed. It returns a snapshot of the document. Calls are
// serialised per process so versions go out in order.
func (p *proc) sync(path string) (document, error) { return p.syncFor(path, useResync) }

// docUse says what a sync is for, which decides whether the document
// stays open after the request that synced it.
type docUse int

const (
	// useResync brings an open document up to date (a restart, a change
	// on disk): it changes nothing about why it is open.
	useResync docUse = iota
	// useKeep is a request of the agent's: the document stays open (until
	// idle or evicted), even if a peek opened it.
	useKeep
	// usePeek is a request that only reads the file in passing (an
	// outline for enclosing symbols), synced only when the server would
	// not answer about the file unopened (Manager.Peek): a document it
	// opens is closed when the last peek at it ends, unless a useKeep sync
	// came meanwhile, so the server does not keep analysing files nobody
	// asked about.
	usePeek
)

// syncFor is sync for a use; a usePeek sync must be ended by unpeek.
func (p *proc) syncFor(path string, use docUse) (document, error) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.mu.Lock()
	_, was := p.docs[path]
	p.mu.Unlock()
	snap, err := p.syncLocked(path)
	if err != nil || use == useResync {
		return snap, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.docs[path]; d != nil {
		switch use {
		case useKeep:
			d.peek = false
		case usePeek:
			if !was {
				d.peek = true
			}
			if p.peeks == nil {
				p.peeks = map[string]int{}
			}
			p.peeks[path]++
		}
	}
	return snap, nil
}

// isOpen reports whether path is an open document.
func (p *proc) isOpen(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.docs[path]
	return ok
}

// unpeek ends a usePeek sync of path: the document is closed if only
// peeks opened it and none is left.
func (p *proc) unpeek(path string) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.mu.Lock()
	n := p.peeks[path] - 1
	if n > 0 {
		p.peeks[path] = n
	} else {
		delete(p.peeks, path)
	}
	d := p.docs[path]
	done := d != nil && d.peek && n <= 0
	p.mu.Unlock()
	if done {
		p.closeDocLocked(path)
	}
}

// syncLocked is sync with syncMu held.
func (p *proc) syncLocked(path string) (document, error) {
	now := p.srv.mgr.now()
	defer p.closeIdle(path, now)
	p.closeVanished()
	statAt := time.Now()
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			p.mu.Lock()
			_, open := p.docs[path]
			p.mu.Unlock()
			if open {
				p.dropVanished([]string{path})
			}
			return document{}, &fs.PathError{Op: "sync", Path: path, Err: syscall.ENOENT}
		}
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		// A folder made where the file was (or a pipe, a device: reading
		// one could block or never end) is no document: a copy the server
		// had open is gone, as if the file were deleted.
		p.mu.Lock()
		_, open := p.docs[path]
		p.mu.Unlock()
		if open {
			p.dropVanished([]string{path})
		}
		if fi.IsDir() {
			return document{}, fmt.Errorf("sync %s: is a directory", path)
		}
		return document{}, fmt.Errorf("sync %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	statStale := statAt.Sub(fi.ModTime()) <= racyWindow
	limit := p.srv.mgr.opts.MaxFileSize
	if limit > 0 && fi.Size() > limit {
		p.closeDocLocked(path)
		return document{}, &FileError{Path: path, Size: fi.Size(), Limit: limit, Err: ErrFileTooLarge}
	}
	p.mu.Lock()
	d := p.docs[path]
	if d != nil && !d.resend && !d.statStale && d.size == fi.Size() && d.mtime.Equal(fi.ModTime()) {
		d.lastUsed = now
		snap := *d
		p.mu.Unlock()
		return snap, nil
	}
	p.mu.Unlock()
	b, _, err := regfile.Read(path, limit)
	if se := (*regfile.SizeError)(nil); errors.As(err, &se) { // it grew since the stat
		p.closeDocLocked(path)
		return document{}, &FileError{Path: path, Size: se.Size, Limit: limit, Err: ErrFileTooLarge}
	}
	if err != nil {
		// A pipe or a folder put there since the stat is refused
		// unread as well.
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	if off := binaryAt(b); off >= 0 {
		p.closeDocLocked(path)
		return document{}, &FileError{Path: path, Size: int64(len(b)), Offset: off, Err: ErrBinaryFile, nul: b[off] == 0}
	}
	sum := sha256.Sum256(b)
	text := string(b)
	p.mu.Lock()
	if d != nil && !d.resend && d.hash == sum {
		d.size, d.mtime, d.lastUsed, d.statStale = fi.Size(), fi.ModTime(), now, statStale
		snap := *d
		p.mu.Unlock()
		return snap, nil
	}
	seq := p.diags.current()
	var method string
	var params json.RawMessage
	if d == nil {
		d = &document{path: path, dir: filepath.Dir(path), uri: edit.URIFromPath(path), version: max(p.closedVersions[path], p.closedFloor) + 1}
		delete(p.closedVersions, path)
		p.docs[path] = d
		method = "textDocument/didOpen"
		params = didOpenParams(d.uri, p.srv.cfg.LanguageID(path), d.version, text)
	} else {
		if d.hash != sum {
			// A new text (not the same one sent again) may change what
			// the server says about every other open document: their
			// diagnostics for their current versions could predate it.
			p.markResendLocked(path)
		}
		d.version++
		method = "textDocument/didChange"
		params = didChangeParams(d.uri, d.version, text)
	}
	d.hash, d.size, d.mtime, d.lastUsed, d.statStale = sum, fi.Size(), fi.ModTime(), now, statStale
	d.text = position.NewDocumentString(text)
	d.sentSeq = seq
	d.resend = false
	snap := *d
	evict := p.evictLocked(path)
	p.mu.Unlock()
	if err := p.notify(method, params); err != nil {
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	for _, e := range evict {
		_ = p.notify("textDocument/didClose", didCloseParams(e))
	}
	return snap, nil
}

// closeVanished closes the open documents whose file is gone from disk
// (deleted by the agent's shell, say, with nobody telling us): the server
// would otherwise keep analysing its open copy, and files that used the
// deleted one would still compile in its eyes. Servers that watch files
// also get a Deleted event, and every other open document is sent again
// before its next request, so its diagnostics are recomputed without the
// deleted file. syncMu is held.
//
// It runs before every request, so it stats the folders of the open
// documents, not each document: deleting a file changes its folder's
// mtime. The documents of a folder are stat'ed only when its mtime
// changed since the last look, or was too recent then to be trusted (a
// change within the file system's timestamp granularity would leave it
// equal: the "racy" case, as in git's index).
func (p *proc) closeVanished() {
	p.mu.Lock()
	dirs := make(map[string]bool, len(p.dirStamps)+1) // folder → its documents need a stat
	for _, d := range p.docs {
		dirs[d.dir] = false
	}
	p.mu.Unlock()
	stamps := make(map[string]dirStamp, len(dirs))
	check := false
	for dir := range dirs {
		now := time.Now()
		fi, err := os.Stat(dir)
		if err != nil {
			dirs[dir], check = true, true
			continue
		}
		st := dirStamp{mtime: fi.ModTime(), trusted: now.Sub(fi.ModTime()) > racyWindow}
		stamps[dir] = st
		if old, ok := p.dirStamps[dir]; !ok || !old.trusted || !old.mtime.Equal(st.mtime) {
			dirs[dir], check = true, true
		}
	}
	p.dirStamps = stamps
	if !check {
		return
	}
	var paths []string
	p.mu.Lock()
	for path, d := range p.docs {
		if dirs[d.dir] {
			paths = append(paths, path)
		}
	}
	p.mu.Unlock()
	var gone []string
	for _, path := range paths {
		// A folder made in its place is no document either (see sync).
		if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
			gone = append(gone, path)
		}
	}
	p.dropVanished(gone)
}

// dropVanished closes the open documents gone from disk, sends the
// Deleted events where the server watches files, and marks the remaining
// documents for resending. syncMu is held.
func (p *proc) dropVanished(gone []string) {
	if len(gone) == 0 {
		return
	}
	sort.Strings(gone)
	for _, path := range gone {
		p.closeDocLocked(path)
	}
	p.log.Info("closed documents deleted on disk", "server", p.srv.cfg.Name, "files", gone)
	changes := make([]fileChange, len(gone))
	for i, path := range gone {
		changes[i] = fileChange{URI: edit.URIFromPath(path), Type: 3}
	}
	_ = p.notifyWatched(changes)
	p.markResend()
}

// racyWindow is how old a folder's mtime must be for an unchanged mtime
// to prove nothing in it was deleted since: longer than any file system's
// timestamp granularity (FAT's is 2 s).
const racyWindow = 3 * time.Second

// dirStamp is a folder's mtime when closeVanished last looked, and
// whether it was old enough to trust.
type dirStamp struct {
	mtime   time.Time
	trusted bool
}

// markResend marks every open document to be sent again at its next
// sync: the workspace changed under it, and a server that echoes versions
// would otherwise seem to have reported on it already. Every change told
// to a server marks the documents this way (a document's own new text
// spares itself, see markResendLocked), so of documents changed together
// only the one sent last is not sent again: the server may have checked
// the others before the rest reached it.
func (p *proc) markResend() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.markResendLocked("")
}

// markResendLocked is markResend, sparing the document at except, with
// p.mu held.
func (p *proc) markResendLocked(except string) {
	for path, d := range p.docs {
		if path != except {
			d.resend = true
		}
	}
}

type fileChange struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}

// watchesFiles reports whether the server registered file watchers
// (client/registerCapability of workspace/didChangeWatchedFiles). Servers
// that did not register have no use for the notification (LSP leaves
// watching to the client only where asked), and some log every one as
// unexpected.
func (p *proc) watchesFiles() bool {
	return len(p.dynamic("workspace/didChangeWatchedFiles")) > 0
}

// notifyWatched sends workspace/didChangeWatchedFiles where the server
// registered watchers. Watchers' glob patterns are not matched here: a
// server filters the events it gets by its own patterns.
func (p *proc) notifyWatched(changes []fileChange) error {
	if !p.watchesFiles() || len(changes) == 0 {
		return nil
	}
	raw, err := encode(struct {
		Changes []fileChange `json:"changes"`
	}{changes})
	if err != nil {
		return err
	}
	err = p.notify("workspace/didChangeWatchedFiles", raw)
	// Marked after the write: a document sent meanwhile by another
	// goroutine may have gone out before it, so it is sent again too.
	p.markResend()
	return err
}

// closeIdle closes the documents other than keep that no request used for
// Options.DocumentIdle: a server keeps analysing what is open, so what the
// agent stopped looking at should not cost it memory and CPU. It runs on
// the next sync (a quiet server changes nothing, and idle teardown ends it
// in the end); syncMu is held.
func (p *proc) closeIdle(keep string, now time.Time) {
	idle := p.srv.mgr.opts.DocumentIdle
	if idle <= 0 {
		return
	}
	var uris []string
	p.mu.Lock()
	for path, d := range p.docs {
		if path != keep && now.Sub(d.lastUsed) > idle {
			p.dropDocLocked(d)
			p.diags.forget(d.uri)
			uris = append(uris, d.uri)
		}
	}
	p.mu.Unlock()
	sort.Strings(uris)
	for _, u := range uris {
		_ = p.notify("textDocument/didClose", didCloseParams(u))
	}
}

// evictLocked drops the least recently used documents over the bound and
// returns their URIs for didClose. keep is never evicted.
func (p *proc) evictLocked(keep string) []string {
	limit := p.srv.mgr.opts.MaxOpenDocuments
	var out []string
	for len(p.docs) > limit {
		var oldest *document
		for _, d := range p.docs {
			if d.path != keep && (oldest == nil || d.lastUsed.Before(oldest.lastUsed)) {
				oldest = d
			}
		}
		if oldest == nil {
			break
		}
		p.dropDocLocked(oldest)
		p.diags.forget(oldest.uri)
		out = append(out, oldest.uri)
	}
	return out
}

// closeDoc sends didClose for path if it is open.
func (p *proc) closeDoc(path string) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.closeDocLocked(path)
}

// closeDocLocked is closeDoc with syncMu held.
func (p *proc) closeDocLocked(path string) {
	p.mu.Lock()
	d := p.docs[path]
	if d != nil {
		p.dropDocLocked(d)
	}
	p.mu.Unlock()
	if d == nil {
		return
	}
	p.diags.forget(d.uri)
	_ = p.notify("textDocument/didClose", didCloseParams(d.uri))
}

// closedVersionsMax bounds proc.closedVersions.
const closedVersionsMax = 4096

// dropDocLocked takes d out of the open documents, keeping its version
// for a reopen (closedVersions); p.mu is held.
func (p *proc) dropDocLocked(d *document) {
	delete(p.docs, d.path)
	if len(p.closedVersions) >= closedVersionsMax {
		for _, v := range p.closedVersions {
			p.closedFloor = max(p.closedFloor, v)
		}
		clear(p.closedVersions)
	}
	if p.closedVersions == nil {
		p.closedVersions = map[string]int32{}
	}
	p.closedVersions[d.path] = d.version
}

// openText returns the text of an open document by URI, or nil.
func (p *proc) openText(uri string) *position.Document {
	path, err := edit.PathFromURI(uri)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.docs[path]; d != nil {
		return d.text
	}
	return nil
}

// openPaths lists the open documents, for reopening after a restart.
func (p *proc) openPaths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Keys(p.docs))
}

// saved syncs path and sends didSave if the server asked for it
// (textDocumentSync.save, or a dynamic registration of didSave), with the
// text when it asked for that (includeText): servers that wanted the text
// and did not get it ignore the save.
func (p *proc) saved(path string) error {
	d, err := p.sync(path)
	if err != nil {
		return err
	}
	kind := p.saveKind
	for _, r := range p.dynamic("textDocument/didSave") {
		kind = max(kind, saveNotify)
		var opt struct {
			IncludeText bool `json:"includeText"`
		}
		if len(r.RegisterOptions) > 0 && decode(r.RegisterOptions, &opt) == nil && opt.IncludeText {
			kind = saveWithText
		}
	}
	if kind == saveNone {
		return nil
	}
	uj, _ := encode(d.uri)
	params := `{"textDocument":{"uri":` + string(uj) + `}`
	if kind == saveWithText {
		tj, err := encode(d.text.Text())
		if err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
		params += `,"text":` + string(tj)
	}
	return p.notify("textDocument/didSave", json.RawMessage(params+`}`))
}

// parseSave reads textDocumentSync.save from the server's capabilities:
// absent (or the legacy number form) means no didSave; true or an object
// means didSave, with the text when includeText is set.
func parseSave(raw json.RawMessage) saveKind {
	var sync struct {
		Save json.RawMessage `json:"save"`
	}
	if !present(raw) || raw[0] != '{' || decode(raw, &sync) != nil || !present(sync.Save) {
		return saveNone
	}
	var opt struct {
		IncludeText bool `json:"includeText"`
	}
	if sync.Save[0] == '{' && decode(sync.Save, &opt) == nil && opt.IncludeText {
		return saveWithText
	}
	return saveNotify
}

// renamed tells the server that files moved: the old document is closed,
// didRenameFiles sent when the server asked for it.
func (p *proc) renamed(ctx context.Context, oldPath, newPath string) error {
	p.closeDoc(oldPath)
	if !present(p.caps.Workspace.FileOperations.DidRename) {
		return p.diskChanged([]filewatch.Event{{Path: oldPath, Op: changeDeleted}, {Path: newPath, Op: changeCreated}}, false)
	}
	raw, err := renameParams(oldPath, newPath)
	if err != nil {
		return err
	}
	err = p.notify("workspace/didRenameFiles", raw)
	p.markResend()
	return err
}

func renameParams(oldPath, newPath string) (json.RawMessage, error) {
	type file struct {
		OldURI string `json:"oldUri"`
		NewURI string `json:"newUri"`
	}
	return encode(struct {
		Files []file `json:"files"`
	}{[]file{{edit.URIFromPath(oldPath), edit.URIFromPath(newPath)}}})
}

// didOpenParams are textDocument/didOpen's params: the document's whole
// text at version.
func didOpenParams(uri, languageID string, version int32, text string) json.RawMessage {
	uj, _ := encode(uri)
	lid, _ := encode(languageID)
	tj, _ := encode(text)
	return json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"languageId":%s,"version":%d,"text":%s}}`, uj, lid, version, tj))
}

// didChangeParams are textDocument/didChange's params: the whole new
// text at version (full sync, the one kind acp-lsp sends).
func didChangeParams(uri string, version int32, text string) json.RawMessage {
	uj, _ := encode(uri)
	tj, _ := encode(text)
	return json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"version":%d},"contentChanges":[{"text":%s}]}`, uj, version, tj))
}

// didCloseParams are textDocument/didClose's params.
func didCloseParams(uri string) json.RawMessage {
	uj, _ := encode(uri)
	return json.RawMessage(`{"textDocument":{"uri":` + string(uj) + `}}`)
}
