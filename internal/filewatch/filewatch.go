// Package filewatch reports changes made on disk under a set of folders:
// files created, changed or deleted, and folders deleted or moved away,
// coalesced per path between two reads. Package lsp tells language
// servers of them (workspace/didChangeWatchedFiles); which changes a
// server asked for is the server's business, not this package's.
//
// The caller pulls: Drain returns what changed since the last Drain. A
// Watcher that learns of changes as they happen also signals on its Wake
// channel, so the caller can drain at once instead of at its next
// request. Nothing is ever called back: events reach the caller only
// through Drain, on the caller's goroutine. The kernel watcher runs one
// goroutine of its own, from New to Close, which reads the kernel's queue
// whenever it is readable (so a burst between two drains does not
// overflow it, and new folders are watched promptly) and signals Wake.
//
// On Linux the kernel reports changes (inotify); elsewhere, and where
// inotify cannot be had, the folders are walked and file times compared
// at each Drain (the scan).
package filewatch

// Op is what happened to a path: numbered as LSP's FileChangeType, so
// package lsp passes it on as it is.
type Op int

// The changes an Event reports.
const (
	Created Op = 1
	Changed Op = 2
	Deleted Op = 3
)

// DefaultMaxDirs is a folder limit fit for most workspaces (lsp's
// default for Options.MaxWatchedDirs).
const DefaultMaxDirs = 10000

// MaxEvents bounds the distinct paths a Watcher keeps between two
// drains; a burst beyond it (a checkout of another branch, say) is
// reported as lost events rather than held in memory.
const MaxEvents = 20000

// Event is one change seen on disk, coalesced per path since the last
// Drain (see Queue for how).
type Event struct {
	Path string // absolute
	Op   Op
	// Dir: the path is a folder. Only a folder deleted or moved away is
	// reported (by the kernel watcher; the scan reports its files
	// instead); a new folder's files are reported one by one.
	Dir bool
	// absent: the path did not exist before its first change coalesced
	// here, so if it exists after the last one it is new to whoever
	// hears of it. Queue.Record sets it for a Created change; an Event
	// made by hand counts as having existed before.
	absent bool
}

// Status says how far a Watcher covers its folders.
type Status struct {
	// Mode is "inotify" (the kernel reports every change) or "scan"
	// (file times compared at each Drain).
	Mode string
	// Dirs is the number of folders watched.
	Dirs int
	// Note says what is not covered, empty when every folder is: the
	// folder limit reached (or the system's inotify limit).
	Note string
}

// Watcher reports changes under the folders added to it. Every method is
// safe for concurrent use. A Watcher watches each folder below an added
// one, breadth first up to its folder limit, skipping folders that tell
// a language server nothing: version control data, package and build
// caches, virtual environments (but a virtual environment's
// site-packages is watched one level deep), and any folder tagged with
// CACHEDIR.TAG (see Skips).
type Watcher interface {
	// Add watches root and every folder below it (up to the limit).
	// What is there already is the starting point: Add reports nothing.
	// Adding a folder already watched does nothing.
	Add(root string)
	// Drain returns and forgets the changes seen since the last Drain,
	// one Event per path (Queue's coalescing). The kernel watcher returns
	// every change whose system call returned before Drain was called, in
	// the order each path first changed; the files found in a folder
	// created or moved in are reported Created, as they may have been
	// written before the folder's watch was in place. The scan returns
	// what differs from its last walk, files in walk order then files
	// deleted in no set order; a change that keeps a file's size and
	// lands within the file system's timestamp granularity goes unseen.
	// lost reports that some changes were dropped (the kernel's queue or
	// MaxEvents overflowed): any file may have changed.
	Drain() (events []Event, lost bool)
	// Wake returns a channel that receives a signal when a change worth
	// telling at once was seen: a file written and closed, moved or
	// deleted (not a write in progress, whose half-written text would
	// reach a server). It has a buffer of one, so signals coalesce, and
	// is never blocked on. A signal says only that Drain has something
	// (or had: another Drain may have taken it). The channel is closed by
	// the time Close returns. Nil for the scan, which learns of changes
	// only in Drain.
	Wake() <-chan struct{}
	// Status says how far the added folders are covered.
	Status() Status
	// Close ends the watcher: it returns once the watcher's goroutine, if
	// any, has ended and its descriptor is closed. A second Close returns
	// nil. Add and Drain after Close need not report anything.
	Close() error
}
