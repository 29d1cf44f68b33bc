package component

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// TestGoplsAdditionalDirectories: a session's additionalDirectories are
// part of its workspace, through the whole chain with real gopls: a Go
// module there answers hover, diagnostics, references and a rename applied
// on disk (paths shown absolute, as the tool takes them back), while a
// folder that is neither the cwd nor an additional directory stays
// refused, its error naming every root.
func TestGoplsAdditionalDirectories(t *testing.T) {
	peers.Require(t, "gopls")
	dir := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cwd, lib, other := dir(), dir(), dir()
	write := func(root, name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cwd, "go.mod", "module example.com/app\n\ngo 1.22\n")
	write(cwd, "main.go", "package main\n\nfunc main() {}\n")
	write(lib, "go.mod", "module example.com/lib\n\ngo 1.22\n")
	libGo := "package lib\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n\nfunc Four() int { return Twice(Twice(1)) }\n\nvar broken int = \"x\"\n"
	write(lib, "lib.go", libGo)
	write(other, "go.mod", "module example.com/other\n\ngo 1.22\n")
	write(other, "other.go", "package other\n\nfunc Other() {}\n")
	libFile := filepath.Join(lib, "lib.go")

	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.openWith(t, cwd, lib)
	for _, c := range []struct {
		args    map[string]any
		want    []string
		refused bool
	}{
		{map[string]any{"action": "hover", "file": libFile, "line": 4, "symbol": "Twice"}, []string{"func Twice(n int) int", "Twice doubles n."}, false},
		{map[string]any{"action": "diagnostics", "file": libFile}, []string{libFile + ":8:", "cannot use \"x\"", "gopls: fresh"}, false},
		{map[string]any{"action": "diagnostics", "file": filepath.Join(lib, "*.go")}, []string{libFile + ":8:", "gopls: fresh"}, false},
		{map[string]any{"action": "references", "file": libFile, "line": 4, "symbol": "Twice"}, []string{libFile + ":6:26", libFile + ":6:32"}, false},
		{map[string]any{"action": "hover", "file": filepath.Join(other, "other.go"), "line": 3, "symbol": "Other"}, []string{"outside the workspace " + cwd + " (with " + lib + ")"}, true},
		{map[string]any{"action": "diagnostics", "file": filepath.Join(other, "*.go")}, []string{"outside the workspace"}, true},
	} {
		text, isErr, _ := stacktest.CallTool(t, cs, c.args)
		if isErr != c.refused {
			t.Errorf("%v: error %v, want %v: %s", c.args, isErr, c.refused, text)
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: no %q in:\n%s", c.args, w, text)
			}
		}
	}
	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "rename", "file": libFile, "line": 4, "symbol": "Twice", "new_name": "Double", "apply": true})
	if isErr {
		t.Fatalf("rename in an additional directory: %s", text)
	}
	if b, _ := os.ReadFile(libFile); !strings.Contains(string(b), "return Double(Double(1))") {
		t.Errorf("rename not applied on disk:\n%s\n%s", text, b)
	}
	select {
	case asked := <-sc.asked:
		if !strings.Contains(asked, "lib.go") {
			t.Errorf("permission asked for %s", asked)
		}
	default:
		t.Error("no permission asked for the rename")
	}
}

