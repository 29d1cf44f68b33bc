package component

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// fakeTool starts the tool on a new folder holding files (slash paths to
// contents) with cfg, answered by a Manager running fakelsp (bin) with
// script for .ts files: it returns an MCP client session on the tool (all
// closed with t).
func fakeTool(t *testing.T, bin string, script fakelsp.Script, cfg Config, files map[string]string) *mcp.ClientSession {
	t.Helper()
	dir := t.TempDir()
	sp := filepath.Join(dir, "script.json")
	if err := fakelsp.WriteScript(sp, script); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	anyFile := ""
	for name, text := range files {
		anyFile = filepath.Join(root, filepath.FromSlash(name))
		if err := os.WriteFile(anyFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := lsp.NewManager(lsp.Options{Roots: []string{root},
		Servers:  []lsp.ServerConfig{{Name: "fake", Command: bin, Args: fakelsp.Args(sp, filepath.Join(dir, "record")), Extensions: []string{"ts"}}},
		Timeouts: lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(3 * time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	_, s := startSession(t, cfg, &managerBackend{m: m, anyFile: anyFile}, root)
	return connect(t, s)
}

// TestOutsideRule: which files outside the workspace a result of a call on
// a file of each language may show the line of (outsideLang.refusal, given
// resolved paths).
func TestOutsideRule(t *testing.T) {
	// With no go command the Go cases fail: nothing is read there.
	goroot, modcache := "/nonexistent-goroot", "/nonexistent-gomodcache"
	if roots := goRoots(); len(roots) == 2 {
		goroot, modcache = roots[0], roots[1]
	}
	for _, tc := range []struct {
		from, path string
		why        string // "" when the line may be shown
	}{
		{"main.go", filepath.Join(goroot, "src/fmt/print.go"), ""},
		{"main.go", filepath.Join(goroot, "src/runtime/asm_amd64.s"), ""},
		{"main.go", filepath.Join(modcache, "golang.org/x/tools@v0.39.0/go/packages/packages.go"), ""},
		{"main.go", filepath.Join(goroot, "VERSION"), "outside the workspace, and not a Go source file"},
		{"main.go", "/home/u/other/main.go", "outside the workspace, and not in GOROOT or the module cache (go env GOROOT GOMODCACHE)"},
		{"main.go", "/home/u/proj/node_modules/x/x.go", "outside the workspace, and not in GOROOT or the module cache (go env GOROOT GOMODCACHE)"},
		{"main.go", "/home/u/proj/node_modules/x/index.js", "outside the workspace, and not a Go source file"},
		{"a.ts", "/usr/lib/node_modules/typescript/lib/lib.dom.d.ts", ""},
		{"a.js", "/w/node_modules/.pnpm/react@18/node_modules/react/index.js", ""},
		{"a.tsx", "/w/node_modules/react/package.json", "outside the workspace, and not a TypeScript/JavaScript source file"},
		{"a.ts", "/home/u/node_modules", "outside the workspace, and not a TypeScript/JavaScript source file"},
		{"a.ts", "/home/u/node_modules.ts", "outside the workspace, and not in a node_modules folder"},
		{"a.ts", "/home/u/.config/token.ts", "outside the workspace, and not in a node_modules folder"},
		{"a.py", "/usr/lib/python3/dist-packages/yaml/__init__.py", ""},
		{"a.py", "/v/lib/python3.12/site-packages/django/db/models/query.py", ""},
		{"a.pyi", "/opt/pyright/dist/typeshed-fallback/stdlib/posixpath.pyi", ""},
		{"a.py", "/root/.pyenv/versions/3.11.7/lib/python3.11/posixpath.py", ""},
		{"a.py", "/home/u/lib/python-secrets/settings.py", "outside the workspace, and not in site-packages, dist-packages, typeshed or a Python installation's lib/pythonX.Y"},
		{"a.py", "/home/u/other/settings.py", "outside the workspace, and not in site-packages, dist-packages, typeshed or a Python installation's lib/pythonX.Y"},
		{"a.py", "/v/lib/python3.12/site-packages/pkg/.env", "outside the workspace, and not a Python source file"},
		{"a.cpp", "/usr/include/c++/13/vector", ""},
		{"a.c", "/usr/lib/gcc/x86_64-linux-gnu/13/include/stddef.h", ""},
		{"a.c", "/usr/lib/llvm-18/lib/clang/18/include/stdint.h", ""},
		{"a.c", "/home/u/.ssh/id_rsa", "outside the workspace, and not in /usr/include, /usr/local/include or a compiler's include folder"},
		{"a.c", "/usr/include", "outside the workspace, and not in /usr/include, /usr/local/include or a compiler's include folder"},
		{"a.rs", "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.0/src/lib.rs", ""},
		{"a.rs", "/root/.rustup/toolchains/stable/lib/rustlib/src/rust/library/std/src/lib.rs", ""},
		{"a.rs", "/home/u/other/src/lib.rs", "outside the workspace, and not in the toolchain's rustlib/src or Cargo's registry"},
		{"a.sh", "/usr/share/bash-completion/bash_completion", "outside the workspace, and no rule reads the files its language depends on"},
		{"Makefile", "/usr/include/stdio.h", "outside the workspace, and no rule reads the files its language depends on"},
	} {
		if got := outsideLangOf(tc.from).refusal(tc.path); got != tc.why {
			t.Errorf("from %s, %s: refusal %q, want %q", tc.from, tc.path, got, tc.why)
		}
	}
}

// TestGoEnvRoots: the folders `go env` prints count with their links
// resolved, and a module cache not created yet counts as printed: gopls
// downloads into it after the first call, which asked once.
func TestGoEnvRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	goroot := filepath.Join(base, "go")
	if err := os.Mkdir(goroot, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "golink")
	if err := os.Symlink(goroot, link); err != nil {
		t.Fatal(err)
	}
	modcache := filepath.Join(base, "home", "go", "pkg", "mod")
	got := goEnvRoots(link + "\n" + modcache + "/\n")
	if want := []string{goroot, modcache}; !slices.Equal(got, want) {
		t.Errorf("goEnvRoots = %q, want %q", got, want)
	}
}

// FuzzGoEnvRoots: whatever `go env` prints, the roots read from it are
// clean absolute paths, one at most per line.
func FuzzGoEnvRoots(f *testing.F) {
	for _, s := range []string{"/usr/local/go\n/root/go/pkg/mod\n", "", "\n\n", "relative\n/x/../y", "/a\r\n/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		roots := goEnvRoots(out)
		if len(roots) > strings.Count(out, "\n")+1 {
			t.Fatalf("%d roots from %d lines", len(roots), strings.Count(out, "\n")+1)
		}
		for _, r := range roots {
			if !filepath.IsAbs(r) || filepath.Clean(r) != r {
				t.Fatalf("root %q from %q", r, out)
			}
		}
	})
}

// FuzzOutsideRule: for any file a call is about and any path a server
// names, a path the rule lets be read has an extension of the call's
// language.
func FuzzOutsideRule(f *testing.F) {
	for _, s := range [][2]string{{"a.ts", "/w/node_modules/x.ts"}, {"a.go", "/usr/local/go/src/x.go"}, {"a.c", "/usr/include"}, {"a.py", "/lib/python3.1/x.py"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, from, path string) {
		lang := outsideLangOf(from)
		if lang.refusal(path) == "" && !slices.Contains(lang.exts, strings.ToLower(filepath.Ext(path))) {
			t.Fatalf("from %q, %q may be read", from, path)
		}
	})
}
