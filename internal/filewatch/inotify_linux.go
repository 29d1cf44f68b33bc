package filewatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// inotifyMask is what every watched folder reports: entries created,
// deleted, moved in or out, and files written (at each write and at
// close, coalesced per path by the queue).
const inotifyMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW | syscall.IN_EXCL_UNLINK

// New returns the platform's watcher, watching at most maxDirs folders:
// inotify on Linux. Where inotify cannot be had (no descriptor left, or
// no kernel support) it returns the scan, which works, with an error
// saying why, for the caller to report.
func New(maxDirs int) (Watcher, error) {
	w, err := newInotify(maxDirs)
	if err != nil {
		return NewScan(maxDirs), fmt.Errorf("watch files: inotify unavailable (%w); comparing file times at each request instead", err)
	}
	return w, nil
}

// inotifyWatcher watches folders with one inotify watch each. The kernel
// queues an event before the write that caused it returns, so a drain,
// which reads the queue without blocking, sees every write made before
// it. A goroutine also reads the queue whenever it is readable (blocked
// in the runtime's poller, no polling), so bursts between requests do not
// overflow the kernel's queue and new folders are watched promptly.
//
// Concurrency: mu guards everything below it; the inotify descriptor is
// read only with mu held, so an event is either still in the kernel's
// queue or already in q when a drain takes mu.
type inotifyWatcher struct {
	f    *os.File
	rc   syscall.RawConn
	done chan struct{} // closed when the reader goroutine ended

	mu         sync.Mutex
	fd         int // valid while !closed
	closed     bool
	max        int
	wds        map[int32]string // watch → folder
	dirs       map[string]int32 // folder → watch
	q          Queue
	note       string
	buf        []byte
	wake       chan struct{} // see Watcher.Wake; closed by run as it ends
	wakeClosed bool
}

func newInotify(maxDirs int) (*inotifyWatcher, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	// Non-blocking, so os.NewFile puts it in the runtime's poller.
	f := os.NewFile(uintptr(fd), "inotify")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &inotifyWatcher{f: f, rc: rc, fd: fd, done: make(chan struct{}), max: maxDirs,
		wds: map[int32]string{}, dirs: map[string]int32{}, q: Queue{Max: MaxEvents},
		buf: make([]byte, 64<<10), wake: make(chan struct{}, 1)}
	go w.run()
	return w, nil
}

// run reads events whenever the descriptor is readable, until close.
func (w *inotifyWatcher) run() {
	defer close(w.done)
	defer func() {
		w.mu.Lock()
		w.wakeClosed = true
		close(w.wake)
		w.mu.Unlock()
	}()
	for {
		err := w.rc.Read(func(fd uintptr) bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.readLocked(int(fd))
			return false // wait until readable again
		})
		if err != nil {
			return // closed
		}
	}
}

// Add watches root's tree, once.
func (w *inotifyWatcher) Add(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if _, ok := w.dirs[root]; ok {
		return
	}
	w.addTreeLocked(root, false)
}

// Wake returns the channel run closes as it ends.
func (w *inotifyWatcher) Wake() <-chan struct{} { return w.wake }

// Drain reads what the kernel queued, without blocking, then takes the
// queue: every write that returned before is in it.
func (w *inotifyWatcher) Drain() ([]Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, false
	}
	_ = w.rc.Control(func(fd uintptr) { w.readLocked(int(fd)) })
	return w.q.Take()
}

// Status reports the folders watched and what the limits left out.
func (w *inotifyWatcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Status{Mode: "inotify", Dirs: len(w.dirs), Note: w.note}
}

// Close closes the descriptor, which ends run, and waits for it.
func (w *inotifyWatcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	err := w.f.Close() // wakes the reader, which then ends
	<-w.done
	return err
}

// readLocked reads every queued event without blocking; mu is held.
func (w *inotifyWatcher) readLocked(fd int) {
	for {
		n, err := syscall.Read(fd, w.buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return // EAGAIN: the queue is empty
		}
		_ = parseInotify(w.buf[:n], w.eventLocked)
	}
}

