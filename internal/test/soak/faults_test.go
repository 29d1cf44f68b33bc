package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/procfs"
	"github.com/acp-lsp/acp-lsp/internal/test/bench"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// wait bounds every wait on a real peer; the tests are about what happens,
// never about how fast.
const wait = 3 * time.Minute

// toolCall returns the tool's text and whether it was an error answer.
func toolCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp", Arguments: args})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// startStack runs the in-process chain over root with one session.
func startStack(t *testing.T, root string) (*bench.Stack, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	allow := func(context.Context, string, string, string) (bool, error) { return true, nil }
	st, err := bench.StartStack(ctx, lsp.Options{Env: peers.Env()}, component.Config{AskPermission: allow, DiagnosticsWait: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	cs, err := st.NewSession(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return st, cs
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func tempRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestFaultFileDeletedAfterSync: a file the server has open (synced by an
// earlier call) is deleted before the next request about it. The tool must
// say the file is gone, not answer from the server's stale copy; the
// workspace keeps working.
func TestFaultFileDeletedAfterSync(t *testing.T) {
	peers.Require(t, "gopls")
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/del\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { println(twice(2)) }\n",
		"gone.go": "package main\n\n// twice doubles x.\nfunc twice(x int) int { return 2 * x }\n",
	})
	_, cs := startStack(t, root)
	hover := map[string]any{"action": "hover", "file": "gone.go", "line": 4, "symbol": "twice"}
	if text, isErr := toolCall(t, cs, hover); isErr || !strings.Contains(text, "func twice(x int) int") {
		t.Fatalf("hover before delete: %v %s", isErr, text)
	}
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		hover,
		{"action": "diagnostics", "file": "gone.go"},
		{"action": "symbols", "file": "gone.go"},
	} {
		text, isErr := toolCall(t, cs, args)
		if !isErr || !strings.Contains(text, "gone.go") || !strings.Contains(strings.ToLower(text), "no such file") {
			t.Errorf("%v after delete: error=%v, want a clear error naming the missing file:\n%s", args, isErr, text)
		}
	}
	// The rest of the workspace still answers.
	if text, isErr := toolCall(t, cs, map[string]any{"action": "hover", "file": "main.go", "line": 3, "symbol": "main"}); isErr || !strings.Contains(text, "func main()") {
		t.Errorf("hover in main.go after delete: error=%v:\n%s", isErr, text)
	}
}

// binary is the acp-lsp binary built once for the package's tests (a link
// costs seconds on a loaded machine); TestMain removes it.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func acpLSPBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "acp-lsp-soak-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "acp-lsp")
		cmd := exec.Command("go", "build", "-o", binary.path, "./cmd/acp-lsp")
		cmd.Dir = peers.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build ./cmd/acp-lsp: %w\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// acpProcess is the real acp-lsp binary in wrapper mode (`acp-lsp --
// acp-lsp agent`, the scripted agent) driven over its stdio.
type acpProcess struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuf
	// done is closed when the process was waited for; err is then its
	// exit.
	done chan struct{}
	err  error
}

func startACPLSP(t *testing.T, env *peerrun.Env, exe, root string) *acpProcess {
	t.Helper()
	cmd := exec.Command(exe, "--", exe, "agent")
	cmd.Dir = root
	cmd.Env = env.Vars
	reap.OwnGroup(cmd)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	p := &acpProcess{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &lockedBuf{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = reap.KillGroup(cmd.Process)
		select {
		case <-p.done:
		case <-time.After(wait):
		}
	})
	return p
}

// lockedBuf collects a child's stderr while the test reads it.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuf) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (p *acpProcess) send(t *testing.T, id int, method string, params any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("send %s: %v", method, err)
	}
}

type acpMsg struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Params json.RawMessage `json:"params"`
}

// response reads until the response to id; it answers requests from the
// agent side (permission) with allow, and collects the text of updates.
func (p *acpProcess) response(t *testing.T, id int) (acpMsg, string) {
	t.Helper()
	var text strings.Builder
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		for {
			line, err := p.out.ReadBytes('\n')
			if err != nil {
				errc <- err
				return
			}
			lines <- line
			if m := (acpMsg{}); json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id && m.Method == "" {
				return
			}
		}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case line := <-lines:
			var m acpMsg
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if m.Method == "session/update" {
				text.Write(m.Params)
			}
			if m.ID != nil && *m.ID == id && m.Method == "" {
				return m, text.String()
			}
		case err := <-errc:
			t.Fatalf("reading acp-lsp's output before response %d: %v\nstderr:\n%s", id, err, p.stderr.String())
		case <-timer.C:
			t.Fatalf("no response %d within %s", id, wait)
		}
	}
}

