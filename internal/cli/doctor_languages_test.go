package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// TestDoctorLanguages runs doctor on testdata/monorepo, one small file or
// two per language, with no language server installed (an empty PATH):
// every language is named with its file count and its servers in the
// order they are tried, each not installed with the exact command that
// installs it on this platform, and doctor exits 1 naming every language.
func TestDoctorLanguages(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("ACP_LSP_CONFIG", "")
	want := []struct {
		lang    string
		files   int
		servers []string // in the order tried
	}{
		{"astro", 1, []string{"astro-ls"}},
		{"c", 1, []string{"clangd", "ccls"}},
		{"clojure", 1, []string{"clojure-lsp"}},
		{"cmake", 1, []string{"cmake-language-server"}},
		{"csharp", 1, []string{"csharp-ls"}},
		{"css", 1, []string{"vscode-css-language-server", "tailwindcss-language-server"}},
		{"dart", 1, []string{"dart"}},
		{"dockerfile", 1, []string{"docker-langserver"}},
		{"elixir", 1, []string{"elixir-ls"}},
		{"elm", 1, []string{"elm-language-server"}},
		{"fortran", 1, []string{"fortls"}},
		{"gleam", 1, []string{"gleam"}},
		{"go", 2, []string{"gopls"}},
		{"graphql", 1, []string{"graphql-lsp"}},
		{"haskell", 1, []string{"haskell-language-server"}},
		{"html", 1, []string{"vscode-html-language-server"}},
		{"java", 1, []string{"jdtls"}},
		{"json", 1, []string{"vscode-json-language-server"}},
		{"julia", 1, []string{"julia-languageserver"}},
		{"kotlin", 1, []string{"kotlin-language-server"}},
		{"latex", 1, []string{"texlab"}},
		{"lua", 1, []string{"lua-language-server"}},
		{"markdown", 1, []string{"marksman"}},
		{"nim", 1, []string{"nimlangserver"}},
		{"nix", 1, []string{"nixd", "nil"}},
		{"ocaml", 1, []string{"ocamllsp"}},
		{"perl", 1, []string{"perl-languageserver"}},
		{"php", 1, []string{"intelephense", "phpactor"}},
		{"prisma", 1, []string{"prisma-language-server"}},
		{"proto", 1, []string{"buf"}},
		{"python", 1, []string{"pyright", "pylsp", "ruff"}},
		{"r", 1, []string{"r-languageserver"}},
		{"ruby", 1, []string{"ruby-lsp", "solargraph"}},
		{"rust", 1, []string{"rust-analyzer"}},
		{"scala", 1, []string{"metals"}},
		{"shellscript", 1, []string{"bash-language-server"}},
		{"solidity", 1, []string{"solidity-language-server"}},
		{"sql", 1, []string{"sql-language-server"}},
		{"svelte", 1, []string{"svelteserver"}},
		{"swift", 1, []string{"sourcekit-lsp"}},
		{"templ", 1, []string{"templ"}},
		{"terraform", 1, []string{"terraform-ls"}},
		{"toml", 2, []string{"tombi"}}, // config.toml and Cargo.toml
		{"typescript", 1, []string{"typescript-language-server", "typescript-native", "eslint"}},
		{"vim", 1, []string{"vim-language-server"}},
		{"vue", 1, []string{"vue-language-server"}},
		{"yaml", 1, []string{"yaml-language-server"}},
		{"zig", 1, []string{"zls"}},
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "monorepo"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := &doctorCmd{maxFiles: 1000, timeout: time.Minute}
	err = cmd.Run(t.Context(), Stdio{Out: &out, Err: &errOut}, []string{dir})
	var ee exitError
	if !errors.As(err, &ee) || ee.code != ExitFailure {
		t.Fatalf("doctor: %v, want exit 1\n%s", err, out.String())
	}
	text, _, _ := strings.Cut(out.String(), "\nregistered servers:\n")
	registry := map[string]lsp.ServerConfig{}
	for _, s := range lsp.DefaultServers() {
		registry[s.Name] = s
	}
	var langs []string
	for _, w := range want {
		langs = append(langs, w.lang)
		head := fmt.Sprintf("\n%s: %d files\n", w.lang, w.files)
		_, section, ok := strings.Cut(text, head)
		if !ok {
			t.Errorf("no %q in the output", strings.TrimSpace(head))
			continue
		}
		section, _, _ = strings.Cut(section, "\n\n")
		var lines []string
		for _, name := range w.servers {
			s, ok := registry[name]
			if !ok {
				t.Fatalf("no built-in server %s", name)
			}
			lines = append(lines, fmt.Sprintf("  %-28s not installed (%s); install: %s", name, s.Command, s.InstallCommand(runtime.GOOS)))
		}
		if got := strings.Split(strings.TrimRight(section, "\n"), "\n"); !slices.Equal(got, lines) {
			t.Errorf("%s:\n%s\nwant\n%s", w.lang, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	if got := strings.Count(text, " files\n"); got != len(want) {
		t.Errorf("%d languages in the output, want %d:\n%s", got, len(want), text)
	}
	if msg := "no working language server for " + strings.Join(langs, ", "); err.Error() != msg {
		t.Errorf("error %q, want %q", err, msg)
	}
}
