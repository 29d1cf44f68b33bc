package edit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// tree writes files (path → content; a trailing "/" makes a directory)
// below a fresh directory and returns it, resolved so that paths compare
// equal to what the package reports.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// snapshot records every path below dir with its type, mode and content,
// to prove that a failed edit left the tree byte-identical.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	return snapshotUpTo(t, dir, -1)
}

// shallow records every path below dir as snapshot does, but a file of
// more than 1 MiB by its size and time rather than its content, to
// prove that a refused edit left the tree as it was without reading it.
func shallow(t *testing.T, dir string) map[string]string {
	t.Helper()
	return snapshotUpTo(t, dir, 1<<20)
}

// snapshotUpTo is snapshot with a file over limit bytes (none when limit
// is negative) recorded by its size and time instead of its content.
func snapshotUpTo(t *testing.T, dir string, limit int64) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link " + l
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().String()
		case limit >= 0 && fi.Size() > limit:
			out[rel] = fmt.Sprint(fi.Mode(), " ", fi.Size(), " bytes of ", fi.ModTime())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fi.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, k+": want "+q(v)+", got "+q(got[k]))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, k+": unexpected "+q(v))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("tree differs:\n%s", strings.Join(diffs, "\n"))
	}
}

func q(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return "`" + s + "`"
}

func uri(dir, name string) string { return URIFromPath(filepath.Join(dir, filepath.FromSlash(name))) }

func rng(l1, c1, l2, c2 uint32) position.Range {
	return position.Range{Start: position.Position{Line: l1, Character: c1}, End: position.Position{Line: l2, Character: c2}}
}

func te(l1, c1, l2, c2 uint32, text string) TextEdit {
	return TextEdit{Range: rng(l1, c1, l2, c2), NewText: text}
}

func tde(u string, edits ...TextEdit) DocumentChange {
	return DocumentChange{TextDocumentEdit: &TextDocumentEdit{TextDocument: VersionedTextDocumentIdentifier{URI: u}, Edits: edits}}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