// TestSessionExtraRoots: PatchSessionSetup takes additionalDirectories as
// the session's further roots, resolved; a relative, missing or repeated
// directory, the cwd again, or a regular file (a folder's file used to be
// a root of its own), is left out, and a value that is not a list
// leaves the cwd alone; the params reach the agent with every byte kept.
func TestSessionExtraRoots(t *testing.T) {
	c, s0, _, _ := setup(t, Config{})
	a, b := t.TempDir(), t.TempDir()
	ra, _ := filepath.EvalSymlinks(a)
	rb, _ := filepath.EvalSymlinks(b)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, extra string
		want        []string
	}{
		{"none", ``, nil},
		{"two", fmt.Sprintf(`,"additionalDirectories":[%q,%q]`, a, b), []string{ra, rb}},
		{"a link, resolved, and repeated", fmt.Sprintf(`,"additionalDirectories":[%q,%q]`, link, b), []string{rb}},
		{"relative, missing, empty, the cwd", fmt.Sprintf(`,"additionalDirectories":["rel/dir",%q,"",%q,%q]`, filepath.Join(a, "missing"), s0.Root, a), []string{ra}},
		{"a file", fmt.Sprintf(`,"additionalDirectories":[%q,%q]`, filepath.Join(s0.Root, "main.go"), a), []string{ra}},
		{"not a list", fmt.Sprintf(`,"additionalDirectories":{"a":%q}`, a), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := fmt.Sprintf(`{"cwd":%q%s,"mcpServers":[]}`, s0.Root, tc.extra)
			out, s, err := c.PatchSessionSetup([]byte(params), AgentMCP{Version: 1, Stdio: true, HTTP: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseSession(s)
			if !slices.Equal(s.Extra, tc.want) {
				t.Errorf("Extra %q, want %q", s.Extra, tc.want)
			}
			if !strings.HasPrefix(string(out), strings.TrimSuffix(params, `[]}`)) {
				t.Errorf("params changed beyond mcpServers: %s", out)
			}
			for _, r := range tc.want {
				if p, err := s.resolve(filepath.Join(r, "x.go")); err != nil || p != filepath.Join(r, "x.go") {
					t.Errorf("resolve in %s: %q %v", r, p, err)
				}
			}
			if _, err := s.resolve(filepath.Join(filepath.Dir(s0.Root), "elsewhere.go")); err == nil || !strings.Contains(err.Error(), s.workspace()) {
				t.Errorf("outside: %v, want it to name %s", err, s.workspace())
			}
		})
	}
}

// TestHugeLimitAndOffset: the largest integers as offset and limit page
// like any others (off+limit used to overflow and panic, which took the
// whole process down on the SDK's paths), and an offset past the end says
// so instead of "showing 3-2".
func TestHugeLimitAndOffset(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	uri := "file://" + filepath.Join(s.Root, "main.go")
	fb.set("textDocument/references", fmt.Sprintf(`[{"uri":%q,"range":{"start":{"line":4,"character":5},"end":{"line":4,"character":8}}},{"uri":%q,"range":{"start":{"line":7,"character":13},"end":{"line":7,"character":16}}}]`, uri, uri))
	fb.set("textDocument/codeAction", `[{"title":"one"},{"title":"two"}]`)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add", "offset": 1, "limit": math.MaxInt64}, "main.go:8:14"},
		{map[string]any{"action": "references", "file": "main.go", "line": 5, "symbol": "add", "offset": math.MaxInt64, "limit": math.MaxInt64}, "(none shown: offset 2 is past the last one)"},
		{map[string]any{"action": "code_actions", "file": "main.go", "line": 5, "offset": 1, "limit": math.MaxInt64}, "2. two"},
		{map[string]any{"action": "code_actions", "file": "main.go", "line": 5, "offset": math.MaxInt64, "limit": math.MaxInt64}, "(none shown: offset 2 is past the last one)"},
	} {
		text, _ := callTool(t, cs, tc.args)
		if !strings.Contains(text, tc.want) {
			t.Errorf("%v: no %q in %s", tc.args, tc.want, text)
		}
	}
}

