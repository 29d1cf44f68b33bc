package component

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/adapter"
	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/internal/test/stacktest"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startedServers names the language servers this test process runs now,
// read from the process table (the guards it started and what runs under
// them), each with the guard's pid and the resident memory of its tree.
func startedServers(t *testing.T) map[string]serverProc {
	t.Helper()
	procs, err := proctest.Descendants(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]serverProc{}
	for _, p := range procs {
		if p.PPid != os.Getpid() {
			continue
		}
		// Servers run under internal/reap's guard, whose command line is
		// "acp-lsp-guard PATH ARGV...".
		args := strings.Fields(p.Cmdline)
		name := ""
		if len(args) > 1 && filepath.Base(args[0]) == "acp-lsp-guard" {
			name = filepath.Base(args[1])
		}
		if name == "" {
			continue
		}
		sp := serverProc{pid: p.Pid, rss: procfs.RSS(p.Pid)}
		tree, _ := proctest.Descendants(p.Pid)
		for _, c := range tree {
			sp.rss += procfs.RSS(c.Pid)
			sp.children = append(sp.children, c.Cmdline)
		}
		out[name] = sp
	}
	return out
}

type serverProc struct {
	pid      int
	rss      int64
	children []string
}

// logMemory logs the servers running and the resident memory of each
// one's process tree: the figures docs/lsp.md quotes.
func logMemory(t *testing.T, when string, servers map[string]serverProc) {
	t.Helper()
	var total int64
	var parts []string
	for _, n := range names(servers) {
		total += servers[n].rss
		parts = append(parts, fmt.Sprintf("%s %d MiB (%d processes)", n, servers[n].rss>>20, len(servers[n].children)))
	}
	t.Logf("%s: %s; %d MiB in all", when, strings.Join(parts, ", "), total>>20)
}

func names(m map[string]serverProc) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// mixedGoWorkspace is a Go module (go.mod and 40 .go files) holding a few
// stray files of other languages: 3 .js, 2 .c and 2 .json, under 10% of
// the workspace's source files each.
func mixedGoWorkspace(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":  "module example.com/mixed\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"example.com/mixed/widgets\"\n\nfunc main() { _ = widgets.NewWidget(1) }\n",
		"widgets/widget.go": "package widgets\n\n// Widget is a thing.\ntype Widget struct{ Size int }\n\n" +
			"// NewWidget makes one.\nfunc NewWidget(size int) Widget { return Widget{Size: size} }\n",
		"web/app.js":        "function startApp(name) {\n  return 'app ' + name;\n}\nmodule.exports = { startApp };\n",
		"web/util.js":       "function helper() { return 1; }\n",
		"tools/gen.js":      "console.log('gen');\n",
		"native/hash.c":     "int hash(int x) { return x * 31; }\n",
		"native/hash.h":     "int hash(int x);\n",
		"config/app.json":   "{\"name\": \"mixed\"}\n",
		"config/other.json": "{\"debug\": false}\n",
	}
	for i := range 38 {
		files[fmt.Sprintf("widgets/w%02d.go", i)] = fmt.Sprintf("package widgets\n\n// Part%02d is part %d.\nfunc Part%02d() int { return %d }\n", i, i, i, i)
	}
	writeTree(t, root, files)
	return root
}

// TestStatusFirstCall: status as the very first call of a session names
// the servers the workspace needs before any has started (not started
// yet, or not installed with the install command), never "no language
// server handles this workspace", and asking starts nothing.
func TestStatusFirstCall(t *testing.T) {
	peers.Require(t, "gopls")
	for _, tt := range []struct {
		name    string
		files   map[string]string
		servers []lsp.ServerConfig
		want    []string
	}{
		{"go module", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"},
			nil, []string{"gopls (local) not started yet (starts on first use)", "needed: go.mod at the workspace root"}},
		{"needed server not installed", map[string]string{"a.zz": "zz\n", "b.zz": "zz\n"},
			[]lsp.ServerConfig{{Name: "zz-ls", Command: "acp-lsp-test-no-such-program", Extensions: []string{"zz"}, Language: "zz", InstallHint: "pip install zz-ls"}},
			[]string{"zz-ls (local) not installed", "install it with: pip install zz-ls", "needed: 2 of 2 files"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			writeTree(t, root, tt.files)
			sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env(), Servers: tt.servers}}, Config{}, false)
			cs := sc.open(t, root)
			text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "status"})
			if isErr || strings.Contains(text, "no language server") {
				t.Errorf("status (error %v):\n%s", isErr, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("status lacks %q:\n%s", w, text)
				}
			}
			if got := startedServers(t); len(got) > 0 {
				t.Errorf("status started %v", names(got))
			}
		})
	}
}

