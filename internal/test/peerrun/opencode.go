// Package peerrun runs the real peers of acp-lsp's end-to-end tests: the
// opencode agent (`opencode acp`) driven by a scripted fake model, the acpx
// ACP client and the MCP Inspector. Everything runs in a private temporary
// HOME (and XDG folders), in its own process group, and is marked with an environment
// variable so a test can prove from /proc that nothing was left running.
package peerrun

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// MarkVar is the environment variable every process started through this
// package carries (with a per-Env random value); Leftovers finds them by it.
const MarkVar = "ACP_LSP_TEST_MARK"

// Env is an isolated environment for real peers: a temporary HOME with XDG
// folders, PATH with the pinned peers first, and a mark.
type Env struct {
	// Dir is the temporary root; HOME is Dir/home.
	Dir string
	// Mark is this environment's value of MarkVar.
	Mark string
	// Vars is the complete environment for child processes.
	Vars []string
}

// NewEnv makes an isolated environment under t.TempDir.
func NewEnv(t testing.TB) *Env {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	e := &Env{Dir: dir, Mark: rand.Text()}
	set := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		// Short and private, with every server host there stopped at the
		// test's end (proctest.RuntimeDir).
		"XDG_RUNTIME_DIR": proctest.RuntimeDir(t),
		MarkVar:           e.Mark,
		// Each acp-lsp process keeps its own servers, so a test sees only
		// the servers it started; the tests of the server host turn it on.
		"ACP_LSP_LOCAL_SHARED": "false",
		"NO_COLOR":             "1",
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"} {
		if err := os.MkdirAll(set[k], 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Go telemetry off in the sandbox: with its default (local), every go
	// command and gopls run there records counters under
	// XDG_CONFIG_HOME/go/telemetry, some from a detached child that can
	// still be writing when the test removes its folder.
	telemetry := filepath.Join(set["XDG_CONFIG_HOME"], "go", "telemetry")
	if err := os.MkdirAll(telemetry, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(telemetry, "mode"), []byte("off"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Go's caches live under HOME by default; keep the real ones so a
	// language server (gopls runs `go list`) in the sandbox starts warm.
	maps.Copy(set, goCaches())
	for _, kv := range peers.Env() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "OPENCODE") {
			continue
		}
		e.Vars = append(e.Vars, kv)
	}
	for k, v := range set {
		e.Vars = append(e.Vars, k+"="+v)
	}
	return e
}

// goCaches returns GOPATH, GOCACHE and GOMODCACHE as the go command of the
// calling process sees them.
func goCaches() map[string]string {
	out := map[string]string{}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	if gopath != "" {
		out["GOPATH"] = gopath
		out["GOMODCACHE"] = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if v := os.Getenv("GOMODCACHE"); v != "" {
		out["GOMODCACHE"] = v
	}
	if v := os.Getenv("GOCACHE"); v != "" {
		out["GOCACHE"] = v
	} else if dir, err := os.UserCacheDir(); err == nil {
		out["GOCACHE"] = filepath.Join(dir, "go-build")
	}
	return out
}

// Set adds or replaces variables (KEY=VALUE) in e.Vars.
func (e *Env) Set(kvs ...string) {
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range e.Vars {
			if strings.HasPrefix(old, k+"=") {
				e.Vars[i], replaced = kv, true
			}
		}
		if !replaced {
			e.Vars = append(e.Vars, kv)
		}
	}
}

// Get returns the value of a variable in e.Vars.
func (e *Env) Get(key string) string {
	for _, kv := range e.Vars {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// Home returns the environment's HOME.
func (e *Env) Home() string { return e.Get("HOME") }

// opencodeQuiet turns off what opencode would otherwise do on its own in a
// test: update itself, fetch model lists, download language servers, load
// plugins and other tools' configuration, watch files.
var opencodeQuiet = []string{
	"OPENCODE_DISABLE_AUTOUPDATE=1",
	"OPENCODE_DISABLE_MODELS_FETCH=1",
	"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
	"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
	"OPENCODE_DISABLE_CLAUDE_CODE=1",
	"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
	"OPENCODE_DISABLE_SHARE=1",
	"OPENCODE_DISABLE_PROJECT_CONFIG=1",
	"OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER=1",
}

// Opencode is a configured, not yet started, opencode: an environment whose
// OPENCODE_CONFIG points opencode at a fake model.
type Opencode struct {
	*Env
	// Bin is the absolute path of the pinned opencode.
	Bin string
	// Model is the fake model opencode talks to.
	Model *fakemodel.Server
}

// ModelName is the model id opencode is configured with; MCP tools reach
// the model as "<server>_<tool>".
const ModelName = "fake/fake-model"

// NewOpencode prepares an isolated opencode that uses model. It fails the
// test when opencode is not installed (run scripts/setup.sh).
func NewOpencode(t testing.TB, model *fakemodel.Server) *Opencode {
	t.Helper()
	bin := peers.Require(t, "opencode")
	e := NewEnv(t)
	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       ModelName,
		"small_model": ModelName,
		"lsp":         false,
		"formatter":   false,
		"provider": map[string]any{
			"fake": map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "Fake local LLM",
				"options": map[string]any{"baseURL": model.BaseURL(), "apiKey": "not-a-key"},
				"models":  map[string]any{"fake-model": map[string]any{"name": "fake-model", "tool_call": true}},
			},
		},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.Dir, "opencode.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.Set(opencodeQuiet...)
	e.Set("OPENCODE_CONFIG=" + path)
	return &Opencode{Env: e, Bin: bin, Model: model}
}

// Argv is the command that runs opencode as an ACP agent.
func (o *Opencode) Argv() []string { return []string{o.Bin, "acp"} }

// CommandLine is Argv as one shell-quoted string, for acpx --agent.
func (o *Opencode) CommandLine() string { return ShellJoin(o.Argv()) }

// ShellJoin quotes argv for a POSIX shell (what acpx --agent parses).
func ShellJoin(argv []string) string {
	var parts []string
	for _, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == ',' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
		}) < 0 {
			parts = append(parts, a)
			continue
		}
		parts = append(parts, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(parts, " ")
}

// Proc is a process seen in /proc.
type Proc struct {
	PID     int
	Cmdline string
	State   string
}

// Leftovers lists the live processes (zombies excluded) whose environment
// holds MarkVar=mark, other than the calling process.
func Leftovers(mark string) ([]Proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("leftovers: %w", err)
	}
	want := []byte(MarkVar + "=" + mark + "\x00")
	var out []Proc
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "environ"))
		if err != nil || !containsVar(env, want) {
			continue
		}
		state := proctest.State(pid)
		if state == "Z" || state == "X" || state == "" {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		out = append(out, Proc{PID: pid, Cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")), State: state})
	}
	return out, nil
}

func containsVar(env, kv []byte) bool {
	s := "\x00" + string(env)
	if !strings.HasSuffix(s, "\x00") {
		s += "\x00"
	}
	return strings.Contains(s, "\x00"+string(kv))
}

// RequireNoLeftovers fails the test if any process marked with e's mark is
// still running. Call it after the processes under test have been waited
// for.
func (e *Env) RequireNoLeftovers(t testing.TB) {
	t.Helper()
	procs, err := Leftovers(e.Mark)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		t.Errorf("process left running: pid %d (%s) %s", p.PID, p.State, p.Cmdline)
	}
}
