package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acp-lsp/acp-lsp/lsp"
)

func TestLSPServers(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "SECRET_TOKEN=x", "GOFLAGS=-mod=mod", "EXTRA_ONE=1", "EXTRA_TWO=2"}
	byName := func(servers []lsp.ServerConfig, name string) *lsp.ServerConfig {
		for i := range servers {
			if servers[i].Name == name {
				return &servers[i]
			}
		}
		return nil
	}
	builtin := func(name string) lsp.ServerConfig { return *byName(lsp.DefaultServers(), name) }
	with := func(name string, f func(*lsp.ServerConfig)) lsp.ServerConfig {
		s := builtin(name)
		f(&s)
		return s
	}
	tests := []struct {
		name    string
		servers map[string]Server
		check   string // server whose result is compared
		want    lsp.ServerConfig
		wantErr string
	}{
		{
			name:  "no tables keeps the built-in",
			check: "gopls",
			want:  builtin("gopls"),
		},
		{
			name:    "args alone are appended to the built-in's own arguments",
			servers: map[string]Server{"pyright": {Args: []string{"--verbose"}}},
			check:   "pyright",
			want:    with("pyright", func(s *lsp.ServerConfig) { s.Args = []string{"--stdio", "--verbose"} }),
		},
		{
			name:    "args for a built-in without arguments",
			servers: map[string]Server{"gopls": {Args: []string{"-remote=auto"}}},
			check:   "gopls",
			want:    with("gopls", func(s *lsp.ServerConfig) { s.Args = []string{"-remote=auto"} }),
		},
		{
			name:    "command replaces executable and arguments, args follow",
			servers: map[string]Server{"pyright": {Command: []string{"/opt/pyright", "--stdio"}, Args: []string{"-v"}}},
			check:   "pyright",
			want: with("pyright", func(s *lsp.ServerConfig) {
				s.Command, s.Args = "/opt/pyright", []string{"--stdio", "-v"}
			}),
		},
		{
			name:    "a bare command drops the built-in's arguments",
			servers: map[string]Server{"pyright": {Command: []string{"my-pyright"}}},
			check:   "pyright",
			want:    with("pyright", func(s *lsp.ServerConfig) { s.Command, s.Args = "my-pyright", []string{} }),
		},
		{
			name: "file types, root markers, language id, disabled",
			servers: map[string]Server{"clangd": {
				Extensions: []string{".c", "h"}, Filenames: []string{"Makefile"},
				RootMarkers: []string{"build"}, LanguageID: "cpp", Disabled: true,
			}},
			check: "clangd",
			want: with("clangd", func(s *lsp.ServerConfig) {
				s.Extensions, s.Filenames, s.RootMarkers = []string{"c", "h"}, []string{"Makefile"}, []string{"build"}
				s.Language, s.Disabled = "cpp", true
			}),
		},
		{
			name: "initialization options and settings become JSON",
			servers: map[string]Server{"gopls": {
				InitializationOptions: map[string]any{"usePlaceholders": true},
				Settings:              map[string]any{"gopls": map[string]any{"staticcheck": true}},
			}},
			check: "gopls",
			want: with("gopls", func(s *lsp.ServerConfig) {
				s.InitializationOptions = json.RawMessage(`{"usePlaceholders":true}`)
				s.Settings = map[string]json.RawMessage{"gopls": json.RawMessage(`{"staticcheck":true}`)}
			}),
		},
		{
			name: "per-server timeouts override, the rest keep the built-in",
			servers: map[string]Server{"gopls": {Timeouts: ServerTimeouts{
				Initialize: 3 * time.Minute, Request: 5 * time.Second,
			}}},
			check: "gopls",
			want: with("gopls", func(s *lsp.ServerConfig) {
				s.Timeouts = lsp.Timeouts{Initialize: lsp.Duration(3 * time.Minute), Request: lsp.Duration(5 * time.Second)}
			}),
		},
		{
			name: "env adds only what the base environment lacks",
			servers: map[string]Server{"gopls": {
				Env:          map[string]string{"GOFLAGS": "-tags=integration", "GOPLS_X": "1"},
				EnvAllowlist: []string{"EXTRA_*"},
			}},
			check: "gopls",
			want: with("gopls", func(s *lsp.ServerConfig) {
				s.Env = []string{"EXTRA_ONE=1", "EXTRA_TWO=2", "GOFLAGS=-tags=integration", "GOPLS_X=1"}
			}),
		},
		{
			name: "a new server is added",
			servers: map[string]Server{"ty": {
				Command: []string{"ty", "server"}, Extensions: []string{"py", "pyi"},
				RootMarkers: []string{"pyproject.toml"}, LanguageID: "python",
			}},
			check: "ty",
			want: lsp.ServerConfig{
				Name: "ty", Command: "ty", Args: []string{"server"}, Extensions: []string{"py", "pyi"},
				RootMarkers: []string{"pyproject.toml"}, Language: "python",
			},
		},
		{
			name:    "needed overrides the survey",
			servers: map[string]Server{"clangd": {Needed: lsp.NeededYes}},
			check:   "clangd",
			want:    with("clangd", func(s *lsp.ServerConfig) { s.Needed = lsp.NeededYes }),
		},
		{
			name:    "priority puts a built-in first",
			servers: map[string]Server{"pylsp": {Priority: -1}},
			check:   "pylsp",
			want:    with("pylsp", func(s *lsp.ServerConfig) { s.Priority = -1 }),
		},
		{
			name:    "needed takes auto, yes or no",
			servers: map[string]Server{"clangd": {Needed: "maybe"}},
			wantErr: `server "clangd": needed "maybe": want "auto", "yes" or "no"`,
		},
		{
			name:    "a new server without a command is refused",
			servers: map[string]Server{"mystery": {Extensions: []string{"zz"}}},
			wantErr: `new server "mystery" needs a command`,
		},
		{
			name:    "a new server without file types is refused",
			servers: map[string]Server{"mystery": {Command: []string{"m"}}},
			wantErr: `new server "mystery" needs a command and extensions or filenames`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Servers = tt.servers
			got, err := cfg.LSPServers(environ)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < len(lsp.DefaultServers()) {
				t.Fatalf("got %d servers, fewer than the %d built-ins", len(got), len(lsp.DefaultServers()))
			}
			s := byName(got, tt.check)
			if s == nil {
				t.Fatalf("server %q missing from %d servers", tt.check, len(got))
			}
			if diff := cmp.Diff(tt.want, *s); diff != "" {
				t.Errorf("server %s (-want +got):\n%s", tt.check, diff)
			}
			// Servers without a table are untouched.
			for _, b := range lsp.DefaultServers() {
				if _, ok := tt.servers[b.Name]; ok {
					continue
				}
				if diff := cmp.Diff(b, *byName(got, b.Name)); diff != "" {
					t.Errorf("untouched server %s changed (-want +got):\n%s", b.Name, diff)
				}
			}
		})
	}
}