// session starts a session and runs one lsp hover through the scripted
// agent, so gopls is running under acp-lsp when the fault strikes.
func (p *acpProcess) session(t *testing.T, root string) string {
	t.Helper()
	p.send(t, 1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if m, _ := p.response(t, 1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	p.send(t, 2, "session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	m, _ := p.response(t, 2)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		t.Fatalf("session/new: %+v %s", m.Error, m.Result)
	}
	p.send(t, 3, "session/prompt", map[string]any{"sessionId": r.SessionID, "prompt": []any{map[string]any{"type": "text",
		"text": `lsp {"action":"hover","file":"main.go","line":3,"symbol":"add"}`}}})
	m, updates := p.response(t, 3)
	if m.Error != nil || !strings.Contains(updates, "func add(a int, b int) int") {
		t.Fatalf("prompt with an lsp hover: %+v %s\nupdates: %s\nstderr:\n%s", m.Error, m.Result, updates, p.stderr.String())
	}
	return r.SessionID
}

// descendants lists the pids of processes whose parent chain reaches pid,
// each with its command line.
func descendants(pid int) map[int]string {
	out := map[int]string{}
	procs, _ := procfs.Table()
	for _, p := range procfs.Descendants(procs, pid) {
		out[p.Pid] = strings.Join(procfs.Cmdline(p.Pid), " ")
	}
	return out
}

func goWorkspace(t *testing.T) string {
	root := tempRoot(t)
	writeFiles(t, root, map[string]string{
		"go.mod":  "module example.com/crash\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n",
	})
	return root
}

// TestFaultAgentCrash: the agent dies (SIGKILL) while acp-lsp runs gopls
// for it. acp-lsp must answer the editor's pending request with an error
// naming the agent's end, exit, and leave no process behind (no gopls, no
// MCP bridge). Forwarding-only crash cases are in conductor's TestFaults.
func TestFaultAgentCrash(t *testing.T) {
	peers.Require(t, "gopls")
	exe := acpLSPBinary(t)
	env := peerrun.NewEnv(t)
	root := goWorkspace(t)
	p := startACPLSP(t, env, exe, root)
	sid := p.session(t, root)
	var agent, gopls int
	for pid, cmd := range descendants(p.cmd.Process.Pid) {
		switch {
		case strings.HasPrefix(cmd, "acp-lsp-guard "):
			// The guard keeping the process's tree (internal/reap): its
			// command line ends as the process's does. Killed, it takes
			// the agent with it a moment later, time enough for the
			// agent to answer one more prompt.
		case strings.HasSuffix(strings.TrimSpace(cmd), " agent"):
			agent = pid
		case strings.Contains(cmd, "gopls"):
			gopls = pid
		}
	}
	if agent == 0 || gopls == 0 {
		t.Fatalf("agent pid %d, gopls pid %d among %v", agent, gopls, descendants(p.cmd.Process.Pid))
	}
	// A prompt in flight when the agent dies.
	p.send(t, 4, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "hello"}}})
	if proc, err := os.FindProcess(agent); err != nil {
		t.Fatal(err)
	} else if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	m, _ := p.response(t, 4)
	if m.Error == nil || !strings.Contains(strings.ToLower(m.Error.Message), "agent") {
		// The prompt may have finished before the kill landed; a
		// request after the kill must fail.
		p.send(t, 5, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "again"}}})
		m, _ = p.response(t, 5)
		if m.Error == nil || !strings.Contains(strings.ToLower(m.Error.Message), "agent") {
			t.Fatalf("request after the agent died: %+v %s", m.Error, m.Result)
		}
	}
	p.in.Close()
	select {
	case <-p.done:
		t.Logf("acp-lsp exited: %v; stderr: %s", p.err, lastLines(p.stderr.String(), 3))
	case <-time.After(wait):
		t.Fatalf("acp-lsp did not exit after its agent died\nstderr:\n%s", p.stderr.String())
	}
	env.RequireNoLeftovers(t)
}

// TestFaultEditorGone: the editor closes acp-lsp's stdin and stops reading
// while gopls runs. acp-lsp must end the agent, gopls and the MCP bridge,
// and exit 0 (the editor leaving is not an error).
func TestFaultEditorGone(t *testing.T) {
	peers.Require(t, "gopls")
	exe := acpLSPBinary(t)
	env := peerrun.NewEnv(t)
	root := goWorkspace(t)
	start := time.Now()
	p := startACPLSP(t, env, exe, root)
	p.session(t, root)
	t.Logf("session and hover after %s", time.Since(start))
	if len(descendants(p.cmd.Process.Pid)) < 2 {
		t.Fatalf("expected agent and gopls under acp-lsp: %v", descendants(p.cmd.Process.Pid))
	}
	p.in.Close()
	select {
	case <-p.done:
		t.Logf("exit after %s", time.Since(start))
		if p.err != nil {
			t.Errorf("acp-lsp exit after the editor left: %v\nstderr:\n%s", p.err, p.stderr.String())
		}
	case <-time.After(wait):
		t.Fatalf("acp-lsp did not exit after the editor left\nstderr:\n%s", p.stderr.String())
	}
	env.RequireNoLeftovers(t)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
