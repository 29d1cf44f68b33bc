package filewatch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// scanWatcher finds changes by comparing each file's size and modification
// time with the last look, walking the roots at every drain: the fallback
// where the kernel does not report changes. It costs a walk per request,
// bounded by the folder limit; a change that keeps a file's size and lands
// within the file system's timestamp granularity goes unseen, as with make.
type scanWatcher struct {
	mu    sync.Mutex
	max   int
	roots []string
	files map[string]fileStamp
	dirs  int
	note  string
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// NewScan returns the scan, watching at most maxDirs folders: every
// platform's fallback, and a reference for the others in tests.
func NewScan(maxDirs int) Watcher {
	return &scanWatcher{max: maxDirs, files: map[string]fileStamp{}}
}

// Add takes root's picture, unless a root already walked covers it.
func (w *scanWatcher) Add(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.roots {
		if edit.Within(r, root) && !Skips(r, root) {
			return // its walk covers it
		}
	}
	w.roots = append(w.roots, root)
	w.scanLocked(nil)
}

// Drain walks the roots and reports what differs from the last walk.
func (w *scanWatcher) Drain() ([]Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := Queue{Max: MaxEvents}
	w.scanLocked(&q)
	return q.Take()
}

// Status reports the folders the last walk covered.
func (w *scanWatcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Status{Mode: "scan", Dirs: w.dirs, Note: w.note}
}

// Wake returns nil: the scan learns of changes only in Drain.
func (w *scanWatcher) Wake() <-chan struct{} { return nil }

// Close has nothing to release.
func (w *scanWatcher) Close() error { return nil }

// scanLocked walks the roots and records differences with the last walk
// in q (nil: only take the new picture).
func (w *scanWatcher) scanLocked(q *Queue) {
	seen := make(map[string]fileStamp, len(w.files))
	dirs := 0
	w.note = ""
	for _, root := range w.roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // gone meanwhile, or unreadable
			}
			if d.IsDir() {
				if path != root && skipDir(path, d.Name()) {
					return filepath.SkipDir
				}
				if dirs >= w.max {
					w.note = fmt.Sprintf("file scanning stopped at its limit of %d folders (local.watch_max_dirs); changes made outside acp-lsp in other folders, such as %s, reach a language server only when the file itself is asked about", w.max, path)
					return filepath.SkipAll
				}
				dirs++
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st := fileStamp{fi.Size(), fi.ModTime()}
			seen[path] = st
			if q == nil {
				return nil
			}
			switch old, ok := w.files[path]; {
			case !ok:
				q.Record(path, Created, false)
			case old.size != st.size || !old.mtime.Equal(st.mtime):
				q.Record(path, Changed, false)
			}
			return nil
		})
	}
	if q != nil {
		for path := range w.files {
			if _, ok := seen[path]; !ok {
				if _, err := os.Lstat(path); err != nil {
					q.Record(path, Deleted, false)
				}
			}
		}
	}
	w.files, w.dirs = seen, dirs
}
