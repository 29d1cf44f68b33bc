package filewatch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ignoredDirs are folders never watched: version control data, package
// and build caches, virtual environments. Watching them costs a watch per
// folder (node_modules alone can hold tens of thousands) and tells a
// language server nothing it acts on.
var ignoredDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true,
	"node_modules": true, ".cache": true, "__pycache__": true, ".venv": true,
	".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	".gradle": true, ".idea": true, ".next": true, ".nuxt": true, ".direnv": true,
	".zig-cache": true, "zig-cache": true, ".terraform": true, ".dart_tool": true,
}

// skipDir reports whether the folder dir (named name) is not watched:
// named in ignoredDirs, or tagged as a cache with CACHEDIR.TAG (Cargo's
// target folder, among others, carries one).
func skipDir(dir, name string) bool {
	if ignoredDirs[name] {
		return true
	}
	_, err := os.Lstat(filepath.Join(dir, "CACHEDIR.TAG"))
	return err == nil
}

// Skips reports whether a folder on the way down from root to dir (dir
// included, root not) is one a Watcher that added root does not walk
// into, so that dir is not watched unless added itself.
func Skips(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return false
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		if skipDir(cur, part) {
			return true
		}
	}
	return false
}

// venvSitePackages returns the site-packages folders of dir when it is a
// Python virtual environment (it holds pyvenv.cfg).
func venvSitePackages(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err != nil {
		return nil
	}
	out, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages"))
	if win := filepath.Join(dir, "Lib", "site-packages"); !slices.Contains(out, win) {
		if fi, err := os.Stat(win); err == nil && fi.IsDir() {
			out = append(out, win)
		}
	}
	return out
}
