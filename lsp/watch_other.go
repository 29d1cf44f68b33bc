//go:build !linux

package lsp

// newDiskWatcher returns the scan watcher: acp-lsp uses the kernel's
// change notification only on Linux so far.
func newDiskWatcher(maxDirs int) (diskWatcher, error) {
	return newScanWatcher(maxDirs), nil
}
