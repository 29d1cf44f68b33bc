package lsp

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/fakelsp"
)

// TestFaultRegistryRouting drives every built-in registry entry end to end
// with the fake standing in for the program (most cannot be installed
// here): a file of each listed type is
// routed to the server, the project root is the folder of the entry's
// first root marker, and didOpen carries the right languageId.
func TestFaultRegistryRouting(t *testing.T) {
	ts := map[string]string{"x.ts": "typescript", "x.tsx": "typescriptreact", "x.js": "javascript", "x.jsx": "javascriptreact", "x.mjs": "javascript"}
	c := map[string]string{"x.c": "c", "x.h": "c", "x.cpp": "cpp", "x.hpp": "cpp", "x.m": "objective-c"}
	want := map[string]map[string]string{ // server → file name → languageId
		"gopls":                       {"x.go": "go", "go.sum": "go.sum"}, // go.mod, go.work would be roots themselves
		"templ":                       {"x.templ": "templ"},
		"rust-analyzer":               {"x.rs": "rust"},
		"pyright":                     {"x.py": "python", "x.pyi": "python"},
		"pylsp":                       {"x.py": "python"},
		"ruff":                        {"x.py": "python"},
		"typescript-language-server":  ts,
		"typescript-native":           ts,
		"eslint":                      ts,
		"vscode-html-language-server": {"x.html": "html", "x.htm": "html"},
		"vscode-css-language-server":  {"x.css": "css", "x.scss": "scss", "x.less": "less"},
		"vscode-json-language-server": {"x.json": "json", "x.jsonc": "jsonc", "tsconfig.json": "jsonc", ".babelrc": "json"},
		"tailwindcss-language-server": {"x.css": "css"},
		"vue-language-server":         {"x.vue": "vue"},
		"svelteserver":                {"x.svelte": "svelte"},
		"astro-ls":                    {"x.astro": "astro"},
		"graphql-lsp":                 {"x.graphql": "graphql", "x.gql": "graphql"},
		"prisma-language-server":      {"x.prisma": "prisma"},
		"intelephense":                {"x.php": "php"},
		"phpactor":                    {"x.php": "php"},
		"bash-language-server":        {"x.sh": "shellscript", ".bashrc": "shellscript"},
		"yaml-language-server":        {"x.yaml": "yaml", "x.yml": "yaml"},
		"tombi":                       {"x.toml": "toml"},
		"docker-langserver":           {"Dockerfile": "dockerfile", "Containerfile": "dockerfile", "x.dockerfile": "dockerfile"},
		"sql-language-server":         {"x.sql": "sql"},
		"terraform-ls":                {"x.tf": "terraform", "x.tfvars": "terraform-vars"},
		"buf":                         {"x.proto": "proto"},
		"marksman":                    {"x.md": "markdown"},
		"efm-langserver":              {"x.efm": "plaintext"},
		"clangd":                      c,
		"ccls":                        c,
		"fortls":                      {"x.f90": "fortran", "x.f": "fortran"},
		"cmake-language-server":       {"CMakeLists.txt": "cmake", "x.cmake": "cmake"},
		"jdtls":                       {"X.java": "java"},
		"kotlin-language-server":      {"x.kt": "kotlin", "x.kts": "kotlin"},
		"metals":                      {"x.scala": "scala", "x.sbt": "scala"},
		"clojure-lsp":                 {"x.clj": "clojure", "x.cljs": "clojure"},
		"csharp-ls":                   {"x.cs": "csharp"},
		"ruby-lsp":                    {"x.rb": "ruby", "Rakefile": "ruby"},
		"solargraph":                  {"x.rb": "ruby"},
		"sourcekit-lsp":               {"x.swift": "swift"},
		"lua-language-server":         {"x.lua": "lua"},
		"perl-languageserver":         {"x.pl": "perl", "x.pm": "perl"},
		"r-languageserver":            {"x.R": "r", "x.r": "r", "x.Rmd": "rmd"},
		"julia-languageserver":        {"x.jl": "julia"},
		"vim-language-server":         {"x.vim": "vim", ".vimrc": "vim"},
		"elixir-ls":                   {"x.ex": "elixir", "x.exs": "elixir", "x.heex": "phoenix-heex"},
		"haskell-language-server":     {"x.hs": "haskell", "x.lhs": "lhaskell"},
		"ocamllsp":                    {"x.ml": "ocaml", "x.mli": "ocaml.interface"},
		"gleam":                       {"x.gleam": "gleam"},
		"elm-language-server":         {"x.elm": "elm"},
		"zls":                         {"x.zig": "zig"},
		"nimlangserver":               {"x.nim": "nim"},
		"dart":                        {"x.dart": "dart"},
		"solidity-language-server":    {"x.sol": "solidity"},
		"texlab":                      {"x.tex": "latex", "x.bib": "bibtex"},
		"nixd":                        {"x.nix": "nix"},
		"nil":                         {"x.nix": "nix"},
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
			if bytes.Contains(cfg.InitializationOptions, []byte(TypeScriptLibVar)) {
				// The project's own TypeScript, as the fake has none beside it.
				ts := filepath.Join(proj, "node_modules", "typescript", "lib", "typescript.js")
				if err := os.MkdirAll(filepath.Dir(ts), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(ts, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if cfg.Disabled {
				// A disabled entry serves what the user who enables it
				// configures.
				cfg.Disabled, cfg.Extensions = false, []string{"efm"}
			}
			m, err := NewManager(Options{Roots: []string{root}, Servers: []ServerConfig{cfg}, DataDir: t.TempDir(),
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
