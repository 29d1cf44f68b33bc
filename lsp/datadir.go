package lsp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DataDirVar, in a server's Args, Env or InitializationOptions, stands
// for a folder of that server's own for its root: under
// Options.DataDir, one per server name and root, and never used by two
// running instances at once (jdtls's -data workspace, which two jdtls
// processes corrupt or fail on; ccls's cache, which would otherwise go
// into the user's project).
const DataDirVar = "${dataDir}"

// maxDataSlots bounds the folders of one server and root: one per
// instance running at once.
const maxDataSlots = 64

// DefaultDataDir returns the default Options.DataDir: acp-lsp/servers
// under the user's cache folder (os.UserCacheDir).
func DefaultDataDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("server data folder: %w", err)
	}
	return filepath.Join(c, "acp-lsp", "servers"), nil
}

// usesDataDir reports whether cfg names DataDirVar anywhere.
func usesDataDir(cfg ServerConfig) bool {
	has := func(s string) bool { return strings.Contains(s, DataDirVar) }
	return slices.ContainsFunc(cfg.Args, has) || slices.ContainsFunc(cfg.Env, has) ||
		bytes.Contains(cfg.InitializationOptions, []byte(DataDirVar))
}

// dataFolder is a server instance's data folder, held by a lock on a file
// beside it until release: the lock, not the file, says the folder is in
// use, so a crash (the lock goes with the process) leaves nothing stale.
type dataFolder struct {
	dir  string
	lock *os.File
}

func (d *dataFolder) release() {
	if d != nil {
		d.lock.Close()
	}
}

// acquireDataFolder returns the first folder of server at root under base
// that no running instance holds, and holds it: base/SERVER/ROOT-HASH/N,
// where ROOT-HASH names the root by its base name and a hash of its path,
// and N counts the instances that ran on that root at once.
func acquireDataFolder(base, server, root string) (*dataFolder, error) {
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(base, safeName(server), safeName(filepath.Base(root))+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server data folder: %w", err)
	}
	for n := range maxDataSlots {
		slot := filepath.Join(dir, strconv.Itoa(n))
		f, err := os.OpenFile(slot+".lock", os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("server data folder: %w", err)
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("server data folder: lock %s: %w", f.Name(), err)
		}
		if !ok {
			f.Close()
			continue
		}
		if err := os.MkdirAll(slot, 0o700); err != nil {
			f.Close()
			return nil, fmt.Errorf("server data folder: %w", err)
		}
		return &dataFolder{dir: slot, lock: f}, nil
	}
	return nil, fmt.Errorf("server data folder: %d instances of %s already run on %s", maxDataSlots, server, root)
}

// safeName keeps letters, digits, '.', '-' and '_' of s, for a folder name
// on every platform.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// withDataDir returns cfg with DataDirVar replaced by dir in its Args, Env
// and InitializationOptions (there as a JSON string's content).
func (cfg ServerConfig) withDataDir(dir string) ServerConfig {
	rep := func(in []string) []string {
		out := make([]string, len(in))
		for i, a := range in {
			out[i] = strings.ReplaceAll(a, DataDirVar, dir)
		}
		return out
	}
	cfg.Args, cfg.Env = rep(cfg.Args), rep(cfg.Env)
	if len(cfg.InitializationOptions) > 0 {
		q, _ := encode(dir)
		cfg.InitializationOptions = bytes.ReplaceAll(cfg.InitializationOptions, []byte(DataDirVar), q[1:len(q)-1])
	}
	return cfg
}
