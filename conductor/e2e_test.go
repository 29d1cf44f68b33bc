package conductor

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/peerrun"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
	"github.com/acp-lsp/acp-lsp/proxy"
	"github.com/rogpeppe/go-internal/txtar"
	"go.uber.org/goleak"
)

var bin struct {
	dir, acplsp, agent, client string
}

func TestMain(m *testing.M) {
	peerrun.MaybeServeMCP()
	maybeFakeProxy()
	dir, err := os.MkdirTemp("", "acplsp-conductor-test")
	if err != nil {
		panic(err)
	}
	bin.dir = dir
	bin.acplsp = filepath.Join(dir, "acp-lsp")
	bin.agent = filepath.Join(dir, "sdk-agent")
	bin.client = filepath.Join(dir, "sdk-client")
	for _, b := range [][2]string{
		{bin.acplsp, "github.com/acp-lsp/acp-lsp/cmd/acp-lsp"},
		{bin.agent, "github.com/coder/acp-go-sdk/example/agent"},
		{bin.client, "github.com/coder/acp-go-sdk/example/client"},
	} {
		out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b[1], err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// piped is a process started from argv whose stdin a test writes lines
// to and whose stdout it reads line by line, in its own process group;
// stop kills the group and waits.
type piped struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	lr     *proxy.LineReader
	stderr strings.Builder
}

func startPiped(t testing.TB, argv ...string) *piped {
	t.Helper()
	p := &piped{t: t, cmd: exec.Command(argv[0], argv[1:]...)}
	reap.OwnGroup(p.cmd)
	p.cmd.Stderr = &p.stderr
	p.in, _ = p.cmd.StdinPipe()
	out, _ := p.cmd.StdoutPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.lr = proxy.NewLineReader(out, 0)
	return p
}

func (p *piped) stop() {
	_ = reap.KillGroup(p.cmd.Process)
	p.cmd.Wait()
}

// send writes one line.
func (p *piped) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s+"\n"); err != nil {
		p.t.Fatalf("send: %v (stderr: %s)", err, p.stderr.String())
	}
}

// recv reads one message and its line.
func (p *piped) recv() (*proxy.Message, []byte) {
	p.t.Helper()
	l, err := p.lr.ReadLine()
	if err != nil {
		p.t.Fatalf("recv: %v (stderr: %s)", err, p.stderr.String())
	}
	m, err := proxy.Parse(l)
	if err != nil {
		p.t.Fatalf("recv %s: %v", l, err)
	}
	return m, l
}

