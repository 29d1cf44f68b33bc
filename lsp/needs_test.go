package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// surveyTree writes n files named by pattern (with %d) under root.
func surveyTree(t *testing.T, root string, files map[string]int) {
	t.Helper()
	for pattern, n := range files {
		for i := range n {
			name := pattern
			if strings.Contains(pattern, "%") {
				name = fmt.Sprintf(pattern, i)
			}
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSurveyNeeds specifies which servers a workspace needs: project
// markers at the root (a version-control folder is none), the share of
// files, configuration, and the walk's skipped folders; files go to the
// first installed server that handles them.
func TestSurveyNeeds(t *testing.T) {
	// The built-in registry, with a PATH on which every server but
	// vscode-json-language-server and pyright is "installed" (an
	// executable of its name that is never run).
	bin := t.TempDir()
	for _, name := range []string{"gopls", "typescript-language-server", "clangd", "pylsp"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	goStray := map[string]int{"go.mod": 1, "p/f%d.go": 40, "web/a%d.js": 3, "c/h%d.c": 2, "conf/c%d.json": 2}
	with := func(base map[string]int, more map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	configure := func(name, needed string) func([]ServerConfig) {
		return func(s []ServerConfig) {
			s[slices.IndexFunc(s, func(c ServerConfig) bool { return c.Name == name })].Needed = needed
		}
	}
	for _, tt := range []struct {
		name      string
		files     map[string]int
		configure func([]ServerConfig)
		needed    []string
		reasons   map[string]string // server → its Reason
		missing   []string          // servers listed as not installed
	}{
		{"go module with stray files", goStray, nil, []string{"gopls"}, map[string]string{
			"gopls":                       "go.mod at the workspace root",
			"typescript-language-server":  "3 of 48 files (6%), under 10%, and no project marker at the workspace root",
			"clangd":                      "2 of 48 files (4%), under 10%, and no project marker at the workspace root",
			"vscode-json-language-server": "2 of 48 files (4%), under 10%, and no project marker at the workspace root",
		}, []string{"vscode-json-language-server"}},
		{"a version-control folder is no project marker", with(goStray, map[string]int{"go.mod": 0, ".git/HEAD": 1}), nil,
			[]string{"gopls"}, map[string]string{"gopls": "40 of 47 files (85%)"}, []string{"vscode-json-language-server"}},
		{"project marker of a small share", with(goStray, map[string]int{"package.json": 1}), nil,
			[]string{"gopls", "typescript-language-server"}, map[string]string{"typescript-language-server": "package.json at the workspace root"}, []string{"vscode-json-language-server"}},
		{"a marker without files needs nothing", map[string]int{"go.mod": 1, "compile_flags.txt": 1, "f%d.go": 3}, nil,
			[]string{"gopls"}, nil, nil},
		{"share of files without markers", map[string]int{"a%d.go": 5, "b%d.c": 5, "x%d.js": 1}, nil,
			[]string{"clangd", "gopls"}, map[string]string{"clangd": "5 of 11 files (45%)", "typescript-language-server": "1 of 11 files (9%), under 10%, and no project marker at the workspace root"}, nil},
		{"hidden, dependency and build folders are not walked", with(goStray, map[string]int{"node_modules/m/i%d.js": 100, "vendor/v/v%d.c": 100, ".cache/x%d.js": 100, "target/t%d.c": 50}), nil,
			[]string{"gopls"}, map[string]string{"typescript-language-server": "3 of 48 files (6%), under 10%, and no project marker at the workspace root"}, []string{"vscode-json-language-server"}},
		{"configured yes", goStray, configure("clangd", NeededYes),
			[]string{"gopls", "clangd"}, map[string]string{"clangd": `2 of 48 files (4%); configured needed = "yes"`}, []string{"vscode-json-language-server"}},
		{"configured no", goStray, configure("gopls", NeededNo),
			nil, map[string]string{"gopls": `41 of 48 files (85%); configured needed = "no"`}, []string{"vscode-json-language-server"}},
		{"configured yes without files needs nothing", map[string]int{"go.mod": 1, "a.go": 1}, configure("clangd", NeededYes),
			[]string{"gopls"}, nil, nil},
		// pyproject.toml is TOML, whose server is neither installed nor
		// needed (a manifest of another language).
		{"first installed server of a file type", map[string]int{"a%d.py": 2, "pyproject.toml": 1}, nil,
			[]string{"pylsp"}, map[string]string{"pylsp": "pyproject.toml at the workspace root", "tombi": `1 of 3 files (33%); configured needed = "no"`}, []string{"tombi"}},
		{"needed and not installed", map[string]int{"a%d.json": 2}, nil,
			[]string{"vscode-json-language-server"}, map[string]string{"vscode-json-language-server": "2 of 2 files (100%)"}, []string{"vscode-json-language-server"}},
		{"nothing any server handles", map[string]int{"notes.txt": 1}, nil, nil, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			surveyTree(t, root, tt.files)
			servers := DefaultServers()
			if tt.configure != nil {
				tt.configure(servers)
			}
			m, err := NewManager(Options{Servers: servers, Env: []string{"PATH=" + bin}})
			if err != nil {
				t.Fatal(err)
			}
			sv := m.Survey(root, 1)
			if got := sv.Needed(); !slices.Equal(got, tt.needed) {
				t.Errorf("needed %v, want %v (%+v)", got, tt.needed, sv.Servers)
			}
			var missing []string
			for _, n := range sv.Servers {
				if want, ok := tt.reasons[n.Config.Name]; ok && n.Reason != want {
					t.Errorf("%s: reason %q, want %q", n.Config.Name, n.Reason, want)
				}
				if !n.Installed {
					missing = append(missing, n.Config.Name)
				}
			}
			if !slices.Equal(missing, tt.missing) {
				t.Errorf("not installed %v, want %v", missing, tt.missing)
			}
			// One path per server (keep 1), each of its server.
			seen := map[string]bool{}
			for _, f := range sv.Paths {
				if seen[f.Server] || !slices.ContainsFunc(sv.Servers, func(n ServerNeed) bool { return n.Config.Name == f.Server && n.Config.Serves(f.Path) }) {
					t.Errorf("path %+v", f)
				}
				seen[f.Server] = true
			}
			if len(seen) != len(sv.Servers) || sv.Truncated {
				t.Errorf("paths %+v for servers %+v (truncated %v)", sv.Paths, sv.Servers, sv.Truncated)
			}
		})
	}
}

// TestSurveyBounded: the walk stops at its bound and says so; the counts
// are of the part walked.
func TestSurveyBounded(t *testing.T) {
	root := t.TempDir()
	surveyTree(t, root, map[string]int{"f%d.go": 10})
	for _, tt := range []struct {
		limit     int
		seen      int
		truncated bool
	}{{5, 4, true}, {11, 10, false}, {100, 10, false}} {
		n := 0
		truncated := walkFiles(root, tt.limit, func(string) bool { n++; return false })
		if n != tt.seen || truncated != tt.truncated {
			t.Errorf("limit %d: %d files seen, truncated %v; want %d, %v", tt.limit, n, truncated, tt.seen, tt.truncated)
		}
	}
}
