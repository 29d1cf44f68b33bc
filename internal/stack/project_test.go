package stack

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
)

// TestProjectSettingsPerSession: a session in a folder with its own
// project file gets that file's per-session settings (only the safe ones
// while it is untrusted, all once trusted), and the settings that belong
// to the process are named in a warning, once per content of the file.
func TestProjectSettingsPerSession(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	dir := func(name, project string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if project != "" {
			if err := os.WriteFile(filepath.Join(d, config.ProjectFileName), []byte(project), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	started := dir("started", "[tool]\npage_size = 5\n")
	bare := dir("bare", "")
	sub := dir("started/pkg", "")
	other := dir("other", "[tool]\npage_size = 7\nstructured_content = true\nallow_raw_request = true\n\n[local]\nwatch = false\n")
	trusted := dir("trusted", "[tool]\nallow_raw_request = true\nallow_mutating = false\n[diagnostics]\ninjection_budget = 0\n[local]\nwatch = false\n")
	broken := dir("broken", "[tool]\npage_size = \"many\"\n")
	link := filepath.Join(root, "link")
	if err := os.Symlink(started, link); err != nil {
		t.Fatal(err)
	}
	trustedFile := filepath.Join(trusted, config.ProjectFileName)
	data, err := config.ReadFile(trustedFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.NewTrustStore(state).Trust(trustedFile, data, time.Now()); err != nil {
		t.Fatal(err)
	}
	reload := projectLoader(root, state)
	var logs bytes.Buffer
	p := &projectSettings{workspace: started, reload: reload, log: slog.New(slog.NewTextHandler(&logs, nil)), told: map[string]string{}}
	base := component.Config{PageSize: 100, Budget: 12000, AllowMutating: map[string]bool{"request": false}}

	tests := []struct {
		name       string
		cwd        string
		pageSize   int
		raw        bool   // tool.allow_raw_request
		rename     bool   // tool.allow_mutating
		noInject   bool   // diagnostics.injection_budget = 0
		structured bool   // tool.structured_content
		log        string // in the log, or "" for nothing logged
	}{
		{"the folder acp-lsp started in", started, 100, false, true, false, false, ""},
		{"the same folder through a symlink", link, 100, false, true, false, false, ""},
		{"a subfolder of the start folder without a file: the project's settings", sub, 100, false, true, false, false, ""},
		{"another folder without a project file: none of the start folder's", bare, config.Defaults().Tool.PageSize, false, true, false, false, "does not apply outside that folder"},
		{"the same folder again: told already", bare, config.Defaults().Tool.PageSize, false, true, false, false, ""},
		{"another project, untrusted: its safe settings", other, 7, false, true, false, true, "local.watch"},
		{"the same project again: told already", other, 7, false, true, false, true, ""},
		{"a trusted project: all its session settings", trusted, config.Defaults().Tool.PageSize, true, false, true, false, "applies to its sessions (diagnostics.injection_budget, tool.allow_mutating, tool.allow_raw_request); its other settings (local.watch) are not applied"},
		{"a project file with errors: the settings acp-lsp started with", broken, 100, false, true, false, false, "does not load"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			got := p.forSession(tt.cwd, base)
			if got.PageSize != tt.pageSize {
				t.Errorf("page size %d, want %d", got.PageSize, tt.pageSize)
			}
			if raw := got.AllowMutating["request"]; raw != tt.raw {
				t.Errorf("raw request allowed %v, want %v", raw, tt.raw)
			}
			if rename, ok := got.AllowMutating["rename"]; (!ok || rename) != tt.rename {
				t.Errorf("rename allowed %v (set %v), want %v", rename, ok, tt.rename)
			}
			if got.NoContextInjection != tt.noInject {
				t.Errorf("context injection off %v, want %v", got.NoContextInjection, tt.noInject)
			}
			if got.StructuredContent != tt.structured {
				t.Errorf("structured content %v, want %v", got.StructuredContent, tt.structured)
			}
			switch {
			case tt.log == "" && logs.Len() > 0:
				t.Errorf("logged %s", logs.String())
			case tt.log != "" && !strings.Contains(logs.String(), tt.log):
				t.Errorf("log does not say %q: %s", tt.log, logs.String())
			case tt.log != "" && !strings.Contains(logs.String(), tt.cwd):
				t.Errorf("log does not name the session's folder: %s", logs.String())
			}
		})
	}
}

// TestProjectWaitBudget: a session's own diagnostics.wait_budget reaches
// its settings, and "0s" there means "do not wait" (component.NoWait), not
// the component's default; a project file that does not set it leaves the
// configured default.
func TestProjectWaitBudget(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	started := filepath.Join(root, "started")
	if err := os.MkdirAll(started, 0o755); err != nil {
		t.Fatal(err)
	}
	reload := projectLoader(root, state)
	p := &projectSettings{workspace: started, reload: reload, log: discard, told: map[string]string{}}
	base := component.Config{DiagnosticsWait: time.Minute}
	for _, tt := range []struct {
		name, project string
		want          time.Duration
	}{
		{"zero: no wait", "[diagnostics]\nwait_budget = \"0s\"\n", component.NoWait},
		{"a wait of its own", "[diagnostics]\nwait_budget = \"2s\"\n", 2 * time.Second},
		{"unset: the configured default", "[tool]\npage_size = 9\n", config.Defaults().Diagnostics.WaitBudget},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(root, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, config.ProjectFileName), []byte(tt.project), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := p.forSession(dir, base).DiagnosticsWait; got != tt.want {
				t.Errorf("diagnostics wait %v, want %v", got, tt.want)
			}
		})
	}
}

// projectLoader returns a configuration loader for a workspace with no
// user file (HOME and XDG_CONFIG_HOME are root) and the trust store in
// state.
func projectLoader(root, state string) func(ws string) (*config.Loaded, error) {
	getenv := func(k string) string {
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return root // no user file there
		}
		return ""
	}
	return func(ws string) (*config.Loaded, error) {
		return config.Load(config.Options{Workspace: ws, StateDir: state, Getenv: getenv})
	}
}
