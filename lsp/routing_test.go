package lsp

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestFaultRegistryRouting drives every built-in registry entry end to end
// with the fake standing in for the program (rust-analyzer, bash, YAML and
// JSON servers cannot be installed here): a file of each listed type is
// routed to the server, the project root is the folder of the entry's
// first root marker, and didOpen carries the right languageId.
func TestFaultRegistryRouting(t *testing.T) {
	want := map[string]map[string]string{ // server → file name → languageId
		"gopls":                       {"x.go": "go", "go.sum": "go.sum"}, // go.mod, go.work would be roots themselves
		"rust-analyzer":               {"x.rs": "rust"},
		"pyright":                     {"x.py": "python", "x.pyi": "python"},
		"pylsp":                       {"x.py": "python"},
		"typescript-language-server":  {"x.ts": "typescript", "x.tsx": "typescriptreact", "x.js": "javascript", "x.jsx": "javascriptreact", "x.mjs": "javascript"},
		"clangd":                      {"x.c": "c", "x.h": "c", "x.cpp": "cpp", "x.hpp": "cpp", "x.m": "objective-c"},
		"bash-language-server":        {"x.sh": "shellscript", ".bashrc": "shellscript"},
		"yaml-language-server":        {"x.yaml": "yaml", "x.yml": "yaml"},
		"vscode-json-language-server": {"x.json": "json", "x.jsonc": "jsonc"},
	}
	for _, cfg := range DefaultServers() {
		t.Run(cfg.Name, func(t *testing.T) {
			files := want[cfg.Name]
			if len(files) == 0 {
				t.Fatalf("no expectations for registry entry %s", cfg.Name)
			}
			root := t.TempDir()
			if real, err := filepath.EvalSymlinks(root); err == nil {
				root = real
			}
			script, record := filepath.Join(t.TempDir(), "script.json"), filepath.Join(t.TempDir(), "record.jsonl")
			if err := fakelsp.WriteScript(script, fakelsp.Script{}); err != nil {
				t.Fatal(err)
			}
			proj := filepath.Join(root, "proj")
			if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, cfg.RootMarkers[0]), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg.Command, cfg.Args = fakeBinary(t), fakelsp.Args(script, record)
			m, err := NewManager(Options{Roots: []string{root}, Servers: []ServerConfig{cfg},
				Timeouts: Timeouts{Request: Duration(time.Minute), Shutdown: Duration(300 * time.Millisecond), Idle: Duration(-1)}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(t.Context())
			for name := range files {
				p := filepath.Join(proj, "sub", name)
				if err := os.WriteFile(p, []byte(fakeText), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := documentSymbols(t.Context(), m, p); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			st := m.Servers()
			if len(st) != 1 || st[0].Root != proj || st[0].OpenDocuments != len(files) {
				t.Fatalf("servers %+v, want one rooted at %s with %d documents", st, proj, len(files))
			}
			if err := m.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			msgs, err := fakelsp.ReadRecord(record)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range fakelsp.Starts(msgs) {
				if alive, _ := fakelsp.Alive(st.PGID); len(alive) > 0 {
					t.Fatalf("processes %v left after Close", alive)
				}
			}
			got := map[string]string{}
			for _, msg := range msgs {
				if msg.Method != "textDocument/didOpen" {
					continue
				}
				var p struct {
					TextDocument struct {
						URI        string `json:"uri"`
						LanguageID string `json:"languageId"`
					} `json:"textDocument"`
				}
				if err := decode(msg.Params, &p); err != nil {
					t.Fatal(err)
				}
				got[filepath.Base(p.TextDocument.URI)] = p.TextDocument.LanguageID
			}
			if !maps.Equal(got, files) {
				t.Fatalf("languageIds %v, want %v", got, files)
			}
		})
	}
}
