package component

import (
	"os"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// docCache keeps documents the tool read (to place a symbol on a line, to
// show a result's source line), by resolved path, and serves one again
// while a stat shows the same file, size and modification time: one
// syscall instead of open, read and close, and no new line index. On a
// warm hover reading the file was a quarter of the component's own time.
//
// A file modified less than racyWindow before it was read is never served
// from the cache: file systems stamp times with a coarse clock (a kernel
// tick, on some whole seconds), so a second write within the same tick
// could keep size and time (git's "racily clean" entries). Its methods
// are safe for concurrent use; documents are immutable.
type docCache struct {
	// limit is the largest file read (Config.MaxFileSize; negative: no
	// cap), set before the cache is used.
	limit int64

	mu    sync.Mutex
	m     map[string]docEntry
	bytes int
}

type docEntry struct {
	fi  os.FileInfo
	doc *position.Document
}

const (
	// racyWindow is how long after its modification a file is read
	// again every time.
	racyWindow = 2 * time.Second
	// docCacheBytes bounds the text the cache holds; docCacheFile is the
	// largest file it keeps.
	docCacheBytes = 32 << 20
	docCacheFile  = 4 << 20
)

// read returns the document of path as it is on disk now; errors are
// regfile.Read's: a file that is not regular, or is over the cap, is
// refused unread.
func (c *docCache) read(path string) (*position.Document, error) {
	return c.readWith(path, nil)
}

// readWith is read with fi, a stat of path the caller took just before: a
// caller that looked at the file already saves the one syscall a cached
// document costs. With fi nil it takes that stat itself.
func (c *docCache) readWith(path string, fi os.FileInfo) (*position.Document, error) {
	if fi == nil {
		if st, err := os.Stat(path); err == nil {
			fi = st
		}
	}
	if fi != nil {
		c.mu.Lock()
		e, ok := c.m[path]
		c.mu.Unlock()
		if ok && fi.Mode().IsRegular() && os.SameFile(e.fi, fi) && e.fi.Size() == fi.Size() && e.fi.ModTime().Equal(fi.ModTime()) {
			return e.doc, nil
		}
	}
	// The time before the read: a write after it is newer than the
	// content read, whatever its time stamp.
	now := time.Now()
	b, fi, err := regfile.Read(path, c.limit)
	if err != nil {
		return nil, err
	}
	doc := position.NewDocument(b)
	if int64(len(b)) == fi.Size() && len(b) <= docCacheFile && now.Sub(fi.ModTime()) > racyWindow {
		c.put(path, docEntry{fi, doc})
	}
	return doc, nil
}

func (c *docCache) put(path string, e docEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[path]; ok {
		c.bytes -= old.doc.Len()
	}
	if c.m == nil || c.bytes+e.doc.Len() > docCacheBytes {
		c.m = map[string]docEntry{}
		c.bytes = 0
	}
	c.m[path] = e
	c.bytes += e.doc.Len()
}
