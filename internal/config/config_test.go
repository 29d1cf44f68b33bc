package config

import (
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// env is a fake environment for Load.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// fixture is a home with a user file and a workspace with a project file.
type fixture struct {
	home, workspace, state string
	env                    env
}

func newFixture(t *testing.T, user, project string) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		home:      filepath.Join(root, "home"),
		workspace: filepath.Join(root, "ws"),
		state:     filepath.Join(root, "home", ".local", "state", "acp-lsp"),
	}
	f.env = env{"HOME": f.home}
	for _, d := range []string{f.home, f.workspace} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if user != "" {
		f.write(t, filepath.Join(f.home, ".config", "acp-lsp", "config.toml"), user)
	}
	if project != "" {
		f.write(t, filepath.Join(f.workspace, ProjectFileName), project)
	}
	return f
}

func (f *fixture) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trustOnDisk trusts path's content as 'acp-lsp trust' does: read once
// (ReadFile, so a file it cannot read is not trusted), then recorded.
func trustOnDisk(store *TrustStore, path string, now time.Time) error {
	data, err := ReadFile(path)
	if err != nil {
		return err
	}
	_, err = store.Trust(path, data, now)
	return err
}

func (f *fixture) trust(t *testing.T) {
	t.Helper()
	if err := trustOnDisk(NewTrustStore(StateDir(f.env.get)), filepath.Join(f.workspace, ProjectFileName), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) load(t *testing.T, overrides ...Override) (*Loaded, error) {
	t.Helper()
	return Load(Options{Workspace: f.workspace, Getenv: f.env.get, Overrides: overrides})
}

func TestDefaultsLoadClean(t *testing.T) {
	f := newFixture(t, "", "")
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Defaults(), l.Config); diff != "" {
		t.Fatalf("no files, no env: config differs from defaults (-want +got):\n%s", diff)
	}
	if l.UserFileExists || l.ProjectTrust != TrustNoFile || len(l.Warnings) != 0 {
		t.Fatalf("unexpected state: %+v", l)
	}
	if got, want := l.UserFile, filepath.Join(f.home, ".config", "acp-lsp", "config.toml"); got != want {
		t.Fatalf("user file %q, want %q", got, want)
	}
}

func TestPrecedence(t *testing.T) {
	user := `
[log]
level = "debug"
trace_file = "/tmp/user.trace"
[diagnostics]
cache_files = 100
per_file = 10
settle_window = "1s"
[tool]
page_size = 7
`
	project := `
[diagnostics]
cache_files = 300
settle_window = "2s"
[tool]
page_size = 9
`
	tests := []struct {
		name      string
		env       env
		overrides []Override
		key       string
		check     func(Config) any
		want      any
		source    string
	}{
		{"default", nil, nil, "timeouts.editor", func(c Config) any { return c.Timeouts.Editor }, 10 * time.Second, "default"},
		{"user over default", nil, nil, "diagnostics.per_file", func(c Config) any { return c.Diagnostics.PerFile }, 10, "~/.config/acp-lsp/config.toml:7"},
		{"project over user", nil, nil, "diagnostics.cache_files", func(c Config) any { return c.Diagnostics.CacheFiles }, 300, "PROJECT:3"},
		{"env over project", env{"ACP_LSP_DIAGNOSTICS_CACHE_FILES": "500"}, nil, "diagnostics.cache_files",
			func(c Config) any { return c.Diagnostics.CacheFiles }, 500, "env ACP_LSP_DIAGNOSTICS_CACHE_FILES"},
		{"flag over env", env{"ACP_LSP_LOG_LEVEL": "warn"}, []Override{{Flag: "-log-level", Key: "log.level", Value: "error"}}, "log.level",
			func(c Config) any { return c.Log.Level }, "error", "flag -log-level"},
		{"env over user", env{"ACP_LSP_LOG_LEVEL": "warn"}, nil, "log.level", func(c Config) any { return c.Log.Level }, "warn", "env ACP_LSP_LOG_LEVEL"},
		{"later flag wins", nil, []Override{{Flag: "-set tool.page_size", Key: "tool.page_size", Value: "11"}, {Flag: "-set tool.page_size", Key: "tool.page_size", Value: "12"}},
			"tool.page_size", func(c Config) any { return c.Tool.PageSize }, 12, "flag -set tool.page_size"},
		{"env duration", env{"ACP_LSP_DIAGNOSTICS_SETTLE_WINDOW": "750ms"}, nil, "diagnostics.settle_window",
			func(c Config) any { return c.Diagnostics.SettleWindow }, 750 * time.Millisecond, "env ACP_LSP_DIAGNOSTICS_SETTLE_WINDOW"},
		{"env bool", env{"ACP_LSP_EDITOR_USE_LSP": "false"}, nil, "editor.use_lsp", func(c Config) any { return c.Editor.UseLSP }, false, "env ACP_LSP_EDITOR_USE_LSP"},
		{"env list", env{"ACP_LSP_LOCAL_ENV_ALLOWLIST": "PATH, HOME,GO*"}, nil, "local.env_allowlist",
			func(c Config) any { return c.Local.EnvAllowlist }, []string{"PATH", "HOME", "GO*"}, "env ACP_LSP_LOCAL_ENV_ALLOWLIST"},
		{"empty env ignored", env{"ACP_LSP_LOG_LEVEL": ""}, nil, "log.level", func(c Config) any { return c.Log.Level }, "debug", "~/.config/acp-lsp/config.toml:3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, user, project)
			f.trust(t)
			maps.Copy(f.env, tc.env)
			l, err := f.load(t, tc.overrides...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, tc.check(l.Config)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.key, diff)
			}
			want := strings.ReplaceAll(tc.source, "PROJECT", filepath.Join(f.workspace, ProjectFileName))
			if got := l.Source(tc.key).String(); got != want {
				t.Errorf("source of %s = %q, want %q", tc.key, got, want)
			}
		})
	}
}