func TestBaseEnvFollowsAllowlist(t *testing.T) {
	cfg := Defaults()
	cfg.Local.EnvAllowlist = []string{"PATH", "GO*"}
	got := cfg.BaseEnv([]string{"PATH=/bin", "GOPATH=/g", "AWS_SECRET_ACCESS_KEY=k", "HOME=/h"})
	want := []string{"GOPATH=/g", "PATH=/bin"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BaseEnv (-want +got):\n%s", diff)
	}
}

// TestLSPServersFromFile runs the documented example through the loader,
// so the TOML shapes (inline tables, nested settings) reach lsp intact.
func TestLSPServersFromFile(t *testing.T) {
	f := newFixture(t, `
[servers.gopls]
args = ["-remote=auto"]
env = { GOFLAGS = "-tags=integration" }
settings = { gopls = { staticcheck = true } }
timeouts = { initialize = "2m" }

[servers.pyright]
disabled = true

[servers.clangd]
needed = "yes"

[servers.ruff]
command = ["ruff", "server"]
extensions = ["py", "pyi"]
root_markers = ["pyproject.toml", "ruff.toml"]
language_id = "python"
`, "")
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Config.LSPServers([]string{"PATH=/bin"})
	if err != nil {
		t.Fatal(err)
	}
	var gopls, pyright, ruff, clangd *lsp.ServerConfig
	for i := range got {
		switch got[i].Name {
		case "clangd":
			clangd = &got[i]
		case "gopls":
			gopls = &got[i]
		case "pyright":
			pyright = &got[i]
		case "ruff":
			ruff = &got[i]
		}
	}
	if gopls == nil || pyright == nil || ruff == nil || clangd == nil {
		t.Fatalf("missing servers in %v", got)
	}
	if diff := cmp.Diff([]string{"-remote=auto"}, gopls.Args); diff != "" {
		t.Errorf("gopls args: %s", diff)
	}
	if diff := cmp.Diff([]string{"GOFLAGS=-tags=integration"}, gopls.Env); diff != "" {
		t.Errorf("gopls env: %s", diff)
	}
	if string(gopls.Settings["gopls"]) != `{"staticcheck":true}` {
		t.Errorf("gopls settings = %s", gopls.Settings["gopls"])
	}
	if time.Duration(gopls.Timeouts.Initialize) != 2*time.Minute {
		t.Errorf("gopls initialize timeout = %v", time.Duration(gopls.Timeouts.Initialize))
	}
	if !pyright.Disabled {
		t.Error("pyright not disabled")
	}
	if clangd.Needed != lsp.NeededYes || gopls.Needed != "" {
		t.Errorf("needed: clangd %q, gopls %q", clangd.Needed, gopls.Needed)
	}
	if ruff.Command != "ruff" || !cmp.Equal(ruff.Args, []string{"server"}) || ruff.Language != "python" {
		t.Errorf("ruff = %+v", *ruff)
	}
}