// eventLocked turns one inotify event into queued changes; mu is held.
func (w *inotifyWatcher) eventLocked(wd int32, mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		w.q.lost = true
		return
	}
	dir, ok := w.wds[wd]
	if mask&syscall.IN_IGNORED != 0 {
		if ok && w.dirs[dir] == wd {
			delete(w.dirs, dir)
		}
		delete(w.wds, wd)
		return
	}
	if !ok || name == "" {
		return // a watch already removed, or an event about the folder itself
	}
	path := filepath.Join(dir, name)
	isDir := mask&syscall.IN_ISDIR != 0
	if mask&(syscall.IN_CLOSE_WRITE|syscall.IN_MOVED_TO|syscall.IN_MOVED_FROM|syscall.IN_DELETE) != 0 && !w.wakeClosed {
		select {
		case w.wake <- struct{}{}:
		default: // a signal is pending already
		}
	}
	switch {
	case mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
		if isDir {
			if skipDir(path, name) {
				return
			}
			w.addTreeLocked(path, true)
			return
		}
		w.q.Record(path, Created, false)
	case mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0:
		if isDir {
			if _, watched := w.dirs[path]; !watched && ignoredDirs[name] {
				return
			}
			w.removeTreeLocked(path)
		}
		w.q.Record(path, Deleted, isDir)
	case mask&(syscall.IN_MODIFY|syscall.IN_CLOSE_WRITE) != 0 && !isDir:
		w.q.Record(path, Changed, false)
	}
}

// addTreeLocked watches root and the folders below it, up to the limit,
// breadth first: past the limit, the folders left out are the deepest.
// With report, every file found is queued as created: a folder made (or
// moved in) just now may have been filled before its watch was in place.
// Folders themselves are not reported as created: their files are.
func (w *inotifyWatcher) addTreeLocked(root string, report bool) {
	type entry struct {
		dir     string
		shallow bool // watch the folder, not what is in it
	}
	queue := []entry{{dir: root}}
	for len(queue) > 0 {
		dir, shallow := queue[0].dir, queue[0].shallow
		queue = queue[1:]
		if _, ok := w.dirs[dir]; ok {
			continue
		}
		if len(w.dirs) >= w.max {
			w.note = fmt.Sprintf("file watching stopped at its limit of %d folders (local.watch_max_dirs); changes made outside acp-lsp in other folders, such as %s, reach a language server only when the file itself is asked about", w.max, dir)
			return
		}
		wd, err := syscall.InotifyAddWatch(w.fd, dir, inotifyMask)
		if err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				w.note = fmt.Sprintf("file watching stopped at %d folders: the system's inotify limit is reached (raise fs.inotify.max_user_watches); changes made outside acp-lsp in other folders, such as %s, reach a language server only when the file itself is asked about", len(w.dirs), dir)
				return
			}
			continue // gone meanwhile, or unreadable
		}
		if old, ok := w.wds[int32(wd)]; ok {
			delete(w.dirs, old) // the same folder under an old name (moved)
		}
		w.wds[int32(wd)] = dir
		w.dirs[dir] = int32(wd)
		if shallow {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if skipDir(path, e.Name()) {
					// A virtual environment's site-packages is watched one
					// level deep: a package installed or removed there
					// (a folder made or deleted) reaches pyright, which
					// asks for "**", without a watch per folder of every
					// installed package.
					for _, site := range venvSitePackages(path) {
						queue = append(queue, entry{dir: site, shallow: true})
					}
					continue
				}
				queue = append(queue, entry{dir: path})
			case report:
				w.q.Record(path, Created, false)
			}
		}
	}
}

// removeTreeLocked drops the watches of root and the folders below it
// (moved away or deleted).
func (w *inotifyWatcher) removeTreeLocked(root string) {
	for dir, wd := range w.dirs {
		if edit.Within(root, dir) {
			_, _ = syscall.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, dir)
			delete(w.wds, wd)
		}
	}
}
