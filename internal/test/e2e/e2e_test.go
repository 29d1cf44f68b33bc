package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/fakemodel"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// bin is the acp-lsp binary built for the package; dir holds nothing else,
// so a process whose command line names dir is one of ours.
var bin struct{ dir, acplsp string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acplsp-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin.dir, bin.acplsp = dir, filepath.Join(dir, "acp-lsp")
	build := exec.Command("go", "build", "-o", bin.acplsp, "./cmd/acp-lsp")
	build.Dir = peers.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/acp-lsp: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// The workspace: calc.go declares Add and uses it in Twice; broken.go uses
// it with a type error gopls reports with wantDiagnostic.
const (
	goMod  = "module example.com/calc\n\ngo 1.22\n"
	calcGo = `package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a + b
}

// Twice doubles n.
func Twice(n int) int {
	return Add(n, n)
}
`
	brokenGo = `package calc

// Label names a number.
func Label(n int) string {
	var s string = Add(n, 1)
	return s
}
`
	wantDiagnostic = "cannot use Add(n, 1) (value of type int) as string value in variable declaration"
)

// workspace writes the Go module into a fresh folder (symlinks resolved,
// so paths compare equal to what gopls reports).
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": goMod, "calc.go": calcGo, "broken.go": brokenGo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// step is one lsp tool call and what its answer must contain.
type step struct {
	name string
	args string
	want []string
}

// session is the scripted session every mode runs: read actions, a rename
// preview, a rename the editor refuses (nothing may change), then a rename
// the editor allows (applied on disk). The editor's policy (policy) refuses
// exactly the Twice rename, by its permission title.
var session = []step{
	{"diagnostics", `{"action":"diagnostics","file":"broken.go"}`,
		[]string{"broken.go:5:17", wantDiagnostic, "gopls: fresh"}},
	{"definition", `{"action":"definition","file":"broken.go","line":5,"symbol":"Add"}`,
		[]string{"calc.go:4:6", "func Add(a, b int) int"}},
	{"references", `{"action":"references","file":"calc.go","line":4,"symbol":"Add"}`,
		[]string{"references: 3", "calc.go:4:6", "calc.go:10:9", "broken.go:5:17"}},
	{"hover", `{"action":"hover","file":"calc.go","line":4,"symbol":"Add"}`,
		[]string{"func Add(a int, b int) int", "Add returns the sum of a and b."}},
	{"symbols", `{"action":"symbols","file":"calc.go"}`,
		[]string{"calc.go:4:6 function Add", "calc.go:9:6 function Twice"}},
	{"rename preview", `{"action":"rename","file":"calc.go","line":4,"symbol":"Add","new_name":"Sum"}`,
		[]string{"rename Add to Sum (preview, nothing written", "-func Add(a, b int) int", "+func Sum(a, b int) int", "broken.go"}},
	{"rename denied", `{"action":"rename","file":"calc.go","line":9,"symbol":"Twice","new_name":"Double","apply":true}`,
		[]string{"the user declined; nothing was changed"}},
	{"rename apply", `{"action":"rename","file":"calc.go","line":4,"symbol":"Add","new_name":"Sum","apply":true}`,
		[]string{"rename Add to Sum: applied", "calc.go", "broken.go"}},
}

// policy is the editor's (acpx's) permission policy: the lsp tool's
// rename of Twice is refused, everything else allowed.
const policy = `{"autoDeny":["rename Twice to Double"],"defaultAction":"approve"}`

// userConfig is the acp-lsp configuration of every run, read from the
// sandbox's user file: a diagnostics wait generous enough for a loaded
// machine (tests check correctness, not speed), and the test mark passed
// to gopls so a leaked gopls would be found.
const userConfig = `[diagnostics]
wait_budget = "90s"

[timeouts]
request = "90s"

[servers.gopls]
env_allowlist = ["` + peerrun.MarkVar + `"]
`

func writeUserConfig(t *testing.T, env *peerrun.Env) {
	t.Helper()
	writeUserConfigText(t, env, userConfig)
}

// writeUserConfigText writes text as the sandbox's acp-lsp user file.
func writeUserConfigText(t *testing.T, env *peerrun.Env, text string) {
	t.Helper()
	// gopls's telemetry starts a helper in a session of its own (setsid),
	// which outlives gopls by design and no process-group kill reaches; in
	// the sandbox's fresh config folder it would run on every start. Off,
	// as `gopls telemetry off` records it, so leftovers stay meaningful.
	mode := filepath.Join(env.Get("XDG_CONFIG_HOME"), "go", "telemetry", "mode")
	if err := os.MkdirAll(filepath.Dir(mode), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mode, []byte("off"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(env.Get("XDG_CONFIG_HOME"), "acp-lsp", "config.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("E2E_TRACE_DIR"); d != "" {
		text = "[log]\ntrace_file = " + strconv.Quote(filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_")+".trace")) + "\n" + text
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// front is acp-lsp in one of its modes, in front of the agent command
// line; flags go to the acp-lsp process that runs the LSP stack.
type front struct {
	name string
	argv func(flags, agent string) string
}

var fronts = []front{
	{"wrapper", func(flags, agent string) string { return bin.acplsp + " " + flags + " -- " + agent }},
	{"conductor --lsp", func(flags, agent string) string {
		return bin.acplsp + " conductor " + flags + " --lsp -- " + agent
	}},
	{"proxy in conductor", func(flags, agent string) string {
		return bin.acplsp + " conductor --proxy '" + bin.acplsp + " proxy " + flags + "' -- " + agent
	}},
	{"conductor --lsp nested in conductor", func(flags, agent string) string {
		return bin.acplsp + " conductor --family _proxy --proxy '" + bin.acplsp + " conductor " + flags + " --lsp' -- " + agent
	}},
}

// acpx runs `acpx --agent AGENT --permission-policy POLICY --format json
// exec PROMPT` with the session in cwd and returns the transcript.
func acpx(ctx context.Context, t *testing.T, env *peerrun.Env, agent, cwd, policy, prompt string) *peerrun.Transcript {
	t.Helper()
	exe := peers.Require(t, "acpx")
	mcp := filepath.Join(env.Dir, "mcp.json")
	if err := os.WriteFile(mcp, []byte(`{"mcpServers":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe, "--agent", agent, "--permission-policy", policy,
		"--format", "json", "--mcp-config", mcp, "--cwd", cwd, "exec", prompt)
	cmd.Env, cmd.Dir = env.Vars, env.Dir
	reap.OwnGroup(cmd)
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	tr, err := peerrun.ParseTranscript(stdout.Bytes())
	if runErr != nil || err != nil {
		t.Fatalf("acpx exec: %v %v\nstderr:\n%s\nstdout:\n%s", runErr, err, stderr.String(), stdout.String())
	}
	if dir := os.Getenv("ACP_LSP_TRANSCRIPTS"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".ndjson"
		_ = os.WriteFile(filepath.Join(dir, name), stdout.Bytes(), 0o644)
	}
	return tr
}

// checkAnswers matches each step's answer against what it must contain.
func checkAnswers(t *testing.T, steps []step, answers []string) {
	t.Helper()
	if len(answers) != len(steps) {
		t.Errorf("got %d tool answers, want %d:\n%s", len(answers), len(steps), strings.Join(answers, "\n---\n"))
		return
	}
	for i, s := range steps {
		for _, w := range s.want {
			if !strings.Contains(answers[i], w) {
				t.Errorf("%s: want %q in the answer:\n%s", s.name, w, answers[i])
				break
			}
		}
	}
}

// checkPermission checks that the editor was asked exactly once about
// each rename that was to be applied, with the diff shown.
func checkPermission(t *testing.T, tr *peerrun.Transcript) {
	t.Helper()
	want := map[string]string{
		"rename Add to Sum":      "+func Sum(a, b int) int",
		"rename Twice to Double": "+func Double(n int) int",
	}
	asked := map[string]int{}
	for _, m := range tr.Requests("session/request_permission") {
		var p struct {
			ToolCall struct {
				Title   string          `json:"title"`
				Kind    string          `json:"kind"`
				Content json.RawMessage `json:"content"`
			} `json:"toolCall"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("request_permission params: %v: %s", err, m.Params)
		}
		diff, ok := want[p.ToolCall.Title]
		if !ok {
			continue // the agent's own permission requests
		}
		asked[p.ToolCall.Title]++
		var content []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(p.ToolCall.Content, &content)
		if p.ToolCall.Kind != "edit" || len(content) != 1 || !strings.Contains(content[0].Content.Text, diff) {
			t.Errorf("permission request %q: kind %q content %s, want an edit showing %q", p.ToolCall.Title, p.ToolCall.Kind, p.ToolCall.Content, diff)
		}
	}
	for title := range want {
		if asked[title] != 1 {
			t.Errorf("permission requests %q: %d, want 1", title, asked[title])
		}
	}
}

// checkDisk checks that the allowed rename (Add → Sum) is on disk and the
// refused one (Twice → Double) is not.
func checkDisk(t *testing.T, dir string) {
	t.Helper()
	wantCalc := strings.ReplaceAll(strings.ReplaceAll(calcGo, "Add(", "Sum("), "// Add ", "// Sum ")
	wantBroken := strings.ReplaceAll(brokenGo, "Add(", "Sum(")
	for name, want := range map[string]string{"calc.go": wantCalc, "broken.go": wantBroken} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s on disk:\n%s\nwant:\n%s", name, got, want)
		}
	}
}

func checkNoLeftovers(t *testing.T, env *peerrun.Env) {
	t.Helper()
	env.RequireNoLeftovers(t)
	proctest.NoLeftovers(t, bin.dir, 5*time.Second)
}

// runOpencode runs steps as one turn of opencode, its fake model calling
// the lsp tool once per step, and returns the tool results the model read
// and the transcript acpx saw.
func runOpencode(t *testing.T, f front, dir string, steps []step) ([]string, *peerrun.Transcript, *peerrun.Env) {
	t.Helper()
	var calls []fakemodel.Call
	for _, s := range steps {
		calls = append(calls, fakemodel.Call{Tool: `^acp-lsp_lsp$`, Arguments: s.args})
	}
	model, err := fakemodel.Start(fakemodel.Script{Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	oc := peerrun.NewOpencode(t, model)
	writeUserConfig(t, oc.Env)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tr := acpx(ctx, t, oc.Env, f.argv("", oc.CommandLine()), dir, policy, "use the lsp tool on the calc package")
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	last := reqs[len(reqs)-1]
	if !last.Offers("acp-lsp_lsp") {
		t.Fatalf("the model was not offered acp-lsp_lsp; tools: %v", last.Tools)
	}
	if tr.StopReason() != "end_turn" {
		t.Errorf("stop reason %q, want end_turn", tr.StopReason())
	}
	return last.ToolResults(), tr, oc.Env
}

// TestOpencodeSession: acpx → acp-lsp → opencode → fake model calling the
// lsp tool over a real gopls, in one turn: reads, a preview, a rename the
// editor refuses and one it allows. opencode takes about a minute per run
// on two cores (most of it starting), so it runs in wrapper mode and as a
// proxy process inside the conductor (the stack in an external process);
// TestScriptedAgentSession covers all three modes.
func TestOpencodeSession(t *testing.T) {
	for _, f := range []front{fronts[0], fronts[2]} {
		t.Run(f.name, func(t *testing.T) {
			dir := workspace(t)
			answers, tr, env := runOpencode(t, f, dir, session)
			checkAnswers(t, session, answers)
			checkPermission(t, tr)
			checkDisk(t, dir)
			checkNoLeftovers(t, env)
		})
	}
}

// runScripted runs steps as one prompt of acp-lsp's scripted agent and
// returns each call's answer as the agent reported it.
func runScripted(t *testing.T, f front, dir string, steps []step, flags string) ([]string, *peerrun.Transcript, *peerrun.Env) {
	t.Helper()
	env := peerrun.NewEnv(t)
	writeUserConfig(t, env)
	return runScriptedIn(t, env, f, dir, steps, flags)
}

// runScriptedIn is runScripted in a prepared environment (its user file
// written).
func runScriptedIn(t *testing.T, env *peerrun.Env, f front, dir string, steps []step, flags string) ([]string, *peerrun.Transcript, *peerrun.Env) {
	t.Helper()
	var prompt []string
	for _, s := range steps {
		prompt = append(prompt, "lsp "+s.args)
	}
	argv := f.argv(flags, bin.acplsp+" agent")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tr := acpx(ctx, t, env, argv, dir, policy, strings.Join(prompt, "\n"))
	calls, order := tr.ToolCalls()
	var answers []string
	for _, id := range order {
		c := calls[id]
		answers = append(answers, c.Text()+string(c.RawOutput))
	}
	if tr.StopReason() != "end_turn" {
		t.Errorf("stop reason %q, want end_turn", tr.StopReason())
	}
	return answers, tr, env
}

// TestScriptedAgentSession: the same session with acp-lsp's built-in
// scripted agent instead of opencode, in every mode (and the stack inside a
// conductor that itself runs as a proxy, in the _proxy family). Some runs
// reach the tool over stdio (the mcp-bridge subcommand), the others over
// HTTP; the trace of the acp-lsp process running the stack shows which
// entry the agent was given.
func TestScriptedAgentSession(t *testing.T) {
	tests := []struct {
		front     front
		transport string // "stdio" or "http"
	}{
		{fronts[0], "stdio"},
		{fronts[1], "http"},
		{fronts[2], "http"},
		{fronts[3], "stdio"},
	}
	for _, tt := range tests {
		t.Run(tt.front.name, func(t *testing.T) {
			dir := workspace(t)
			trace := filepath.Join(t.TempDir(), "trace.ndjson")
			flags := "-mcp-transport " + tt.transport + " -trace-file " + trace
			answers, tr, env := runScripted(t, tt.front, dir, session, flags)
			checkAnswers(t, session, answers)
			checkPermission(t, tr)
			checkDisk(t, dir)
			checkNoLeftovers(t, env)
			checkInjected(t, trace, tt.transport)
		})
	}
}

// checkInjected reads acp-lsp's trace and checks the session/new the agent
// received carries the lsp tool's MCP server over transport.
func checkInjected(t *testing.T, trace, transport string) {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Hop string `json:"hop"`
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					MCPServers []struct {
						Name    string   `json:"name"`
						Type    string   `json:"type"`
						Command string   `json:"command"`
						Args    []string `json:"args"`
						URL     string   `json:"url"`
					} `json:"mcpServers"`
				} `json:"params"`
			} `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg.Method != "session/new" || rec.Hop != "component" || rec.Dir != "to-agent" {
			continue
		}
		for _, s := range rec.Msg.Params.MCPServers {
			if s.Name != "acp-lsp" {
				continue
			}
			switch {
			case transport == "stdio" && s.Command == bin.acplsp && len(s.Args) > 0 && s.Args[0] == "mcp-bridge":
				return
			case transport == "http" && s.Type == "http" && strings.HasPrefix(s.URL, "http://127.0.0.1:"):
				return
			}
			t.Fatalf("acp-lsp's MCP entry is %+v, want %s", s, transport)
		}
		t.Fatalf("session/new to the agent has no acp-lsp entry: %s", line)
	}
	t.Fatalf("no session/new to the agent in the trace:\n%s", b)
}

// TestConfigurationReachesTheTool: tool.allow_mutating=false, from a flag
// or from a trusted project file, refuses the rename before the editor is
// asked; the same project file untrusted is ignored for that key, so the
// rename is asked for and applied.
func TestConfigurationReachesTheTool(t *testing.T) {
	apply := `{"action":"rename","file":"calc.go","line":4,"symbol":"Add","new_name":"Sum","apply":true}`
	refused := []step{{"rename refused by configuration", apply,
		[]string{"rename is turned off in acp-lsp's configuration (allow_mutating)"}}}
	applied := []step{{"rename applied", apply, []string{"rename Add to Sum: applied"}}}
	const project = "[tool]\nallow_mutating = false\n"
	tests := []struct {
		name    string
		flags   string
		project bool
		trust   bool
		steps   []step
	}{
		{name: "flag", flags: "-set tool.allow_mutating=false", steps: refused},
		{name: "trusted project file", project: true, trust: true, steps: refused},
		{name: "untrusted project file", project: true, steps: applied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := workspace(t)
			env := peerrun.NewEnv(t)
			writeUserConfig(t, env)
			if tt.project {
				if err := os.WriteFile(filepath.Join(dir, ".acp-lsp.toml"), []byte(project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.trust {
				cmd := exec.Command(bin.acplsp, "trust", dir)
				cmd.Env = env.Vars
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("acp-lsp trust: %v\n%s", err, out)
				}
			}
			d := startDirect(t, env, dir, strings.Fields(tt.flags)...)
			checkAnswers(t, tt.steps, []string{d.turn("lsp " + tt.steps[0].args)})
			d.stop()
			asks := len(d.client.Permissions())
			renamed, err := os.ReadFile(filepath.Join(dir, "calc.go"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.steps[0].name == "rename applied" {
				if asks != 1 || !strings.Contains(string(renamed), "func Sum(") {
					t.Errorf("permission requests %d, calc.go:\n%s\nwant one request and the rename on disk", asks, renamed)
				}
			} else if asks != 0 || string(renamed) != calcGo {
				t.Errorf("permission requests %d, calc.go:\n%s\nwant none and calc.go unchanged", asks, renamed)
			}
			checkNoLeftovers(t, env)
		})
	}
}

// TestEditorGoneEndsEverything: with gopls and the agent running, the
// editor closing its pipe, or acp-lsp getting SIGTERM, ends acp-lsp, the
// agent and the language server, leaving nothing behind. Healthy peers
// end within a second or two; the bound is generous (15s) because this
// checks that everything ends, not how fast a loaded machine is.
func TestEditorGoneEndsEverything(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			env := peerrun.NewEnv(t)
			writeUserConfig(t, env)
			dir := workspace(t)
			p := peerrun.Start(t, env, dir, bin.acplsp, "--", bin.acplsp, "agent")
			client := peerrun.NewClient()
			conn := p.Connect(client)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
				t.Fatalf("initialize: %v\n%s", err, p.Stderr())
			}
			sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
			if err != nil {
				t.Fatalf("session/new: %v\n%s", err, p.Stderr())
			}
			res, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId,
				Prompt: []acp.ContentBlock{acp.TextBlock("lsp " + session[0].args)}})
			if err != nil || res.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %v %v\n%s", res.StopReason, err, p.Stderr())
			}
			var text strings.Builder
			for _, u := range client.Updates() {
				if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
					text.WriteString(c.Content.Text.Text)
				}
			}
			if !strings.Contains(text.String(), wantDiagnostic) {
				t.Fatalf("the agent did not see gopls's diagnostic:\n%s", text.String())
			}
			running, err := peerrun.Leftovers(env.Mark)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range running {
				names = append(names, r.Cmdline)
			}
			all := strings.Join(names, "\n")
			if !strings.Contains(all, "gopls") || !strings.Contains(all, bin.acplsp+" agent") {
				t.Fatalf("before the editor leaves, want gopls and the agent running (marked), got:\n%s", all)
			}
			if how == "SIGTERM" {
				if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			} else if err := p.Stdin.Close(); err != nil {
				t.Fatal(err)
			}
			// A bound, not a wait: the exit is awaited on the channel.
			select {
			case <-p.Done():
			case <-time.After(15 * time.Second):
				t.Fatalf("acp-lsp still running 15s after the editor left\n%s", p.Stderr())
			}
			env.RequireNoLeftovers(t)
		})
	}
}

// lspEditor is an ACP editor that offers `_lsp/hover` in initialize and
// answers it itself; everything else is peerrun.Client's.
type lspEditor struct {
	*peerrun.Client
	mu    sync.Mutex
	asked []string
}

const editorHover = "EDITOR HOVER: Add, as the editor's own language server sees it"

// HandleExtensionMethod answers `_lsp/hover` (either spelling) with the
// editor's hover and records every extension request.
func (e *lspEditor) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	e.mu.Lock()
	e.asked = append(e.asked, method)
	e.mu.Unlock()
	if method != "_lsp/hover" && method != "lsp/hover" {
		return nil, acp.NewMethodNotFound(method)
	}
	return map[string]any{"contents": editorHover}, nil
}

func (e *lspEditor) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

// TestEditorLanguageServer: an editor offering `_lsp/hover` answers the
// agent's hover through the chain; with editor.use_lsp=false (a flag) gopls
// answers and the editor is not asked.
func TestEditorLanguageServer(t *testing.T) {
	for _, tt := range []struct {
		name       string
		flags      []string
		want       string
		editorAsks bool
	}{
		{name: "editor answers", want: editorHover, editorAsks: true},
		{name: "editor.use_lsp=false", flags: []string{"-set", "editor.use_lsp=false"}, want: "func Add(a int, b int) int"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := peerrun.NewEnv(t)
			writeUserConfig(t, env)
			dir := workspace(t)
			argv := append(append([]string{bin.acplsp}, tt.flags...), "--", bin.acplsp, "agent")
			p := peerrun.Start(t, env, dir, argv...)
			editor := &lspEditor{Client: peerrun.NewClient()}
			conn := p.Connect(editor)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			caps := acp.ClientCapabilities{Meta: map[string]any{"lsp": map[string]any{"methods": []string{"_lsp/hover"}}}}
			if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
				t.Fatalf("initialize: %v\n%s", err, p.Stderr())
			}
			sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
			if err != nil {
				t.Fatalf("session/new: %v\n%s", err, p.Stderr())
			}
			hover := `lsp {"action":"hover","file":"calc.go","line":4,"symbol":"Add"}`
			if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(hover)}}); err != nil {
				t.Fatalf("prompt: %v\n%s", err, p.Stderr())
			}
			var text strings.Builder
			for _, u := range editor.Updates() {
				if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
					text.WriteString(c.Content.Text.Text)
				}
			}
			if !strings.Contains(text.String(), tt.want) {
				t.Errorf("hover answer does not contain %q:\n%s", tt.want, text.String())
			}
			asked := slices.Contains(editor.requests(), "_lsp/hover")
			if asked != tt.editorAsks {
				t.Errorf("editor asked for _lsp/hover: %v, want %v (extension requests: %v)", asked, tt.editorAsks, editor.requests())
			}
			if err := p.Stop(); err != nil {
				t.Error(err)
			}
			env.RequireNoLeftovers(t)
		})
	}
}

// TestSessionProjectFile: acp-lsp started in one folder, with a session in
// another that has its own trusted .acp-lsp.toml, applies that file's
// per-session settings to the session (here: rename turned off) and says
// on stderr which of its settings apply and which cannot (they belong to
// the whole process) instead of ignoring the file silently.
func TestSessionProjectFile(t *testing.T) {
	env := peerrun.NewEnv(t)
	writeUserConfig(t, env)
	dir := workspace(t)
	project := filepath.Join(dir, ".acp-lsp.toml")
	if err := os.WriteFile(project, []byte("[tool]\nallow_mutating = false\n\n[local]\nwatch = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin.acplsp, "trust", dir)
	cmd.Env = env.Vars
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("acp-lsp trust: %v\n%s", err, out)
	}
	d := startDirectAt(t, env, env.Dir, dir)
	steps := []step{{"rename refused by the session's project file", `{"action":"rename","file":"calc.go","line":4,"symbol":"Add","new_name":"Sum","apply":true}`,
		[]string{"rename is turned off in acp-lsp's configuration (allow_mutating)"}}}
	checkAnswers(t, steps, []string{d.turn("lsp " + steps[0].args)})
	d.stop()
	for _, want := range []string{project, "applies to its sessions (tool.allow_mutating)", "(local.watch) are not applied"} {
		if !strings.Contains(d.p.Stderr(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, d.p.Stderr())
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "calc.go")); err != nil || string(b) != calcGo || len(d.client.Permissions()) != 0 {
		t.Errorf("permission requests %d, calc.go (%v):\n%s\nwant none and calc.go unchanged", len(d.client.Permissions()), err, b)
	}
	checkNoLeftovers(t, env)
}

// TestServerTablesReachLSP: a [servers.gopls] table in the user file
// replaces gopls's command; the missing program is named in the tool's
// answer with the built-in install hint.
func TestServerTablesReachLSP(t *testing.T) {
	env := peerrun.NewEnv(t)
	writeUserConfigText(t, env, userConfig+`command = ["no-such-gopls-binary"]
`)
	dir := workspace(t)
	steps := []step{
		{"missing gopls", `{"action":"hover","file":"calc.go","line":4,"symbol":"Add"}`,
			[]string{`"no-such-gopls-binary" not found`, "go install golang.org/x/tools/gopls"}},
	}
	d := startDirect(t, env, dir)
	checkAnswers(t, steps, []string{d.turn("lsp " + steps[0].args)})
	d.stop()
	checkNoLeftovers(t, env)
}

// TestContextInjection: after the agent renamed through the tool (files it
// changed), its next prompt carries the new error gopls reports in them,
// once; the turn after that carries nothing. The scripted agent echoes
// every text block it receives, so the transcript shows what it was given.
func TestContextInjection(t *testing.T) {
	env := peerrun.NewEnv(t)
	writeUserConfig(t, env)
	dir := workspace(t)
	d := startDirect(t, env, dir)
	turn := d.turn
	const newError = "cannot use Sum(n, 1) (value of type int) as string value in variable declaration"
	// The rename changes broken.go; the diagnostics call waits until
	// gopls has published for its new content.
	first := turn(strings.Join([]string{
		"lsp " + session[len(session)-1].args,
		`lsp {"action":"diagnostics","file":"broken.go"}`,
	}, "\n"))
	if !strings.Contains(first, "rename Add to Sum: applied") || !strings.Contains(first, newError) {
		t.Fatalf("first turn: want the rename applied and the new error:\n%s", first)
	}
	second := turn("second turn")
	if !strings.Contains(second, newError) || !strings.Contains(second, "broken.go") {
		t.Errorf("second turn: the prompt did not carry the new error in broken.go:\n%s", second)
	}
	third := turn("third turn")
	if strings.Contains(third, "cannot use") {
		t.Errorf("third turn: nothing changed, yet the prompt carried errors again:\n%s", third)
	}
	d.stop()
	env.RequireNoLeftovers(t)
}

// direct is `acp-lsp [flags] -- acp-lsp agent` driven by the Go SDK client
// (peerrun.Client: records updates, allows permissions): much quicker
// to start than acpx, for checks that need no third-party client.
type direct struct {
	t      *testing.T
	p      *peerrun.Process
	client *peerrun.Client
	conn   *acp.ClientSideConnection
	sess   acp.SessionId
	ctx    context.Context
}

// startDirect starts acp-lsp in dir with env and opens a session in dir.
func startDirect(t *testing.T, env *peerrun.Env, dir string, flags ...string) *direct {
	t.Helper()
	return startDirectAt(t, env, dir, dir, flags...)
}

// startDirectAt starts acp-lsp in the folder start and opens a session in
// dir.
func startDirectAt(t *testing.T, env *peerrun.Env, start, dir string, flags ...string) *direct {
	t.Helper()
	argv := append(append([]string{bin.acplsp}, flags...), "--", bin.acplsp, "agent")
	d := &direct{t: t, p: peerrun.Start(t, env, start, argv...), client: peerrun.NewClient()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	d.ctx = ctx
	d.conn = d.p.Connect(d.client)
	if _, err := d.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, d.p.Stderr())
	}
	sess, err := d.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, d.p.Stderr())
	}
	d.sess = sess.SessionId
	return d
}

// turn sends one prompt and returns the agent's text of that turn.
func (d *direct) turn(prompt string) string {
	d.t.Helper()
	before := len(d.client.Updates())
	res, err := d.conn.Prompt(d.ctx, acp.PromptRequest{SessionId: d.sess, Prompt: []acp.ContentBlock{acp.TextBlock(prompt)}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		d.t.Fatalf("prompt %q: %v %v\n%s", prompt, res.StopReason, err, d.p.Stderr())
	}
	var text strings.Builder
	for _, u := range d.client.Updates()[before:] {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			text.WriteString(c.Content.Text.Text)
		}
	}
	return text.String()
}

// stop closes the editor's side and waits for acp-lsp to exit.
func (d *direct) stop() {
	d.t.Helper()
	if err := d.p.Stop(); err != nil {
		d.t.Error(err)
	}
}