func TestServersMerge(t *testing.T) {
	user := `
[servers.gopls]
command = ["gopls"]
args = ["-remote=auto"]
env = { GOFLAGS = "-mod=mod" }
timeouts = { request = "45s" }

[servers.mylang]
command = ["mylang-ls", "--stdio"]
extensions = ["ml", "mli"]
filenames = ["dune"]
root_markers = ["dune-project"]
language_id = "ocaml"
initialization_options = { verbose = true, depth = 3 }
settings = { mylang = { lint = ["a", "b"] } }
`
	project := `
[servers.gopls]
args = ["serve"]
disabled = true
`
	f := newFixture(t, user, project)
	f.trust(t)
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Server{
		"gopls": {
			Command:  []string{"gopls"},
			Args:     []string{"serve"},
			Env:      map[string]string{"GOFLAGS": "-mod=mod"},
			Disabled: true,
			Timeouts: ServerTimeouts{Request: 45 * time.Second},
		},
		"mylang": {
			Command:               []string{"mylang-ls", "--stdio"},
			Extensions:            []string{"ml", "mli"},
			Filenames:             []string{"dune"},
			RootMarkers:           []string{"dune-project"},
			LanguageID:            "ocaml",
			InitializationOptions: map[string]any{"verbose": true, "depth": int64(3)},
			Settings:              map[string]any{"mylang": map[string]any{"lint": []any{"a", "b"}}},
		},
	}
	if diff := cmp.Diff(want, l.Config.Servers); diff != "" {
		t.Fatalf("servers (-want +got):\n%s", diff)
	}
	if got, want := l.Source("servers.gopls.args").String(), filepath.Join(f.workspace, ProjectFileName)+":3"; got != want {
		t.Errorf("source of servers.gopls.args = %q, want %q", got, want)
	}
	if got, want := l.Source("servers.gopls.timeouts.request").String(), "~/.config/acp-lsp/config.toml:6"; got != want {
		t.Errorf("source of servers.gopls.timeouts.request = %q, want %q", got, want)
	}
}

