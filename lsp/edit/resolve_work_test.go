package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingFS is OS counting EvalSymlinks calls.
type countingFS struct {
	OS
	evals int
}

func (c *countingFS) EvalSymlinks(path string) (string, error) {
	c.evals++
	return c.OS.EvalSymlinks(path)
}

// TestResolvePathWork: resolving a path whose tail does not exist finds
// the longest existing prefix in a number of looks logarithmic in the
// path's components, and the result is that prefix resolved with the rest
// appended. Before, it tried every prefix from the longest down, each
// cleaned and joined again: quadratic in the path's length (a 40,000-byte
// tool argument took 3.4 s).
func TestResolvePathWork(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "file.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("/a", 2000)
	for _, tc := range []struct {
		name, path, want string
		maxEvals         int
	}{
		{"existing", dir + "/link/sub", dir + "/real/sub", 1},
		{"missing tail", dir + "/real" + deep + "/x.go", dir + "/real" + deep + "/x.go", 24},
		{"missing tail below a link", dir + "/link/sub" + deep, dir + "/real/sub" + deep, 24},
		{"below a file", dir + "/link/file.go" + deep, dir + "/real/file.go" + deep, 24},
		{"nothing but the root", "/nonexistent-acp-lsp" + deep, "/nonexistent-acp-lsp" + deep, 24},
		{"dots cleaned first", dir + "/link/sub/../../link/./sub/new.go", dir + "/real/sub/new.go", 4},
	} {
		fsys := &countingFS{}
		got, err := resolvePath(fsys, tc.path)
		if err != nil || got != tc.want {
			t.Errorf("%s: resolvePath = %.120q, %v; want %.120q", tc.name, got, err, tc.want)
		}
		if fsys.evals > tc.maxEvals {
			t.Errorf("%s: %d EvalSymlinks calls for %d components, want at most %d", tc.name, fsys.evals, strings.Count(tc.path, "/"), tc.maxEvals)
		}
	}
}
