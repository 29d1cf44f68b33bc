package demo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/acp-lsp/acp-lsp/internal/cli"
	"github.com/acp-lsp/acp-lsp/internal/demo"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// roleVar makes the test binary play a part in the chain: "acp-lsp" runs
// the real command line (so `acp-lsp -- acp-lsp agent` is this binary
// twice), "crash" exits 3 after the first line it reads, "deaf" ignores
// its client closing and SIGTERM.
const roleVar = "ACP_LSP_DEMO_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleVar) {
	case "acp-lsp":
		os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
	case "crash":
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(3)
	case "deaf":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "stall":
		stall()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// stall is an ACP agent that opens sessions but never answers a prompt;
// it exits when its input closes.
func stall() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`+"\n", m.ID)
		case "session/new":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}`+"\n", m.ID)
		}
	}
}

// cancelOn cancels when the text written to it contains marker: the test
// interrupts the demo at a known point without waiting on a clock.
type cancelOn struct {
	marker string
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.marker) {
		c.cancel()
	}
	return len(p), nil
}

// TestInterruptAndTimeout: a Ctrl-C (ctx cancelled) during a step and a
// step that never ends both stop the demo with an error saying which,
// and still end acp-lsp and remove the temporary workspace.
func TestInterruptAndTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cancel  bool
		want    string
	}{
		{"interrupt", time.Minute, true, "step 1 (status): interrupted: context canceled"},
		{"timeout", 300 * time.Millisecond, false, "step 1 (status): no answer within 300ms (-timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, exe := binDir(t, true)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out := &cancelOn{marker: "\nsession open after ", cancel: func() {}}
			if tc.cancel {
				out.cancel = cancel
			}
			rep, err := demo.Run(ctx, demo.Options{
				Chain:       []string{exe},
				Steps:       []demo.Step{{Title: "status", Line: `lsp {"action":"status"}`}},
				Out:         out,
				Env:         env("stall", dir),
				StepTimeout: tc.timeout,
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if !strings.Contains(rep.ChainExit, "exited cleanly") {
				t.Errorf("acp-lsp %s", rep.ChainExit)
			}
			if _, err := os.Stat(rep.Workspace); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temporary workspace %s not removed: %v", rep.Workspace, err)
			}
			proctest.NoLeftovers(t, dir, 5*time.Second)
		})
	}
}

// binDir returns a folder holding acp-lsp (this test binary) and, when
// withGopls, a link to the pinned gopls, so that every process the demo
// starts has the folder in its command line and leftovers can be found.
func binDir(t *testing.T, withGopls bool) (dir, exe string) {
	t.Helper()
	dir = t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(dir, "acp-lsp")
	if err := os.Symlink(self, exe); err != nil {
		t.Fatal(err)
	}
	if withGopls {
		if err := os.Symlink(peers.Require(t, "gopls"), filepath.Join(dir, "gopls")); err != nil {
			t.Fatal(err)
		}
	}
	return dir, exe
}

func env(role, path string) []string {
	var out []string
	for _, kv := range os.Environ() {
		// Windows spells it Path; the chain would see both.
		if k, _, _ := strings.Cut(kv, "="); !strings.EqualFold(k, "PATH") && k != roleVar {
			out = append(out, kv)
		}
	}
	return append(out, roleVar+"="+role, "PATH="+path)
}

// TestSampleDemo runs the demo as `acp-lsp demo` does, against the real
// gopls, and checks what the agent saw at each step, that the temporary
// workspace is gone and that no process is left.
func TestSampleDemo(t *testing.T) {
	dir, exe := binDir(t, true)
	var out, logs bytes.Buffer
	rep, err := demo.Run(context.Background(), demo.Options{
		Chain:  []string{exe, "-log-level", "warn", "--", exe, "agent", "-log-level", "warn"},
		Out:    &out,
		Stderr: &logs,
		Env:    env("acp-lsp", dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	checkSample(t, rep, err, &out, &logs)
	proctest.NoLeftovers(t, dir, 5*time.Second)
}

// checkSample checks a run of the sample as `acp-lsp demo` makes it: what
// the agent saw at each step from the real gopls, the temporary workspace
// gone, acp-lsp ended cleanly.
func checkSample(t *testing.T, rep *demo.Report, err error, out, logs *bytes.Buffer) {
	t.Helper()
	t.Logf("output:\n%s\nlogs:\n%s", out.String(), logs.String())
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"main.go:9:", "cannot use Area(big) (value of type float64) as string value in variable declaration", "gopls: fresh"},
		{"shapes.go:13:6", "func Area(c Circle) float64"},
		{"references: 4", "main.go:8:14", "main.go:8:27", "main.go:9:21"},
		{"func Area(c Circle) float64", "Area returns the area of the circle c."},
		{"preview, nothing written", "-func Area(c Circle) float64 {", "+func CircleArea(c Circle) float64 {", "+\tfmt.Println(CircleArea(small), CircleArea(big))"},
	}
	if len(rep.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(rep.Steps), len(want))
	}
	for i, w := range want {
		st := rep.Steps[i]
		if st.Status != "completed" {
			t.Errorf("step %d (%s): status %s", i+1, st.Title, st.Status)
		}
		for _, s := range w {
			if !strings.Contains(st.Text, s) {
				t.Errorf("step %d (%s): want %q in:\n%s", i+1, st.Title, s, st.Text)
			}
		}
	}
	if _, err := os.Stat(rep.Workspace); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary workspace %s not removed: %v", rep.Workspace, err)
	}
	if !strings.Contains(rep.ChainExit, "exited cleanly") {
		t.Errorf("acp-lsp %s", rep.ChainExit)
	}
}