// session runs one scripted ACP client session against argv and returns
// every message the client received, in order, with session ids and
// timestamps normalized.
func session(t *testing.T, argv ...string) []string {
	t.Helper()
	p := startPiped(t, argv...)
	defer p.stop()
	send := p.send
	var got []string
	recv := func() *proxy.Message {
		m, l := p.recv()
		got = append(got, string(l))
		return m
	}
	untilResponse := func(id string) *proxy.Message {
		for {
			m := recv()
			if m.Kind == proxy.KindRequest {
				// Permission: pick the first option.
				oid, _ := proxy.GetPath(m.Params(), "options")
				first := regexp.MustCompile(`"optionId":("[^"]*")`).FindSubmatch(oid)
				if first == nil {
					t.Fatalf("unexpected request %s", m.Raw)
				}
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":` + string(first[1]) + `}}}`)
				continue
			}
			if m.Kind == proxy.KindResponse && string(m.ID) == id {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"_meta":{"x":1}}}}`)
	untilResponse("0")
	send(`{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	r := untilResponse(`"new"`)
	sid, _ := proxy.GetPath(r.Result(), "sessionId")
	send(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"session/prompt","params":{"sessionId":` + string(sid) + `,"prompt":[{"type":"text","text":"hi"}]}}`)
	untilResponse("12345678901234567890")
	send(`{"jsonrpc":"2.0","id":3,"method":"_unknown/method","params":{}}`)
	untilResponse("3")
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Errorf("%v still running 5s after stdin closed", argv)
	}
	norm := strings.NewReplacer(string(sid), `"SID"`)
	for i := range got {
		got[i] = norm.Replace(got[i])
	}
	return got
}

// bins are the binaries as one subtest runs them: links in a directory of
// the subtest's own, so that its process-table check sees only its own
// processes while other subtests run in parallel.
type bins struct{ dir, acplsp, agent, client string }

func linkBins(t *testing.T) bins {
	t.Helper()
	d := t.TempDir()
	b := bins{dir: d, acplsp: filepath.Join(d, "acp-lsp"), agent: filepath.Join(d, "sdk-agent"), client: filepath.Join(d, "sdk-client")}
	for _, l := range [][2]string{{bin.acplsp, b.acplsp}, {bin.agent, b.agent}, {bin.client, b.client}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { proctest.NoLeftovers(t, d, 5*time.Second) })
	return b
}

// TestSameMessagesInEveryMode runs the scripted session directly and
// through every forwarding set-up (-no-lsp: nothing to add, so nothing may
// change) and compares each with the transcript. The example agent pauses
// about 5 s per prompt, so the set-ups run in parallel.
func TestSameMessagesInEveryMode(t *testing.T) {
	t.Parallel()
	golden := "../testdata/proxy/sdk-agent-session.txtar"
	modes := map[string]func(b bins) []string{
		"direct":  func(b bins) []string { return []string{b.agent} },
		"wrapper": func(b bins) []string { return []string{b.acplsp, "-no-lsp", "--", b.agent} },
		"wrapper via run": func(b bins) []string {
			return []string{b.acplsp, "run", "-no-lsp", "-log-level", "error", "--", b.agent}
		},
		"conductor, 2 proxies": func(b bins) []string {
			return []string{b.acplsp, "conductor", "--proxy", b.acplsp + " proxy -no-lsp", "--proxy", b.acplsp + " proxy -no-lsp", "--", b.agent}
		},
		"conductor, _proxy family": func(b bins) []string {
			return []string{b.acplsp, "conductor", "--family", "_proxy", "--proxy", b.acplsp + " proxy -no-lsp", "--", b.agent}
		},
		"nested conductor": func(b bins) []string {
			return []string{b.acplsp, "conductor", "--proxy", b.acplsp + " conductor --proxy '" + b.acplsp + " proxy -no-lsp'", "--", b.agent}
		},
	}
	for name, argv := range modes {
		if *update && name != "direct" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := session(t, argv(linkBins(t))...)
			if len(got) < 5 {
				t.Fatalf("session too short: %q", got)
			}
			checkGolden(t, golden, got)
		})
	}
}

var update = flag.Bool("update", false, "rewrite the transcripts in testdata/proxy")

// checkGolden compares the messages a client received with a txtar
// transcript (one message per line in the file "received").
func checkGolden(t *testing.T, path string, got []string) {
	t.Helper()
	body := strings.Join(got, "\n") + "\n"
	if *update {
		a := &txtar.Archive{
			Comment: []byte("Messages the scripted client (conductor/e2e_test.go session) receives from the\nGo SDK example agent; session ids normalized. Regenerate: go test ./conductor -run TestSameMessages -args -update\n"),
			Files:   []txtar.File{{Name: "received", Data: []byte(body)}},
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if len(a.Files) != 1 || string(a.Files[0].Data) != body {
		t.Errorf("transcript %s differs (run with -update after checking):\n got: %s", path, body)
	}
}

func TestSDKClientThroughModes(t *testing.T) {
	t.Parallel()
	for name, argv := range map[string]func(b bins) []string{
		"wrapper": func(b bins) []string { return []string{b.acplsp, "--", b.agent} },
		"conductor": func(b bins) []string {
			return []string{b.acplsp, "conductor", "--proxy", b.acplsp + " proxy", "--proxy", b.acplsp + " proxy", "--", b.agent}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := linkBins(t)
			cmd := exec.Command(b.client, argv(b)...)
			cmd.Stdin = strings.NewReader(strings.Repeat("1\n", 20))
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Agent completed") {
				t.Fatalf("sdk client: %v\n%s", err, out)
			}
		})
	}
}

// faultAgent writes a shell script agent into dir.
func faultAgent(t *testing.T, dir, name, script string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFaults runs each fault in parallel (each waits on processes, not on
// CPU), each with its own binary links so its process-table check is its
// own.
func TestFaults(t *testing.T) {
	t.Parallel()
	const (
		crash    = "read line\necho '{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}'\nexit 3\n"
		deaf     = "trap '' TERM\nwhile :; do sleep 1; done\n"
		relaunch = "if [ -z \"$CHILD\" ]; then CHILD=1 \"$0\" & exit 0; fi\ntrap '' TERM\nexec sleep 1000\n"
	)
	t.Run("agent crash mid-request", func(t *testing.T) {
		t.Parallel()
		b := linkBins(t)
		cmd := exec.Command(b.acplsp, "--", faultAgent(t, b.dir, "crash-agent", crash))
		// The editor stays connected (its stdin open) while the agent dies.
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		cmd.Stdin = pr
		io.WriteString(pw, `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{}}`+"\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		pr.Close()
		var ee *exec.ExitError
		if !errorsAs(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("exit: %v, want status 1", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "session/update") ||
			!strings.Contains(lines[1], `"id":7`) || !strings.Contains(lines[1], "exited with status 3") {
			t.Fatalf("stdout:\n%s\nstderr:\n%s", out, stderr.String())
		}
	})
	for name, script := range map[string]string{"agent ignoring EOF and SIGTERM": deaf, "agent relaunching itself": relaunch} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := linkBins(t)
			cmd := exec.Command(b.acplsp, "--", faultAgent(t, b.dir, "fault-agent", script))
			in, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`+"\n")
			in.Close() // the editor disconnects mid-prompt
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// A bound on a hang, not a measure of speed: acp-lsp kills the
			// agent 1.5 s (the grace) after the end of input, but a loaded
			// machine running the suite in parallel has taken over 5 s.
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("acp-lsp still running 30s after the editor disconnected")
			}
		})
	}
	t.Run("missing agent", func(t *testing.T) {
		t.Parallel()
		b := linkBins(t)
		out, err := exec.Command(b.acplsp, "--", "no-such-agent-xyz").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "no-such-agent-xyz") {
			t.Fatalf("%v: %s", err, out)
		}
	})
	t.Run("50 MiB message", func(t *testing.T) {
		t.Parallel()
		b := linkBins(t)
		big := []byte(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("a", 50<<20) + `"}`)
		after := `{"jsonrpc":"2.0","method":"after"}`
		cmd := exec.Command(b.acplsp, "--", faultAgent(t, b.dir, "echo-agent", "exec cat\n"))
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			in.Write(append(big, '\n'))
			io.WriteString(in, after+"\n")
		}()
		lr := proxy.NewLineReader(out, 0)
		l1, err1 := lr.ReadLine()
		l2, err2 := lr.ReadLine()
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		if err1 != nil || err2 != nil || !bytes.Equal(l1, big) || string(l2) != after {
			t.Fatalf("got %d bytes (%v) and %q (%v)", len(l1), err1, l2, err2)
		}
	})
	t.Run("malformed editor input", func(t *testing.T) {
		t.Parallel()
		b := linkBins(t)
		cmd := exec.Command(b.acplsp, "--", faultAgent(t, b.dir, "echo-agent", "exec cat\n"))
		cmd.Stdin = strings.NewReader("{oops\n" + `{"jsonrpc":"2.0","method":"ok"}` + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"id":null,"error":{"code":-32700`) || !strings.Contains(string(out), `"method":"ok"`) {
			t.Fatalf("got %s", out)
		}
	})
}
