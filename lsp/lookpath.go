package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds cmd as a server started with env would find it: on env's
// PATH (the last PATH= entry wins, as for exec), or this process's
// environment when env is nil. A cmd holding a path separator is looked at
// as given. It answers exec.ErrNotFound when no executable file is found.
//
// exec.LookPath cannot be used for the search itself: it reads this
// process's PATH, and a server's environment may set another.
func LookPath(cmd string, env []string) (string, error) {
	if filepath.IsAbs(cmd) || strings.ContainsRune(cmd, filepath.Separator) {
		return exec.LookPath(cmd)
	}
	if env == nil {
		env = os.Environ()
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue // an empty entry is not "." for a server
		}
		p := filepath.Join(dir, cmd)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
