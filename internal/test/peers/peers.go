// Package peers finds the real programs acp-lsp's tests run against: the
// language servers, agents and clients that scripts/setup.sh installs, pinned,
// into .cache/. A test that needs one calls Require; a missing peer fails the
// test with the command that installs it, never skips it.
package peers

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir returns the cache folder scripts/setup.sh installs into: $ACP_LSP_PEERS
// when set, else .cache at the module root.
func Dir() string {
	if d := os.Getenv("ACP_LSP_PEERS"); d != "" {
		return d
	}
	return filepath.Join(ModuleRoot(), ".cache")
}

// ModuleRoot returns the repository root (the folder holding go.mod).
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// SearchPath returns the folders Find looks in, in order: the pinned cache
// first (its Go binaries, the test peers, the language servers), then PATH.
func SearchPath() []string {
	d := Dir()
	dirs := []string{filepath.Join(d, "bin"), filepath.Join(d, "peers", "node_modules", ".bin"),
		filepath.Join(d, "servers", "node_modules", ".bin")}
	return append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
}

// Env returns os.Environ with PATH set so that child processes (an agent
// starting a language server, an MCP client starting acp-lsp) find the
// pinned peers first.
func Env() []string {
	env := os.Environ()
	path := "PATH=" + strings.Join(SearchPath(), string(os.PathListSeparator))
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = path
			return env
		}
	}
	return append(env, path)
}

// Find returns the absolute path of the named program, searching the pinned
// cache before PATH.
func Find(name string) (string, error) {
	for _, dir := range SearchPath() {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("find peer %s: not installed; run scripts/setup.sh (the README's test command does)", name)
}

// Require returns the absolute path of the named program or fails the test.
func Require(t testing.TB, name string) string {
	t.Helper()
	p, err := Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
