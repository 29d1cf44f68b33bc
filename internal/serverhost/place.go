package serverhost

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Identity is the build identity of the running binary: what it was built
// from (debug.ReadBuildInfo: module versions, settings, VCS revision) and
// which file it is (path, inode, size, modification time), hashed. A
// rebuilt or upgraded acp-lsp has another identity, so it never talks to
// a host of an older build; two processes of one binary share one.
// Reading the file's metadata rather than hashing its content keeps the
// cost at a stat.
func Identity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("build identity: %w", err)
	}
	return identityOf(exe)
}

func identityOf(exe string) (string, error) {
	fi, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("build identity: %w", err)
	}
	h := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte(bi.String()))
	}
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
	if dev, ino, ok := fileKey(fi); ok {
		fmt.Fprintf(h, "\x00%d\x00%d", dev, ino)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// ErrUnsafeDir: the socket folder can be opened by someone else than the
// user, or is not a plain folder of the user's.
var ErrUnsafeDir = errors.New("server host folder is not the user's own")

// Dir returns the folder of the user's server host sockets, creating it:
// $XDG_RUNTIME_DIR/acp-lsp (a folder only the user can open, by the XDG
// rules), else acp-lsp-UID in the temporary folder. It must be a folder
// (not a link) owned by the user with no access for group or others;
// anything else is refused with ErrUnsafeDir, never repaired, as someone
// else may have made it to catch the user's traffic.
func Dir(getenv func(string) string) (string, error) {
	dir := dirPath(getenv)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("server host folder: %w", err)
	}
	if err := checkDir(dir, os.Getuid()); err != nil {
		return "", err
	}
	return dir, nil
}

// dirPath is the folder Dir makes.
func dirPath(getenv func(string) string) string {
	base := getenv("XDG_RUNTIME_DIR")
	name := "acp-lsp"
	if base == "" || !filepath.IsAbs(base) {
		base, name = os.TempDir(), "acp-lsp-"+strconv.Itoa(os.Getuid())
	}
	return filepath.Join(base, name)
}

// checkDir refuses dir unless it is a folder owned by uid that only its
// owner can open.
func checkDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("server host folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("server host folder %s: not a folder (%s): %w", dir, fi.Mode().Type(), ErrUnsafeDir)
	}
	return checkOwner(dir, fi, uid)
}

// place names a host's files in dir for a build identity.
type place struct {
	dir, id string
}

func (p place) socket() string { return filepath.Join(p.dir, "h-"+p.id+".sock") }
func (p place) lock() string   { return lockOf(p.socket()) }
func (p place) log() string    { return filepath.Join(p.dir, "h-"+p.id+".log") }

// lockOf is the start lock of the host listening at socket.
func lockOf(socket string) string { return strings.TrimSuffix(socket, ".sock") + ".lock" }

// maxSocketPath is the longest path a unix socket address holds
// (sun_path is 108 bytes on Linux, 104 on the BSDs, with its NUL).
const maxSocketPath = 103
