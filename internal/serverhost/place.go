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

// identityLen is the length of a build identity, in hex digits.
const identityLen = 16

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
	return hex.EncodeToString(h.Sum(nil))[:identityLen], nil
}

// ErrUnsafeDir: the socket folder can be opened by someone else than the
// user, or is not a plain folder of the user's.
var ErrUnsafeDir = errors.New("server host folder is not the user's own")

// Dir returns the folder of the user's server host sockets, creating it:
// $XDG_RUNTIME_DIR/acp-lsp (a folder only the user can open, by the XDG
// rules), else acp-lsp-UID in the temporary folder (macOS:
// ~/Library/Caches/acp-lsp), else, when those sockets would not fit a
// socket address, /tmp/acp-lsp-UID (chooseDir); on Windows
// %LocalAppData%\acp-lsp, which holds the start lock and the log (the
// socket is a named pipe, see pipeName). It must be a folder (not a link)
// owned by the user with no access for group or others (on Windows: owned
// by the user); anything else is refused with ErrUnsafeDir, never
// repaired, as someone else may have made it to catch the user's traffic.
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

// dirEnv is what the socket folder is chosen from.
type dirEnv struct {
	goos       string
	runtimeDir string // $XDG_RUNTIME_DIR
	tempDir    string // os.TempDir()
	cacheDir   string // os.UserCacheDir(); empty when unknown
	uid        int
}

// chooseDir is the socket folder for e: the first of the platform's
// private places whose sockets fit a unix socket address, else
// /tmp/acp-lsp-UID, which always does. $XDG_RUNTIME_DIR (absolute) comes
// first everywhere; then, on macOS, the user's cache folder
// (~/Library/Caches: $TMPDIR there is long, and macOS sweeps the
// temporary folders of files unused for days, a long-lived host's socket
// among them), elsewhere the temporary folder. A folder in /tmp (or any
// other) is used only once Dir has checked it is the user's own.
func chooseDir(e dirEnv) string {
	own := "acp-lsp-" + strconv.Itoa(e.uid)
	var places []string
	if filepath.IsAbs(e.runtimeDir) {
		places = append(places, filepath.Join(e.runtimeDir, "acp-lsp"))
	}
	switch {
	case e.goos == "darwin" && filepath.IsAbs(e.cacheDir):
		places = append(places, filepath.Join(e.cacheDir, "acp-lsp"))
	case e.goos != "darwin" && e.tempDir != "":
		places = append(places, filepath.Join(e.tempDir, own))
	}
	for _, dir := range places {
		if socketFits(dir) {
			return dir
		}
	}
	return filepath.Join("/tmp", own)
}

// socketFits reports whether the sockets in dir fit a unix socket address.
func socketFits(dir string) bool {
	return len(place{dir: dir, id: strings.Repeat("0", identityLen)}.socket()) <= maxSocketPath
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
