package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// document is one file open in one server process.
type document struct {
	path, uri string
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
}

type pullState struct {
	resultID string
	items    json.RawMessage
	version  int32
}

// sync brings the server's view of path up to date with the disk: didOpen
// the first time, didChange (full text) with the next version when the
// content hash changed. It returns a snapshot of the document. Calls are
// serialised per process so versions go out in order.
func (p *proc) sync(path string) (document, error) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	now := p.srv.mgr.now()
	defer p.closeIdle(path, now)
	fi, err := os.Stat(path)
	if err != nil {
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	if fi.IsDir() {
		return document{}, fmt.Errorf("sync %s: is a directory", path)
	}
	p.mu.Lock()
	d := p.docs[path]
	if d != nil && d.size == fi.Size() && d.mtime.Equal(fi.ModTime()) {
		d.lastUsed = now
		snap := *d
		p.mu.Unlock()
		return snap, nil
	}
	p.mu.Unlock()
	b, err := os.ReadFile(path)
	if err != nil {
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	text := string(b)
	p.mu.Lock()
	if d != nil && d.hash == sum {
		d.size, d.mtime, d.lastUsed = fi.Size(), fi.ModTime(), now
		snap := *d
		p.mu.Unlock()
		return snap, nil
	}
	seq := p.diags.current()
	var method string
	var params json.RawMessage
	tj, _ := encode(text)
	if d == nil {
		d = &document{path: path, uri: edit.URIFromPath(path), version: 1}
		p.docs[path] = d
		method = "textDocument/didOpen"
		lid, _ := encode(p.srv.cfg.LanguageID(path))
		uj, _ := encode(d.uri)
		params = json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"languageId":%s,"version":1,"text":%s}}`, uj, lid, tj))
	} else {
		d.version++
		method = "textDocument/didChange"
		uj, _ := encode(d.uri)
		params = json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%s,"version":%d},"contentChanges":[{"text":%s}]}`, uj, d.version, tj))
	}
	d.hash, d.size, d.mtime, d.lastUsed = sum, fi.Size(), fi.ModTime(), now
	d.text = position.NewDocumentString(text)
	d.sentSeq = seq
	snap := *d
	evict := p.evictLocked(path)
	p.mu.Unlock()
	if err := p.notify(method, params); err != nil {
		return document{}, fmt.Errorf("sync %s: %w", path, err)
	}
	for _, e := range evict {
		uj, _ := encode(e)
		_ = p.notify("textDocument/didClose", json.RawMessage(`{"textDocument":{"uri":`+string(uj)+`}}`))
	}
	return snap, nil
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
			delete(p.docs, path)
			p.diags.forget(d.uri)
			uris = append(uris, d.uri)
		}
	}
	p.mu.Unlock()
	sort.Strings(uris)
	for _, u := range uris {
		uj, _ := encode(u)
		_ = p.notify("textDocument/didClose", json.RawMessage(`{"textDocument":{"uri":`+string(uj)+`}}`))
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
		delete(p.docs, oldest.path)
		p.diags.forget(oldest.uri)
		out = append(out, oldest.uri)
	}
	return out
}

// close sends didClose for path if it is open.
func (p *proc) closeDoc(path string) {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.mu.Lock()
	d := p.docs[path]
	delete(p.docs, path)
	p.mu.Unlock()
	if d == nil {
		return
	}
	p.diags.forget(d.uri)
	uj, _ := encode(d.uri)
	_ = p.notify("textDocument/didClose", json.RawMessage(`{"textDocument":{"uri":`+string(uj)+`}}`))
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
	out := make([]string, 0, len(p.docs))
	for path := range p.docs {
		out = append(out, path)
	}
	return out
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

// watched sends workspace/didChangeWatchedFiles for paths, resyncing the
// open ones first.
func (p *proc) watched(paths []string) error {
	type change struct {
		URI  string `json:"uri"`
		Type int    `json:"type"`
	}
	var changes []change
	for _, path := range paths {
		typ := 2
		if _, err := os.Stat(path); os.IsNotExist(err) {
			typ = 3
			p.closeDoc(path)
		} else {
			p.mu.Lock()
			_, open := p.docs[path]
			p.mu.Unlock()
			if open {
				if _, err := p.sync(path); err != nil {
					return err
				}
			}
		}
		changes = append(changes, change{URI: edit.URIFromPath(path), Type: typ})
	}
	raw, err := encode(struct {
		Changes []change `json:"changes"`
	}{changes})
	if err != nil {
		return err
	}
	return p.notify("workspace/didChangeWatchedFiles", raw)
}

// renamed tells the server that files moved: the old document is closed,
// didRenameFiles sent when the server asked for it.
func (p *proc) renamed(ctx context.Context, oldPath, newPath string) error {
	p.closeDoc(oldPath)
	if !present(p.caps.Workspace.FileOperations.DidRename) {
		return p.watched([]string{oldPath, newPath})
	}
	raw, err := renameParams(oldPath, newPath)
	if err != nil {
		return err
	}
	return p.notify("workspace/didRenameFiles", raw)
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
