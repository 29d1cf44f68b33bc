package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// LookPath finds cmd as a server started with env would find it: on env's
// PATH (the last PATH= entry wins, as for exec; on Windows spelled in any
// case, as Windows writes Path), or this process's environment when env is
// nil. A cmd holding a path separator is looked at as given. A file counts
// as exec.LookPath counts it: on Unix an executable regular file, on
// Windows cmd or cmd with an extension of PATHEXT (gopls is gopls.exe).
// It answers exec.ErrNotFound when no executable file is found.
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
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" || runtime.GOOS == "windows" && strings.EqualFold(k, "PATH") {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue // an empty entry is not "." for a server
		}
		// A path with a separator is not searched for: exec.LookPath
		// only checks it (and on Windows tries PATHEXT's extensions).
		p := filepath.Join(dir, cmd)
		if !strings.ContainsRune(p, filepath.Separator) {
			p = "." + string(filepath.Separator) + p // dir "." must not become a search of this process's PATH
		}
		if p, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
