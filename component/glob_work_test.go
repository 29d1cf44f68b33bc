package component

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// globMatchRef is the diagnostics glob's matching as it was first
// written: recursive, trying every split of the name among the **, so its
// work grew as the name's depth to the power of the number of **.
func globMatchRef(pattern, name string) bool {
	if !strings.Contains(pattern, "**") {
		ok, _ := path.Match(pattern, name)
		if !strings.Contains(pattern, "/") && !ok {
			ok, _ = path.Match(pattern, path.Base(name))
		}
		return ok
	}
	pre, post, _ := strings.Cut(pattern, "**")
	if !strings.HasPrefix(name, pre) {
		return false
	}
	rest := strings.TrimPrefix(name, pre)
	post = strings.TrimPrefix(post, "/")
	for {
		if globMatchRef(post, rest) {
			return true
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
	}
}

// globTriesBound is the most tail matches a glob with stars ** may try on
// a name with slashes '/': linear in the name's depth.
func globTriesBound(stars, slashes int) int { return stars*(slashes+1) + 1 }

// TestGlobMatchWork: matching a name against a glob with three ** tries
// the part after the last ** a number of times linear in the name's depth
// (it was cubic: a folder 1,200 levels deep took 44 s), and says what the
// first matcher said.
func TestGlobMatchWork(t *testing.T) {
	patterns := []string{"**/**/**/x.go", "**/**/**/*.go", "**/d/**/y.go", "d/**/**/**", "**/*.go", "*.go", "d/d/*.go", "**/d/d/**/d/y.go", "d**/**d/**.go"}
	for _, depth := range []int{0, 1, 10, 100, 1200} {
		for _, name := range []string{strings.Repeat("d/", depth) + "y.go", strings.Repeat("d/", depth) + "x.go"} {
			for _, pattern := range patterns {
				g := compileGlob(pattern)
				got := g.match(name)
				if depth <= 100 && got != globMatchRef(pattern, name) {
					t.Errorf("%q on %d levels (%s): %v, the first matcher said %v", pattern, depth, path.Base(name), got, !got)
				}
				if bound := globTriesBound(strings.Count(pattern, "**"), depth); g.tries > bound {
					t.Errorf("%q on %d levels: %d tries, want at most %d", pattern, depth, g.tries, bound)
				}
			}
		}
	}
}

// FuzzGlobMatch: the diagnostics glob says what the first matcher said,
// for any pattern and name, within the linear bound of tries.
func FuzzGlobMatch(f *testing.F) {
	for _, c := range [][2]string{
		{"**/**/**/x.go", "a/b/c/x.go"}, {"src/**/*.go", "src/a/b.go"}, {"**", ""}, {"a**b", "axb"},
		{"**/[a-c]?/**", "x/ab/y"}, {"***", "a/b"}, {"**/", "a/"}, {"/**/x", "/a/x"}, {"[", "a"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 32 || len(name) > 64 || strings.Count(pattern, "**") > maxGlobStars {
			return // the reference's work grows as a power of these
		}
		g := compileGlob(pattern)
		if got, want := g.match(name), globMatchRef(pattern, name); got != want {
			t.Fatalf("match(%q, %q) = %v, the first matcher said %v", pattern, name, got, want)
		}
		if bound := globTriesBound(strings.Count(pattern, "**"), strings.Count(name, "/")); g.tries > bound {
			t.Fatalf("match(%q, %q): %d tries, want at most %d", pattern, name, g.tries, bound)
		}
	})
}

// cancelAfter is a context whose Err says Canceled from its n-th call on,
// counting the calls: a walk that looks at it once per entry counts its
// entries, and is cancelled in the middle.
type cancelAfter struct {
	context.Context
	n     int64
	calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n {
		return context.Canceled
	}
	return nil
}

// TestGlobCancelled: a diagnostics glob's walk stops at the next entry
// once its call is cancelled, with the context's error, whatever is left
// of the workspace: before, it walked on after the client had gone.
func TestGlobCancelled(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			if err := os.WriteFile(filepath.Join(root, d, strings.Repeat("f", i+1)+".txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, s := startSession(t, Config{}, newFake(), root)
	for _, n := range []int64{1, 50} {
		ctx := &cancelAfter{Context: context.Background(), n: n}
		got, err := s.glob(ctx, "**/*.go")
		if !errors.Is(err, context.Canceled) || got != nil {
			t.Errorf("cancelled at entry %d: %q, %v; want context.Canceled", n, got, err)
		}
		if calls := ctx.calls.Load(); calls > n {
			t.Errorf("cancelled at entry %d: the walk looked %d times", n, calls)
		}
	}
}

// TestGlobDeepFolder: globs with three ** over a folder 1,200 levels deep
// find what they name (the walk and the matching are linear in the
// depth), and the walk stops when the call is cancelled half way down.
func TestGlobDeepFolder(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, strings.Repeat("d/", 1200))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	bottom := filepath.Join(deep, "x.go")
	if err := os.WriteFile(bottom, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, s := startSession(t, Config{}, newFake(), root)
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"**/**/**/x.go", []string{bottom}},
		{"d/**/d/**/d/**/*.go", []string{bottom}},
		{"**/**/**/y.go", nil},
	} {
		got, err := s.glob(t.Context(), tc.pattern)
		if err != nil || !equalStrings(got, tc.want) {
			t.Errorf("%s: %d matches %.80q, %v; want %.80q", tc.pattern, len(got), got, err, tc.want)
		}
	}
	ctx := &cancelAfter{Context: context.Background(), n: 600}
	if got, err := s.glob(ctx, "**/**/**/x.go"); !errors.Is(err, context.Canceled) || got != nil || ctx.calls.Load() > 600 {
		t.Errorf("cancelled at level 600: %d matches, %v after %d looks; want context.Canceled after 600", len(got), err, ctx.calls.Load())
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
