//go:build !linux

package filewatch

// New returns the scan, watching at most maxDirs folders: acp-lsp uses
// the kernel's change notification only on Linux so far. The error is
// always nil.
func New(maxDirs int) (Watcher, error) {
	return NewScan(maxDirs), nil
}