func TestTrustFlow(t *testing.T) {
	project := `
[diagnostics]
cache_files = 42
[tool]
allow_raw_request = true
[servers.gopls]
command = ["/tmp/evil"]
`
	f := newFixture(t, "", project)
	pf := filepath.Join(f.workspace, ProjectFileName)

	// Untrusted: safe keys apply, the rest is ignored with a warning that
	// says how to trust it.
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if l.ProjectTrust != Untrusted {
		t.Fatalf("trust = %v, want untrusted", l.ProjectTrust)
	}
	if l.Config.Diagnostics.CacheFiles != 42 {
		t.Errorf("safe key not applied from untrusted file: cache_files = %d", l.Config.Diagnostics.CacheFiles)
	}
	if l.Config.Tool.AllowRawRequest || len(l.Config.Servers) != 0 {
		t.Errorf("unsafe keys applied from untrusted file: %+v %+v", l.Config.Tool, l.Config.Servers)
	}
	wantWarn := "project config " + pf + " is not trusted, so its settings that can run or change things are ignored (tool.allow_raw_request, servers.gopls); review it and run 'acp-lsp trust " + f.workspace + "' to apply them"
	if diff := cmp.Diff([]string{wantWarn}, l.Warnings); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}

	// Trusted: everything applies, no warning.
	f.trust(t)
	l, err = f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if l.ProjectTrust != Trusted || !l.Config.Tool.AllowRawRequest || l.Config.Servers["gopls"].Command[0] != "/tmp/evil" || len(l.Warnings) != 0 {
		t.Fatalf("trusted file not applied: trust=%v tool=%+v servers=%+v warnings=%q", l.ProjectTrust, l.Config.Tool, l.Config.Servers, l.Warnings)
	}

	// Changed after trust: ignored again, the warning says it changed.
	f.write(t, pf, project+"\n# edited\n")
	l, err = f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if l.ProjectTrust != TrustChanged || l.Config.Tool.AllowRawRequest || len(l.Config.Servers) != 0 {
		t.Fatalf("changed file applied: trust=%v tool=%+v servers=%+v", l.ProjectTrust, l.Config.Tool, l.Config.Servers)
	}
	wantWarn = strings.Replace(wantWarn, "is not trusted", "changed since it was trusted", 1)
	if diff := cmp.Diff([]string{wantWarn}, l.Warnings); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}

	// Revoked: untrusted again.
	store := NewTrustStore(StateDir(f.env.get))
	if ok, err := store.Revoke(pf); err != nil || !ok {
		t.Fatalf("revoke = %v, %v", ok, err)
	}
	if st, err := store.Check(pf, []byte(project)); err != nil || st != Untrusted {
		t.Fatalf("after revoke: %v, %v", st, err)
	}
	info, err := os.Stat(filepath.Dir(store.Path()))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode: %v %v", info.Mode(), err)
	}
}

func TestTrustThroughSymlink(t *testing.T) {
	f := newFixture(t, "", "[tool]\nallow_mutating = false\n")
	link := filepath.Join(filepath.Dir(f.workspace), "link")
	if err := os.Symlink(f.workspace, link); err != nil {
		t.Fatal(err)
	}
	if err := trustOnDisk(NewTrustStore(StateDir(f.env.get)), filepath.Join(link, ProjectFileName), time.Now()); err != nil {
		t.Fatal(err)
	}
	l, err := f.load(t)
	if err != nil || l.ProjectTrust != Trusted || l.Config.Tool.AllowMutating {
		t.Fatalf("trust via symlink not honoured for the real path: %v %+v", err, l)
	}
}

