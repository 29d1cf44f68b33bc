package serverhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// fileKey reports false: the build identity is the path, size and time alone.
func fileKey(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// checkOwner refuses dir unless the user owns it. Who else may open it is
// in its access list, inherited from %LocalAppData% (the user, SYSTEM,
// Administrators); the folder holds only the start lock and the log, as
// the host's socket is a named pipe with an access list of its own.
func checkOwner(dir string, _ os.FileInfo, _ int) error {
	own, err := userSID()
	if err != nil {
		return fmt.Errorf("server host folder %s: %w", dir, err)
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("server host folder %s: %w", dir, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("server host folder %s: %w", dir, err)
	}
	return checkFolderOwner(dir, owner, own)
}

// checkFolderOwner refuses dir, owned by owner, unless own owns it.
func checkFolderOwner(dir string, owner, own *windows.SID) error {
	if owner == nil || !owner.Equals(own) {
		return fmt.Errorf("server host folder %s: owned by %v, not %v: %w", dir, owner, own, ErrUnsafeDir)
	}
	return nil
}

// socketFile is nil: a named pipe is no file to remove (a host's pipe
// ends with its last handle, so no stale one is ever left), and opening
// it to read its metadata would connect to it.
func socketFile(string) os.FileInfo { return nil }

// dirPath is the folder Dir makes: acp-lsp in %LocalAppData% (os.UserCacheDir
// on Windows), else in the user's temporary folder.
func dirPath(getenv func(string) string) string {
	base := getenv("LocalAppData")
	if base == "" || !filepath.IsAbs(base) {
		base = os.TempDir()
	}
	return filepath.Join(base, "acp-lsp")
}

// pipeName is the named pipe of the host whose socket path (in the host
// folder, named for the build identity) is socket: named for the user's
// SID and that path, so each user and build, and each host folder a test
// picks, has its own.
func pipeName(socket string) (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(socket))
	return `\\.\pipe\acp-lsp-` + sid.String() + "-" + hex.EncodeToString(h[:8]), nil
}
