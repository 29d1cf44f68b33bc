package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/demo"
	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// docBlocks returns the fenced blocks of a markdown file with the given
// info string ("" for plain fences).
func docBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur []string
	in, match := false, false
	for _, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, match, cur = true, strings.TrimPrefix(trimmed, "```") == lang, nil
		case in && trimmed == "```":
			if match {
				blocks = append(blocks, strings.Join(cur, "\n"))
			}
			in = false
		case in:
			cur = append(cur, l)
		}
	}
	return blocks
}

// acpLSPBin returns a folder with this test binary as acp-lsp (TestMain
// runs the CLI when called by that name), for commands that look acp-lsp
// up on PATH the way an editor does.
func acpLSPBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acp-lsp"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type agentServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// TestEditorDocs checks the editor settings in docs/editors.md and
// README.md: every JSON block is valid JSON (strict, so it is valid JSONC
// for Zed too), and every agent_servers entry runs: with the scripted
// agent it answers initialize through acp-lsp; with another agent it
// starts, and ends with exit 0 when the editor closes the connection.
func TestEditorDocs(t *testing.T) {
	root := peers.ModuleRoot()
	bin := acpLSPBin(t)
	path := strings.Join(append([]string{bin}, peers.SearchPath()...), string(os.PathListSeparator))
	entries := 0
	for _, file := range []string{"docs/editors.md", "README.md"} {
		for i, block := range docBlocks(t, filepath.Join(root, file), "json") {
			var settings struct {
				AgentServers map[string]agentServer `json:"agent_servers"`
			}
			dec := json.NewDecoder(strings.NewReader(block))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&settings); err != nil {
				t.Errorf("%s: json block %d: %v\n%s", file, i+1, err, block)
				continue
			}
			for name, e := range settings.AgentServers {
				entries++
				t.Run(filepath.Base(file)+"/"+name, func(t *testing.T) {
					if e.Type != "custom" {
						t.Errorf("type %q, want custom (Zed's key for a command-line agent)", e.Type)
					}
					runEntry(t, e, bin, path)
				})
			}
		}
	}
	if entries < 3 {
		t.Errorf("found %d agent_servers entries in the docs, want at least 3", entries)
	}
}

// runEntry runs an agent_servers entry as an editor would, in a folder
// holding the demo's sample module.
func runEntry(t *testing.T, e agentServer, bin, path string) {
	home := t.TempDir()
	ws := t.TempDir()
	if err := demo.CopySample(ws); err != nil {
		t.Fatal(err)
	}
	command := e.Command
	if command == "acp-lsp" {
		// As PATH would find it; absolute so that leftovers can be found.
		command = filepath.Join(bin, "acp-lsp")
	}
	cmd := exec.Command(command, e.Args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "PATH="+path, "HOME="+home, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "XDG_DATA_HOME=")
	for k, v := range e.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	reap.OwnGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", e.Command, err)
	}
	defer reap.KillGroup(cmd.Process)
	scripted := strings.Contains(strings.Join(e.Args, " "), "-- acp-lsp agent")
	if scripted {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		if !sc.Scan() {
			t.Fatalf("no answer to initialize; stderr:\n%s", stderr.String())
		}
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				AgentInfo struct{ Name string } `json:"agentInfo"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil || resp.ID != 1 || resp.Result.AgentInfo.Name != "acp-lsp-scripted-agent" {
			t.Errorf("initialize answered %s (%v)", sc.Bytes(), err)
		}
	} else {
		for _, a := range e.Args {
			if strings.Contains(a, "opencode") {
				peers.Require(t, "opencode")
			}
		}
	}
	go io.Copy(io.Discard, stdout)
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s %q: %v (want exit 0 when the editor closes the connection); stderr:\n%s", e.Command, e.Args, err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %q still running 30s after its stdin closed; stderr:\n%s", e.Command, e.Args, stderr.String())
	}
	if strings.Contains(strings.Join(e.Args, " "), ".acp-lsp.log") {
		if _, err := os.Stat(filepath.Join(home, ".acp-lsp.log")); err != nil {
			t.Errorf("the logged entry wrote no log: %v", err)
		}
	}
	proctest.NoLeftovers(t, bin, 5*time.Second)
}

// TestEditorDocsACPX runs the acpx command lines of docs/editors.md that
// use the scripted agent, with the real acpx, in the demo's sample module,
// and checks that the lsp tool answered.
func TestEditorDocsACPX(t *testing.T) {
	acpx := peers.Require(t, "acpx")
	bin := acpLSPBin(t)
	// gopls through a link in bin, so that its command line names bin and
	// a gopls outliving the session is found (it would also write into
	// HOME while the test removes it).
	if err := os.Symlink(peers.Require(t, "gopls"), filepath.Join(bin, "gopls")); err != nil {
		t.Fatal(err)
	}
	path := strings.Join(append([]string{bin}, peers.SearchPath()...), string(os.PathListSeparator))
	n := 0
	for _, block := range docBlocks(t, filepath.Join(peers.ModuleRoot(), "docs/editors.md"), "") {
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "acpx ") || !strings.Contains(line, "acp-lsp -- acp-lsp agent") {
				continue
			}
			n++
			ws := t.TempDir()
			if err := demo.CopySample(ws); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+line)
			cmd.Dir = ws
			// The first call starts gopls; on a busy machine its first
			// diagnostics can take longer than the 5s default budget. The
			// servers are acp-lsp's own (not the user's server host, which
			// stays a minute after its last client), so that what the
			// test started ends with it.
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(acpx)+string(os.PathListSeparator)+path, "HOME="+t.TempDir(),
				"ACP_LSP_DIAGNOSTICS_WAIT_BUDGET=2m", "ACP_LSP_LOCAL_SHARED=false")
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s: %v\n%s", line, err, out)
				continue
			}
			if !strings.Contains(string(out), "cannot use Area(big) (value of type float64) as string value in variable declaration") {
				t.Errorf("%s: the lsp tool's diagnostics are not in the output:\n%s", line, out)
			}
			proctest.NoLeftovers(t, bin, 5*time.Second)
		}
	}
	if n == 0 {
		t.Fatal("docs/editors.md has no acpx line with the scripted agent")
	}
}

// TestDemoReaderGone: `acp-lsp demo | head -2` still ends acp-lsp and
// removes the temporary workspace after its reader is gone.
func TestDemoReaderGone(t *testing.T) {
	bin := acpLSPBin(t)
	if err := os.Symlink(peers.Require(t, "gopls"), filepath.Join(bin, "gopls")); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "acp-lsp"), "demo")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	r.ReadString('\n')
	second, _ := r.ReadString('\n')
	stdout.Close() // like head: the reader is gone
	err = cmd.Wait()
	if !strings.Contains(second, "workspace  "+tmp) {
		t.Fatalf("second line %q", second)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
		t.Errorf("the demo was killed by %v", ee.Sys().(syscall.WaitStatus).Signal())
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "acp-lsp-demo-*"))
	if len(left) > 0 {
		t.Errorf("temporary workspaces left: %q", left)
	}
	proctest.NoLeftovers(t, bin, 5*time.Second)
}
