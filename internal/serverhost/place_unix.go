//go:build unix

package serverhost

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// fileKey returns the device and inode of fi, which tell apart two builds
// written to the same path.
func fileKey(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// checkOwner refuses dir (fi is its Lstat) unless uid owns it and only its
// owner can open it.
func checkOwner(dir string, fi os.FileInfo, uid int) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("server host folder %s: mode %#o lets others in: %w", dir, perm, ErrUnsafeDir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Errorf("server host folder %s: owned by uid %d, not %d: %w", dir, st.Uid, uid, ErrUnsafeDir)
	}
	return nil
}

// socketFile is the socket file at path as it is now (nil: none), so the
// host removes its own socket only, never a successor's.
func socketFile(path string) os.FileInfo {
	fi, _ := os.Stat(path)
	return fi
}

// dirPath is the folder Dir makes (chooseDir).
func dirPath(getenv func(string) string) string {
	e := dirEnv{goos: runtime.GOOS, runtimeDir: getenv("XDG_RUNTIME_DIR"), tempDir: os.TempDir(), uid: os.Getuid()}
	e.cacheDir, _ = os.UserCacheDir()
	return chooseDir(e)
}
