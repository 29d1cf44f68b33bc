package serverhost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// goWorkspace writes a Go module whose hover on Answer says its type.
func goWorkspace(t testing.TB) (root, file string) {
	t.Helper()
	root = t.TempDir()
	file = filepath.Join(root, "main.go")
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/shared\n\ngo 1.22\n"), 0o644))
	must(t, os.WriteFile(file, []byte("package main\n\n// Answer is the answer.\nvar Answer = 42\n\nfunc main() { _ = Answer }\n"), 0o644))
	return root, file
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func hoverSpec(dir, root, file string) clientSpec {
	return clientSpec{Dir: dir, Root: root, File: file, Method: "textDocument/hover",
		Params: `{"textDocument":{"uri":"` + edit.URIFromPath(file) + `"},"position":{"line":3,"character":5}}`}
}

// TestSharedServers runs three acp-lsp processes (client processes of the
// test binary) with sessions on one Go workspace: through the host they
// share one gopls; with different gopls settings there are two; with
// local.shared = false each runs its own. Every answer is right.
func TestSharedServers(t *testing.T) {
	peers.Require(t, "gopls")
	settingsA := map[string]json.RawMessage{"gopls": json.RawMessage(`{"hoverKind":"FullDocumentation"}`)}
	settingsB := map[string]json.RawMessage{"gopls": json.RawMessage(`{"hoverKind":"SynopsisDocumentation"}`)}
	cases := []struct {
		name     string
		own      bool
		settings []map[string]json.RawMessage
		servers  int
	}{
		{"one workspace, one gopls", false, []map[string]json.RawMessage{nil, nil, nil}, 1},
		{"different trusted settings, two", false, []map[string]json.RawMessage{settingsA, settingsB, settingsA}, 2},
		{"shared off, one per process", true, []map[string]json.RawMessage{nil, nil, nil}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostDir(t)
			root, file := goWorkspace(t)
			var procs []*clientProc
			pids := map[int]bool{}
			for _, s := range tc.settings {
				spec := hoverSpec(dir, root, file)
				spec.Own, spec.Settings = tc.own, s
				p := startClient(t, spec)
				procs = append(procs, p)
				a := p.answer(t)
				if a.Err != "" || !strings.Contains(string(a.Result), "var Answer int") {
					t.Errorf("hover: %s %s, want var Answer int", a.Result, a.Err)
				}
				for _, pid := range a.PIDs {
					pids[pid] = true
				}
			}
			var rss int64
			for pid := range pids {
				rss += procfs.RSS(pid)
			}
			t.Logf("%d gopls processes, %d MiB resident together", len(pids), rss>>20)
			if len(pids) != tc.servers {
				t.Errorf("gopls processes %v, want %d", slices.Collect(mapsKeys(pids)), tc.servers)
			}
			hosts := hostPIDs(t, dir)
			switch {
			case tc.own && len(hosts) != 0:
				t.Errorf("hosts %v with local.shared = false", hosts)
			case !tc.own && len(hosts) != 1:
				t.Errorf("hosts %v, want one", hosts)
			}
			for _, p := range procs {
				p.end()
			}
		})
	}
}

func mapsKeys(m map[int]bool) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