func TestErrors(t *testing.T) {
	const uf = "~/.config/acp-lsp/config.toml"
	tests := []struct {
		name string
		file string
		env  env
		want string
	}{
		{"unknown key with suggestion", "[diagnostics]\nsetle_window = \"1s\"\n",
			nil, uf + `:2: unknown key "diagnostics.setle_window" (did you mean "settle_window"?)`},
		{"unknown key no suggestion", "\n\n[tool]\nzzz = 1\n",
			nil, uf + `:4: unknown key "tool.zzz"`},
		{"unknown table", "[diagnostic]\ncache_files = 3\n",
			nil, uf + `:1: unknown key "diagnostic" (did you mean "diagnostics"?)`},
		{"unknown dotted key", "diagnostics.perfile = 3\n",
			nil, uf + `:1: unknown key "diagnostics.perfile" (did you mean "per_file"?)`},
		{"unknown server key", "[servers.gopls]\ncomand = [\"gopls\"]\n",
			nil, uf + `:2: unknown key "servers.gopls.comand" (did you mean "command"?)`},
		{"unknown key in inline table", "[servers.gopls]\ntimeouts = { requests = \"1s\" }\n",
			nil, uf + `:2: unknown key "servers.gopls.timeouts.requests" (did you mean "request"?)`},
		{"wrong type int", "[diagnostics]\n# c\ncache_files = \"many\"\n",
			nil, uf + `:3: diagnostics.cache_files: expected an integer, got string "many"`},
		{"wrong type bool", "[editor]\nuse_lsp = 1\n",
			nil, uf + `:2: editor.use_lsp: expected true or false, got integer 1`},
		{"wrong type string", "[log]\nlevel = true\n",
			nil, uf + `:2: log.level: expected a string, got boolean true`},
		{"wrong type table", "log = 3\n",
			nil, uf + `:1: log: expected a table, got integer 3`},
		{"wrong type list", "[servers.x]\ncommand = \"x-ls --stdio\"\n",
			nil, uf + `:2: servers.x.command: expected an array of strings, got string "x-ls --stdio"`},
		{"wrong list element", "[servers.x]\ncommand = [\"x\", 2]\n",
			nil, uf + `:2: servers.x.command[1]: expected a string, got integer 2`},
		{"empty command", "[servers.x]\ncommand = []\n",
			nil, uf + `:2: servers.x.command: must not be empty`},
		{"env not strings", "[servers.x]\nenv = { A = 1 }\n",
			nil, uf + `:2: servers.x.env.A: expected a string, got integer 1`},
		{"server not a table", "servers.x = 1\n",
			nil, uf + `:1: servers.x: expected a table, got integer 1`},
		{"settings not a table", "[servers.x]\nsettings = [1]\n",
			nil, uf + `:2: servers.x.settings: expected a table, got an array`},
		{"duration as integer", "[timeouts]\neditor = 10\n",
			nil, uf + `:2: timeouts.editor: expected a duration string like "10s", got integer 10`},
		{"bad duration", "[timeouts]\neditor = \"10 seconds\"\n",
			nil, uf + `:2: timeouts.editor: invalid duration "10 seconds" (write a number and a unit, like "500ms", "10s" or "2m")`},
		{"negative duration", "[local]\nrestart_backoff = \"-1s\"\n",
			nil, uf + `:2: local.restart_backoff: duration "-1s" must not be negative`},
		{"zero duration", "[timeouts]\nrequest = \"0s\"\n",
			nil, uf + `:2: timeouts.request: duration must be positive, got "0s"`},
		{"enum", "[mcp]\ntransport = \"tcp\"\n",
			nil, uf + `:2: mcp.transport: invalid value "tcp" (one of auto, http, stdio)`},
		{"min", "[diagnostics]\ncache_files = 0\n",
			nil, uf + `:2: diagnostics.cache_files: must be at least 1, got 0`},
		{"too large", "[diagnostics]\ncache_files = 99999999999\n",
			nil, uf + `:2: diagnostics.cache_files: 99999999999 is too large`},
		{"syntax", "[log\nlevel = 1\n",
			nil, uf + `:1: syntax error: expected '.' or ']' to end table name, but got '\n' instead`},
		{"syntax duplicate", "[log]\nlevel = \"info\"\nlevel = \"debug\"\n",
			nil, uf + `:3: syntax error: Key 'log.level' has already been defined.`},
		{"not utf-8", "level = \"\xff\"\n",
			nil, uf + `: not UTF-8 text`},
		{"two errors in line order", "[tool]\npage_size = \"x\"\n[log]\nlevle = \"info\"\n",
			nil, uf + `:2: tool.page_size: expected an integer, got string "x"` + "\n" + uf + `:4: unknown key "log.levle" (did you mean "level"?)`},
		{"env bad int", "", env{"ACP_LSP_TOOL_PAGE_SIZE": "ten"},
			`ACP_LSP_TOOL_PAGE_SIZE: tool.page_size: expected an integer, got "ten"`},
		{"env bad enum", "", env{"ACP_LSP_LOG_LEVEL": "loud"},
			`ACP_LSP_LOG_LEVEL: log.level: invalid value "loud" (one of debug, info, warn, error)`},
		{"env bad duration", "", env{"ACP_LSP_TIMEOUTS_EDITOR": "5"},
			`ACP_LSP_TIMEOUTS_EDITOR: timeouts.editor: invalid duration "5" (write a number and a unit, like "500ms", "10s" or "2m")`},
		{"env bad bool", "", env{"ACP_LSP_TOOL_ALLOW_MUTATING": "maybe"},
			`ACP_LSP_TOOL_ALLOW_MUTATING: tool.allow_mutating: expected true or false, got "maybe"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.file, "")
			maps.Copy(f.env, tc.env)
			l, err := f.load(t)
			if err == nil {
				t.Fatalf("no error; config %+v", l.Config)
			}
			if l != nil {
				t.Fatalf("config returned with an error")
			}
			if got := err.Error(); got != tc.want {
				t.Fatalf("error:\n got %s\nwant %s", got, tc.want)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is not a *config.Error: %T", err)
			}
		})
	}
}

func TestProjectFileErrorsNameTheProjectFile(t *testing.T) {
	f := newFixture(t, "", "[tool]\npage_size = 0\n")
	_, err := f.load(t)
	want := filepath.Join(f.workspace, ProjectFileName) + ":2: tool.page_size: must be at least 1, got 0"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(*Loaded) bool
	}{
		{"named flags", []string{"-log-level", "debug", "-trace-file", "/tmp/t", "-mcp-transport", "stdio"}, "",
			func(l *Loaded) bool {
				return l.Config.Log.Level == "debug" && l.Config.Log.TraceFile == "/tmp/t" && l.Config.MCP.Transport == "stdio" &&
					l.Source("mcp.transport").String() == "flag -mcp-transport"
			}},
		{"set", []string{"-set", "diagnostics.include_warnings=true", "-set", "tool.output_budget=5000"}, "",
			func(l *Loaded) bool {
				return l.Config.Diagnostics.IncludeWarnings && l.Config.Tool.OutputBudget == 5000
			}},
		{"set unknown", []string{"-set", "diagnostics.include_warning=true"},
			`-set diagnostics.include_warning: unknown key "diagnostics.include_warning" (did you mean "diagnostics.include_warnings"?)`, nil},
		{"set server", []string{"-set", "servers.gopls.disabled=true"},
			`-set servers.gopls.disabled: unknown key "servers.gopls.disabled" (servers are configured in files only)`, nil},
		{"bad flag value", []string{"-mcp-transport", "tcp"},
			`-mcp-transport: mcp.transport: invalid value "tcp" (one of auto, http, stdio)`, nil},
		{"missing explicit config file", []string{"-config", "/nonexistent/acp-lsp.toml"},
			"config: read user file: open /nonexistent/acp-lsp.toml: no such file or directory", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", "")
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fl := AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			opts := fl.Options(f.workspace)
			opts.Getenv = f.env.get
			l, err := Load(opts)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(l) {
				t.Fatalf("flags not applied: %+v", l.Config)
			}
		})
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	AddFlags(fs)
	fs.SetOutput(io.Discard)
	if err := fs.Parse([]string{"-set", "novalue"}); err == nil || !strings.Contains(err.Error(), `want KEY=VALUE, got "novalue"`) {
		t.Fatalf("-set without '=': %v", err)
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		env        env
		user, stat string
	}{
		{env{"HOME": "/h"}, "/h/.config/acp-lsp/config.toml", "/h/.local/state/acp-lsp"},
		{env{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"}, "/c/acp-lsp/config.toml", "/s/acp-lsp"},
		{env{"HOME": "/h", "XDG_CONFIG_HOME": "relative", "XDG_STATE_HOME": "rel"}, "/h/.config/acp-lsp/config.toml", "/h/.local/state/acp-lsp"},
		{env{"HOME": "/h", "ACP_LSP_CONFIG": "/etc/x.toml"}, "/etc/x.toml", "/h/.local/state/acp-lsp"},
	}
	for _, tc := range tests {
		if got := UserFilePath(tc.env.get); got != tc.user {
			t.Errorf("UserFilePath(%v) = %q, want %q", tc.env, got, tc.user)
		}
		if got := StateDir(tc.env.get); got != tc.stat {
			t.Errorf("StateDir(%v) = %q, want %q", tc.env, got, tc.stat)
		}
	}
}

// TestPathsPerPlatform: the user file and the state folder on macOS (in
// ~/Library/Application Support, as os.UserConfigDir has it) and on
// Linux (XDG), with the same environment; an XDG variable set wins on
// both. Windows' rules need Windows' paths: TestPathsOnWindows, under Wine.
func TestPathsPerPlatform(t *testing.T) {
	for _, tc := range []struct {
		goos       string
		env        env
		user, stat string
	}{
		{"darwin", env{"HOME": "/h"}, "/h/Library/Application Support/acp-lsp/config.toml", "/h/Library/Application Support/acp-lsp"},
		{"darwin", env{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"}, "/c/acp-lsp/config.toml", "/s/acp-lsp"},
		{"linux", env{"HOME": "/h"}, "/h/.config/acp-lsp/config.toml", "/h/.local/state/acp-lsp"},
		{"freebsd", env{"HOME": "/h"}, "/h/.config/acp-lsp/config.toml", "/h/.local/state/acp-lsp"},
	} {
		if got := userFilePath(tc.goos, tc.env.get); got != tc.user {
			t.Errorf("%s: userFilePath(%v) = %q, want %q", tc.goos, tc.env, got, tc.user)
		}
		if got := stateDir(tc.goos, tc.env.get); got != tc.stat {
			t.Errorf("%s: stateDir(%v) = %q, want %q", tc.goos, tc.env, got, tc.stat)
		}
	}
}

func TestLocate(t *testing.T) {
	src := `# comment
top = 1
[a]
b = 1
"c.d" = 2
e.f = 3
s = """
g = 4
"""
[a.h]
i = { j = 1 }
[[arr]]
k = 1
`
	tests := []struct {
		path []string
		want int
	}{
		{[]string{"top"}, 2},
		{[]string{"a"}, 3},
		{[]string{"a", "b"}, 4},
		{[]string{"a", "c.d"}, 5},
		{[]string{"a", "e", "f"}, 6},
		{[]string{"a", "g"}, 3},
		{[]string{"a", "h"}, 10},
		{[]string{"a", "h", "i", "j"}, 11},
		{[]string{"arr", "k"}, 13},
		{[]string{"nowhere"}, 0},
	}
	ix := indexKeys(src)
	for _, tc := range tests {
		if got := ix.find(tc.path); got != tc.want {
			t.Errorf("find(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

func TestKeysHaveEnvNames(t *testing.T) {
	keys := Keys()
	if len(keys) < 25 {
		t.Fatalf("only %d keys", len(keys))
	}
	if got := EnvName("diagnostics.settle_window"); got != "ACP_LSP_DIAGNOSTICS_SETTLE_WINDOW" {
		t.Fatalf("EnvName = %q", got)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte("[diagnostics]\nsettle_window = \"1s\"\n"))
	f.Add([]byte("[servers.gopls]\ncommand = [\"gopls\"]\nsettings = { a = { b = [1, 2.5, true] } }\n"))
	f.Add([]byte("a.b.\"c\" = 1\n[[x]]\ny = 2000-01-01T00:00:00Z\n"))
	f.Add([]byte("s = '''\n[log]\n'''\n[log\n"))
	// The body stays in memory (no temp files) so that the fuzzer runs
	// fast; TestErrors and TestScripts cover reading files.
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := Defaults()
		l := &layer{where: "fuzz.toml", kind: SourceUser, trusted: len(data)%2 == 0, sources: map[string]Source{}}
		errs := l.decodeFile(data, &cfg)
		for _, err := range errs {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
		}
		if len(errs) == 0 {
			checkRoundTrip(t, &Loaded{Config: cfg, Sources: l.sources})
		}
		ix := indexKeys(string(data))
		for i := 0; i < len(data); i += 1 + len(data)/16 {
			ix.find([]string{string(data[i:min(i+3, len(data))])})
		}
	})
}

// checkRoundTrip checks that Format writes TOML that loads back to the same
// configuration.
func checkRoundTrip(t *testing.T, l *Loaded) {
	t.Helper()
	text := l.Format()
	got := Defaults()
	lay := &layer{where: "formatted", kind: SourceUser, trusted: true, sources: map[string]Source{}}
	if errs := lay.decodeFile([]byte(text), &got); len(errs) > 0 {
		t.Fatalf("formatted config does not load: %v\n%s", errors.Join(errs...), text)
	}
	if diff := cmp.Diff(l.Config, got, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("formatted config loads differently (-want +got):\n%s\n%s", diff, text)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	user := `
[log]
trace_file = "/tmp/a \"b\"\u0001\t.trace"
[servers."my.lang"]
command = ["x"]
settings = { f = 1.0, g = 2.5e10, n = nan, i = -inf, d = 1979-05-27, dt = 1979-05-27T07:32:00, t = 07:32:00, z = 1979-05-27T07:32:00Z, o = 1979-05-27T07:32:00-07:00, arr = [{ a = 1 }, { b = [] }], "we ird" = {} }
timeouts = { request = "1h30m" }
[servers.empty]
`
	f := newFixture(t, user, "")
	l, err := f.load(t)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, l)
}
