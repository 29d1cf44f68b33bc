package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNamedUserFileMissing checks the documented rule "a missing default
// file is fine, a missing named file is an error" for each way of naming
// the user file.
func TestNamedUserFileMissing(t *testing.T) {
	tests := []struct {
		name     string
		env      env  // added to the fixture's environment; NOPE is replaced
		flagFile bool // name NOPE with -config
		wantErr  bool
	}{
		{name: "default file missing", wantErr: false},
		{name: "ACP_LSP_CONFIG names a missing file", env: env{"ACP_LSP_CONFIG": "NOPE"}, wantErr: true},
		{name: "-config names a missing file", flagFile: true, wantErr: true},
		{name: "empty ACP_LSP_CONFIG counts as unset", env: env{"ACP_LSP_CONFIG": ""}, wantErr: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", "")
			nope := filepath.Join(f.home, "nope.toml")
			for k, v := range tc.env {
				f.env[k] = strings.ReplaceAll(v, "NOPE", nope)
			}
			opts := Options{Workspace: f.workspace, Getenv: f.env.get}
			if tc.flagFile {
				opts.UserFile, opts.ExplicitUserFile = nope, true
			}
			l, err := Load(opts)
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error for a missing named user file; loaded %s (exists %v)", l.UserFile, l.UserFileExists)
			}
			if !strings.Contains(err.Error(), nope) {
				t.Fatalf("error does not name %s: %v", nope, err)
			}
		})
	}
}

// TestLSPServersDisabledNewServer checks that a server table CheckServers
// accepts also converts: a new server that is only disabled (no command,
// nothing to run) must not make LSPServers fail after the configuration
// was accepted.
func TestLSPServersDisabledNewServer(t *testing.T) {
	tests := []struct {
		name, user string
		wantOff    string // a server that must be present and disabled, "" for none
	}{
		{name: "new server only disabled", user: "[servers.off]\ndisabled = true\n"},
		{name: "new server with extensions, disabled", user: "[servers.off]\nextensions = [\"x\"]\ndisabled = true\n"},
		{name: "complete new server, disabled", user: "[servers.off]\ncommand = [\"off-ls\"]\nextensions = [\"x\"]\ndisabled = true\n", wantOff: "off"},
		{name: "built-in disabled", user: "[servers.pyright]\ndisabled = true\n", wantOff: "pyright"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.user, "")
			l, err := f.load(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.CheckServers(func(n string) bool { return n == "pyright" }); err != nil {
				t.Fatalf("CheckServers: %v", err)
			}
			servers, err := l.Config.LSPServers([]string{"PATH=/bin"})
			if err != nil {
				t.Fatalf("LSPServers rejects what CheckServers accepted: %v", err)
			}
			if tc.wantOff == "" {
				return
			}
			for _, s := range servers {
				if s.Name == tc.wantOff {
					if !s.Disabled {
						t.Fatalf("%s not disabled", s.Name)
					}
					return
				}
			}
			t.Fatalf("%s missing from %v", tc.wantOff, servers)
		})
	}
}

// TestProjectFileUnderHomeNamedInFull checks that a project file in the
// home folder (where projects usually are) is named by its full path in
// errors, warnings and sources, as docs/configuration.md shows: the path
// is what 'acp-lsp trust' prints and records, and what its "it sets:"
// listing matches.
func TestProjectFileUnderHomeNamedInFull(t *testing.T) {
	tests := []struct {
		name, project string
		want          func(l *Loaded, err error) string // the text naming the file
	}{
		{"error", "[tool]\npage_size = 0\n", func(_ *Loaded, err error) string { return err.Error() }},
		{"warning", "[tool]\nallow_raw_request = true\n", func(l *Loaded, _ error) string { return strings.Join(l.Warnings, "\n") }},
		{"source", "[tool]\npage_size = 3\n", func(l *Loaded, _ error) string { return l.Source("tool.page_size").String() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", "")
			f.workspace = filepath.Join(f.home, "src", "p")
			pf := filepath.Join(f.workspace, ProjectFileName)
			f.write(t, pf, tc.project)
			l, err := f.load(t)
			if got := tc.want(l, err); !strings.Contains(got, pf+":") && !strings.Contains(got, pf+" ") {
				t.Fatalf("project file not named in full (%s):\n%s", pf, got)
			}
		})
	}
}

// TestNoHomeReadsNothingFromTheWorkingFolder checks that without a usable
// home folder (HOME unset or relative, no XDG variables) the user file and
// the trust store are not looked up relative to the working folder, which
// is the project: a repository's own .config/acp-lsp/config.toml must not
// apply as the user's file, nor its .local/state/acp-lsp/trusted.json
// decide trust.
func TestNoHomeReadsNothingFromTheWorkingFolder(t *testing.T) {
	for _, home := range []string{"", "relative-home"} {
		t.Run("HOME="+home, func(t *testing.T) {
			ws := t.TempDir()
			t.Chdir(ws)
			t.Setenv("HOME", home) // os.UserHomeDir reads it too
			wsHome := ws
			if home != "" {
				wsHome = filepath.Join(ws, home)
			}
			f := &fixture{env: env{"HOME": home}}
			f.write(t, filepath.Join(wsHome, ".config", "acp-lsp", "config.toml"), "[tool]\nallow_raw_request = true\n")
			f.write(t, filepath.Join(ws, ProjectFileName), "[tool]\nallow_mutating = false\n")
			// The repository ships a trust store that trusts its own file.
			if err := trustOnDisk(NewTrustStore(filepath.Join(wsHome, ".local", "state", "acp-lsp")), filepath.Join(ws, ProjectFileName), time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			l, err := Load(Options{Workspace: ws, Getenv: f.env.get})
			if err != nil {
				t.Fatal(err)
			}
			if l.Config.Tool.AllowRawRequest || l.UserFileExists {
				t.Errorf("the working folder's .config/acp-lsp/config.toml was loaded as the user file %q", l.UserFile)
			}
			if l.ProjectTrust == Trusted || !l.Config.Tool.AllowMutating {
				t.Errorf("the working folder's own trust store trusted its project file")
			}
		})
	}
}

// TestErrorLines checks that errors name the line of the key in files the
// line index used to lose its place in: a UTF-8 byte order mark (written by
// some Windows editors), and triple quotes in a comment or a one-line string,
// which do not start a multi-line string.
func TestErrorLines(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"byte order mark", "\ufeff[tool]\nzzz = 1\n", `f.toml:2: unknown key "tool.zzz"`},
		{"delimiter in a comment", "[tool]\npage_size = 5 # not ''' a string\nzzz = 1\n", `f.toml:3: unknown key "tool.zzz"`},
		{"delimiter in a literal string", "[servers.a]\ncommand = ['sh', '\"\"\"']\nzzz = 1\n", `f.toml:3: unknown key "servers.a.zzz"`},
		{"delimiter in a basic string", "[servers.a]\ncommand = [\"sh\", \"\\\"\\\"\\\"\"]\nzzz = 1\n", `f.toml:3: unknown key "servers.a.zzz"`},
		{"multi-line string still skipped", "[servers.a]\nsettings = { s = \"\"\"\nzzz = 1\n\"\"\" }\nzzz = 1\n", `f.toml:5: unknown key "servers.a.zzz"`},
		{"one-line multi-line string", "[servers.a]\nlanguage_id = '''x'''\nzzz = 1\n", `f.toml:3: unknown key "servers.a.zzz"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate("f.toml", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error:\n got %v\nwant %s", err, tc.want)
			}
		})
	}
}