// TestKeep keeps the copy, with go.mod restored and nothing else changed
// by the preview-only steps.
func TestKeep(t *testing.T) {
	dir, exe := binDir(t, true)
	rep, err := demo.Run(context.Background(), demo.Options{
		Chain: []string{exe, "-log-level", "error", "--", exe, "agent"},
		Keep:  true,
		Steps: []demo.Step{{Title: "hover", Line: `lsp {"action":"hover","file":"shapes.go","line":13,"symbol":"Area"}`}},
		Env:   env("acp-lsp", dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	if rep != nil && rep.Workspace != "" {
		defer os.RemoveAll(rep.Workspace)
	}
	if err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := demo.CopySample(fresh); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "main.go", "shapes.go"} {
		got, err := os.ReadFile(filepath.Join(rep.Workspace, name))
		if err != nil {
			t.Fatalf("kept workspace: %v", err)
		}
		orig, _ := os.ReadFile(filepath.Join(fresh, name))
		if !bytes.Equal(got, orig) {
			t.Errorf("%s changed by the demo:\n%s", name, got)
		}
	}
	proctest.NoLeftovers(t, dir, 5*time.Second)
}

// TestNoGopls names gopls and how to install it, before starting anything.
func TestNoGopls(t *testing.T) {
	dir, exe := binDir(t, false)
	_, err := demo.Run(context.Background(), demo.Options{
		Chain: []string{exe, "--", exe, "agent"},
		Env:   env("acp-lsp", dir),
	})
	if !errors.Is(err, demo.ErrNoGopls) {
		t.Fatalf("err = %v, want ErrNoGopls", err)
	}
	for _, w := range []string{"gopls", "not found on PATH", "go install golang.org/x/tools/gopls@v0.23.0", "scripts/demo.sh"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in %q", w, err)
		}
	}
}

// TestChainFaults: a chain that dies is reported with how it ended; one
// that ignores its client closing is killed as a group after the grace.
func TestChainFaults(t *testing.T) {
	for _, tc := range []struct {
		role    string
		wantErr string
		exit    string
	}{
		{"crash", "exit status 3", "exit status 3"},
		{"deaf", "open session", "nor within 500ms of SIGTERM, so its process group was killed"},
	} {
		t.Run(tc.role, func(t *testing.T) {
			dir, exe := binDir(t, false)
			ws := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if tc.role == "deaf" {
				// The deaf chain never answers initialize; end the wait.
				ctx, cancel = context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
			}
			rep, err := demo.Run(ctx, demo.Options{
				Chain:     []string{exe},
				Workspace: ws,
				Steps:     []demo.Step{{Title: "status", Line: `lsp {"action":"status"}`}},
				Env:       env(tc.role, dir),
				ExitGrace: 500 * time.Millisecond,
			})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if rep == nil {
				t.Fatal("no report")
			}
			if !strings.Contains(rep.ChainExit, tc.exit) {
				t.Errorf("chain exit %q, want %q", rep.ChainExit, tc.exit)
			}
			proctest.NoLeftovers(t, dir, 5*time.Second)
		})
	}
}

func TestCopySample(t *testing.T) {
	dir := t.TempDir()
	if err := demo.CopySample(dir); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module example.com/shapes\n") {
		t.Errorf("go.mod = %q, %v", mod, err)
	}
	for _, name := range []string{"main.go", "shapes.go"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		orig, err := os.ReadFile(filepath.Join("testdata", "workspace", name))
		if err != nil || !bytes.Equal(got, orig) {
			t.Errorf("%s differs from testdata/workspace/%s (%v)", name, name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("go.mod.txt copied as is")
	}
}

func TestSampleSteps(t *testing.T) {
	steps, err := demo.SampleSteps()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`lsp {"action":"diagnostics","file":"main.go"}`,
		`lsp {"action":"definition","file":"main.go","line":8,"symbol":"Area"}`,
		`lsp {"action":"references","file":"shapes.go","line":13,"symbol":"Area"}`,
		`lsp {"action":"hover","file":"main.go","line":8,"symbol":"Area"}`,
		`lsp {"action":"rename","file":"shapes.go","line":13,"symbol":"Area","new_name":"CircleArea"}`,
	}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, w := range want {
		if steps[i].Line != w {
			t.Errorf("step %d = %s, want %s", i+1, steps[i].Line, w)
		}
	}
}

func TestParseScript(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []demo.Step
		err          string
	}{
		{"titled", "# where\nlsp {\"action\":\"definition\"}\n\nlsp {\"action\":\"hover\"}\n", []demo.Step{
			{Title: "where", Line: `lsp {"action":"definition"}`},
			{Title: "hover", Line: `lsp {"action":"hover"}`},
		}, ""},
		{"no action", "x {}\n", []demo.Step{{Title: "tool call", Line: "x {}"}}, ""},
		{"crlf", "lsp {\"action\":\"status\"}\r\n", []demo.Step{{Title: "status", Line: `lsp {"action":"status"}`}}, ""},
		{"text line", "# t\nhello there\n", nil, `line 2: want a tool call`},
		{"bad json", "lsp {\"action\":\n", nil, `line 1: want a tool call`},
		{"empty", "\n# only a comment\n", nil, "no tool calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := demo.ParseScript(strings.NewReader(tc.script))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("step %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add("# t\nlsp {\"action\":\"hover\"}\n")
	f.Add("lsp {\n")
	f.Add("\r\n#\n")
	f.Fuzz(func(t *testing.T, script string) {
		steps, err := demo.ParseScript(strings.NewReader(script))
		if err != nil {
			return
		}
		if len(steps) == 0 {
			t.Fatal("no steps and no error")
		}
		for _, s := range steps {
			if s.Title == "" || !strings.Contains(s.Line, "{") {
				t.Fatalf("bad step %+v", s)
			}
		}
	})
}

// TestWorkspaceSteps picks each server once, by its most common extension,
// most files first, skipping hidden and dependency folders, and only
// servers on PATH (gopls and pyright here, not marksman for README.md)
// unless none is.
func TestWorkspaceSteps(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"gopls", "pyright-langserver"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "a.go", "cmd/b.go", "tool/c.py", "README.md", ".git/x.py", ".git/y.py", "node_modules/z.ts", "node_modules/w.ts"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	steps, err := demo.WorkspaceSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.Line)
	}
	want := []string{
		`lsp {"action":"diagnostics","file":"**/*.go"}`,
		`lsp {"action":"symbols","file":"a.go"}`,
		`lsp {"action":"diagnostics","file":"**/*.py"}`,
		`lsp {"action":"symbols","file":"tool/c.py"}`,
		`lsp {"action":"status"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// No server installed: the steps still name the languages found, so
	// that the demo says what to install for each.
	t.Setenv("PATH", t.TempDir())
	steps, err = demo.WorkspaceSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, s := range steps {
		got = append(got, s.Line)
	}
	want = []string{
		`lsp {"action":"diagnostics","file":"**/*.go"}`,
		`lsp {"action":"symbols","file":"a.go"}`,
		`lsp {"action":"diagnostics","file":"**/*.md"}`,
		`lsp {"action":"symbols","file":"README.md"}`,
		`lsp {"action":"diagnostics","file":"**/*.py"}`,
		`lsp {"action":"symbols","file":"tool/c.py"}`,
		`lsp {"action":"status"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("none installed: steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), nil, 0o644)
	if _, err := demo.WorkspaceSteps(empty); err == nil || !strings.Contains(err.Error(), "no file in "+empty+" has a built-in language server") {
		t.Errorf("err = %v", err)
	}
}

// TestWorkspaceDemo runs the -workspace mode over a folder in place: the
// folder stays, and the steps show its error and the running gopls.
func TestWorkspaceDemo(t *testing.T) {
	dir, exe := binDir(t, true)
	ws := t.TempDir()
	if err := demo.CopySample(ws); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := demo.Run(context.Background(), demo.Options{
		Chain:     []string{exe, "-log-level", "error", "--", exe, "agent"},
		Workspace: ws,
		Out:       &out,
		Env:       env("acp-lsp", dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, w := range []string{
		"[1/3] diagnostics: every .go file (gopls) (completed",
		"cannot use Area(big)",
		"[3/3] status: the language servers acp-lsp started (completed",
		"gopls (local) ready",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
	if _, err := os.Stat(filepath.Join(rep.Workspace, "main.go")); err != nil {
		t.Errorf("a given workspace must stay: %v", err)
	}
	proctest.NoLeftovers(t, dir, 5*time.Second)
}