// TestWorkspaceQuestionsStartNeededServers: in a Go module holding a few
// stray .js, .c and .json files, a workspace symbol query and
// whole-workspace diagnostics start gopls alone (the process table says
// so) and say which files they left out; a question about one of the .js
// files then starts typescript-language-server, which runs without
// automatic type acquisition (no npm in the background).
func TestWorkspaceQuestionsStartNeededServers(t *testing.T) {
	peers.Require(t, "gopls")
	peers.Require(t, "typescript-language-server")
	peers.Require(t, "clangd")
	root := mixedGoWorkspace(t)
	sc := startStack(t, adapter.Config{LSP: lsp.Options{Env: peers.Env()}}, Config{}, false)
	cs := sc.open(t, root)
	gopls := []string{"gopls"}

	text, isErr, _ := stacktest.CallTool(t, cs, map[string]any{"action": "symbols", "query": "NewWidget"})
	if isErr || !strings.Contains(text, "widgets/widget.go") {
		t.Errorf("workspace symbols (error %v):\n%s", isErr, text)
	}
	if got := names(startedServers(t)); !slices.Equal(got, gopls) {
		t.Errorf("a workspace symbol query started %v, want %v", got, gopls)
	}

	text, isErr, _ = stacktest.CallTool(t, cs, map[string]any{"action": "diagnostics", "file": "*"})
	t.Logf("diagnostics *:\n%s", text)
	if isErr || !strings.Contains(text, "gopls: fresh") ||
		!strings.Contains(text, "not checked: 3 files of typescript-language-server, 2 files of clangd, 2 files of vscode-json-language-server, servers the workspace does not need") {
		t.Errorf("workspace diagnostics (error %v):\n%s", isErr, text)
	}
	if got := names(startedServers(t)); !slices.Equal(got, gopls) {
		t.Errorf("whole-workspace diagnostics started %v, want %v", got, gopls)
	}
	logMemory(t, "after the workspace-wide questions", startedServers(t))

	text, isErr, _ = stacktest.CallTool(t, cs, map[string]any{"action": "symbols", "file": "web/app.js"})
	if isErr || !strings.Contains(text, "startApp") {
		t.Errorf("symbols of web/app.js (error %v):\n%s", isErr, text)
	}
	after := startedServers(t)
	if got, want := names(after), []string{"gopls", "typescript-language-server"}; !slices.Equal(got, want) {
		t.Errorf("a question about web/app.js: servers %v, want %v", got, want)
	}
	logMemory(t, "after a question about web/app.js", after)
	ts := after["typescript-language-server"]
	tsserver := false
	for _, c := range ts.children {
		if strings.Contains(c, "tsserver") {
			tsserver = true
			if !strings.Contains(c, "--disableAutomaticTypingAcquisition") {
				t.Errorf("tsserver runs with automatic type acquisition: %s", c)
			}
		}
		if strings.Contains(c, "typingsInstaller") {
			t.Errorf("typings installer running: %s", c)
		}
	}
	if !tsserver {
		t.Errorf("no tsserver under typescript-language-server: %q", ts.children)
	}

	// status: gopls needed and running; typescript-language-server running
	// for the file asked about, not needed; clangd neither.
	text, _, _ = stacktest.CallTool(t, cs, map[string]any{"action": "status"})
	t.Logf("status:\n%s", text)
	for _, w := range []string{"gopls (local) ready", "; needed: go.mod at the workspace root", "typescript-language-server (local) ready",
		"; not needed: 3 of 48 files (6%), under 10%, and no project marker at the workspace root: started for a file asked about",
		"clangd (local) not started yet (starts on first use)", "; not needed: 2 of 48 files (4%), under 10%", "it starts only when a question names one of its files"} {
		if !strings.Contains(text, w) {
			t.Errorf("status lacks %q:\n%s", w, text)
		}
	}
}
