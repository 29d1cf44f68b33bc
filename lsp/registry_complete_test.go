package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// installers are the programs a built-in's install command may start
// with: package managers and toolchain installers a person has or can get.
var installers = []string{
	"apt-get", "brew", "winget", "scoop", "choco", "pacman", "nix", "wsl",
	"npm", "go", "pip", "pipx", "cargo", "rustup", "gem", "dotnet", "composer",
	"opam", "ghcup", "cs", "cpanm", "Rscript", "julia", "nimble", "swiftly", "xcode-select",
}

// noVersionFlag are the built-ins whose program has no flag that prints
// its version and exits: doctor must not run them with one, since they
// would start serving on stdin instead.
var noVersionFlag = map[string]string{
	"eslint":                      "vscode-langservers-extracted's servers only serve",
	"vscode-html-language-server": "vscode-langservers-extracted's servers only serve",
	"vscode-css-language-server":  "vscode-langservers-extracted's servers only serve",
	"vscode-json-language-server": "vscode-langservers-extracted's servers only serve",
	"tailwindcss-language-server": "serves only",
	"yaml-language-server":        "serves only",
	"docker-langserver":           "serves only",
	"svelteserver":                "serves only",
	"astro-ls":                    "serves only",
	"prisma-language-server":      "serves only",
	"vim-language-server":         "serves only",
	"solidity-language-server":    "serves only",
	"jdtls":                       "its launcher passes every flag to the JVM",
	"kotlin-language-server":      "serves only",
	"elixir-ls":                   "its launcher script serves only",
	"nimlangserver":               "serves only",
	"sourcekit-lsp":               "prints no version; the toolchain's swift --version does",
}

// TestRegistryComplete checks every built-in entry has what routing,
// doctor and the missing-server error need: a command, files, a
// languageId, root markers, an install command for each platform that
// starts with a real installer, and a version command unless the program
// has none.
func TestRegistryComplete(t *testing.T) {
	servers := DefaultServers()
	if len(servers) < 35 {
		t.Errorf("%d built-in servers, want at least 35", len(servers))
	}
	langs := map[string]bool{}
	for _, s := range servers {
		langs[s.Language] = true
		for _, id := range s.LanguageIDs {
			langs[id] = true
		}
		t.Run(s.Name, func(t *testing.T) {
			if s.Name == "" || s.Command == "" || s.Language == "" {
				t.Errorf("name %q, command %q, language %q: none may be empty", s.Name, s.Command, s.Language)
			}
			if len(s.Extensions)+len(s.Filenames) == 0 && !s.Disabled {
				t.Error("serves no extension or file name")
			}
			for _, e := range s.Extensions {
				if e == "" || strings.HasPrefix(e, ".") {
					t.Errorf("extension %q: want it without the dot", e)
				}
			}
			if len(s.RootMarkers) == 0 {
				t.Error("no root markers")
			}
			for _, goos := range []string{"linux", "darwin", "windows"} {
				cmd := s.InstallCommand(goos)
				if cmd == "" {
					t.Errorf("no install command for %s", goos)
				}
				if err := checkInstall(cmd); err != nil {
					t.Errorf("install command for %s %q: %v", goos, cmd, err)
				}
			}
			if _, none := noVersionFlag[s.Name]; none == (len(s.VersionArgs) > 0) {
				t.Errorf("version args %q, listed as having none: %v", s.VersionArgs, none)
			}
			if _, err := s.Loading.compile(s.Name); err != nil {
				t.Error(err)
			}
			if len(s.InitializationOptions) > 0 && !validJSON(s.InitializationOptions) {
				t.Errorf("initializationOptions %s: not JSON", s.InitializationOptions)
			}
			for k, v := range s.Settings {
				if !validJSON(v) {
					t.Errorf("settings %s = %s: not JSON", k, v)
				}
			}
		})
	}
	if len(langs) < 35 {
		t.Errorf("%d languageIds, want at least 35", len(langs))
	}
}

// checkInstall reports an install command whose alternatives (" || ")
// or steps (" && ") do not each start with a known installer.
func checkInstall(cmd string) error {
	for alt := range strings.SplitSeq(cmd, " || ") {
		for step := range strings.SplitSeq(alt, " && ") {
			prog, _, _ := strings.Cut(strings.TrimSpace(step), " ")
			if !slices.Contains(installers, prog) {
				return fmt.Errorf("%q does not start with an installer", step)
			}
		}
	}
	return nil
}

func validJSON(b []byte) bool {
	var v any
	return decode(b, &v) == nil
}

// TestRegistryClaims checks that two enabled built-ins that serve the same
// extension or file name never have the same priority: which one serves a
// file is then always said, not an accident of the registry's order.
func TestRegistryClaims(t *testing.T) {
	claims := map[string][]ServerConfig{}
	for _, s := range DefaultServers() {
		if s.Disabled {
			continue
		}
		for _, e := range s.Extensions {
			claims["x."+e] = append(claims["x."+e], s)
		}
		for _, f := range s.Filenames {
			claims[f] = append(claims[f], s)
		}
	}
	for file, ss := range claims {
		seen := map[int]string{}
		for _, s := range ss {
			if other, dup := seen[s.Priority]; dup {
				t.Errorf("%s: %s and %s both claim it at priority %d", file, other, s.Name, s.Priority)
			}
			seen[s.Priority] = s.Name
		}
	}
}

// TestLanguagesDoc checks docs/languages.md has a row for every built-in
// server: its Server column starts with the entry's name.
func TestLanguagesDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "languages.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(cells[2]), " ")
		rows[name] = true
	}
	for _, s := range DefaultServers() {
		if !rows[s.Name] {
			t.Errorf("docs/languages.md has no row for %s", s.Name)
		}
	}
}