// TestRootsCannotMove: rename_file refuses to move a workspace folder of
// the session, or one holding one, which with additional directories could
// otherwise go into another root; a diagnostics glob in a root nested in a
// skipped folder (vendor) of the cwd walks that root.
func TestRootsCannotMove(t *testing.T) {
	c, s0, fb, _ := setup(t, Config{})
	extra := filepath.Join(s0.Root, "vendor", "lib")
	other := t.TempDir()
	for _, d := range []string{extra, filepath.Join(other, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(extra, "x.go"), []byte("package lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession(s0.Root, other, extra)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	fb.set("workspace/willRenameFiles", `null`)
	fb.set("workspace/didRenameFiles", `null`)
	for _, file := range []string{".", s0.Root, other, filepath.Join(s0.Root, "vendor")} {
		text, isErr := callTool(t, cs, map[string]any{"action": "rename_file", "file": file, "new_name": filepath.Join(other, "sub", "moved"), "apply": true})
		if !isErr || !strings.Contains(text, "cannot be moved") {
			t.Errorf("rename_file %s: %s", file, text)
		}
	}
	if _, err := os.Stat(filepath.Join(extra, "x.go")); err != nil {
		t.Errorf("a root moved: %v", err)
	}
	fb.report = nil
	text, isErr := callTool(t, cs, map[string]any{"action": "diagnostics", "file": filepath.Join(extra, "*.go")})
	if isErr && strings.Contains(text, "no file") {
		t.Errorf("glob in a root under vendor: %s", text)
	}
}

// TestGlobStarsBounded: a diagnostics glob with many ** is refused at once
// (matching one deep path against it took combinatorial time); three are
// fine.
func TestGlobStarsBounded(t *testing.T) {
	_, s, _, cs := setup(t, Config{})
	deep := filepath.Join(append([]string{s.Root}, strings.Split(strings.Repeat("d/", 30), "/")...)...)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "y.go"), []byte("package d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr := callTool(t, cs, map[string]any{"action": "diagnostics", "file": strings.Repeat("**/", 12) + "z.go"})
	if !isErr || !strings.Contains(text, "more than 3 **") {
		t.Errorf("12 **: %s", text)
	}
	if _, err := s.glob(t.Context(), "**/d/**/d/**/y.go"); err != nil {
		t.Errorf("3 **: %v", err)
	}
}

func TestWorkspaceIsolation(t *testing.T) {
	_, s, fb, cs := setup(t, Config{})
	fb.set("textDocument/hover", `null`)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(s.Root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Root, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../secret.go", "../../etc/passwd", filepath.Join(outside, "secret.go"), "/etc/passwd", "link.go", "dir/secret.go"} {
		for _, action := range []string{"hover", "diagnostics", "rename", "format"} {
			text, isErr := callTool(t, cs, map[string]any{"action": action, "file": file, "line": 1, "symbol": "package", "new_name": "x", "apply": true})
			if !isErr || !strings.Contains(text, "outside the workspace") {
				t.Errorf("%s %s: not refused: %s", action, file, text)
			}
		}
	}
	// Targets outside: a move's new path, a glob climbing out.
	os.WriteFile(filepath.Join(s.Root, "util.go"), []byte("package main\n"), 0o644)
	fb.set("workspace/willRenameFiles", "null")
	for _, args := range []map[string]any{
		{"action": "rename_file", "file": "util.go", "new_name": "../util.go", "apply": true},
		{"action": "rename_file", "file": "util.go", "new_name": filepath.Join(outside, "util.go"), "apply": true},
		{"action": "rename_file", "file": "util.go", "new_name": "dir/util.go", "apply": true},
		{"action": "diagnostics", "file": "../*.go"},
		{"action": "diagnostics", "file": filepath.Join(outside, "*.go")},
		{"action": "symbols", "file": "link.go"},
		{"action": "request", "file": "../x.go", "method": "textDocument/hover"},
	} {
		text, isErr := callTool(t, cs, args)
		if !isErr || !strings.Contains(text, "outside the workspace") && !strings.Contains(text, "turned off") {
			t.Errorf("%v: not refused: %s", args, text)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Root, "util.go")); err != nil {
		t.Errorf("util.go moved: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder outside changed: %v", entries)
	}
	// A rename whose edit points outside is refused as a whole.
	fb.set("textDocument/rename", fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":7}},"newText":"x"}]}}`, edit.URIFromPath(filepath.Join(outside, "secret.go"))))
	text, isErr := callTool(t, cs, map[string]any{"action": "rename", "file": "main.go", "line": 5, "symbol": "add", "new_name": "x", "apply": true})
	if !isErr {
		t.Errorf("rename touching a file outside applied: %s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.go")); string(b) != "package secret\n" {
		t.Errorf("file outside changed: %q", b)
	}
}
