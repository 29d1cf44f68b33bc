package serverhost

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/lsp"
	"go.uber.org/goleak"
)

// The test binary plays acp-lsp: run as `host …` it is the server host
// (what `acp-lsp host` runs), and with clientEnv set it is one acp-lsp
// process asking a language server (clientMain).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "host" {
		os.Exit(hostMain(os.Args[2:]))
	}
	if os.Getenv(clientEnv) != "" {
		os.Exit(clientMain())
	}
	goleak.VerifyTestMain(m)
}

func hostMain(args []string) int {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	socket := fs.String("socket", "", "")
	identity := fs.String("identity", "", "")
	idle := fs.Duration("idle", DefaultIdleGrace, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := RunHost(ctx, *socket, *identity, *idle, log); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// clientEnv holds a clientSpec: the test binary then runs as one acp-lsp
// process with it.
const clientEnv = "ACP_LSP_TEST_SERVERHOST_CLIENT"

// clientSpec is what a client process does: ask Method about File (one
// request, or Calls of them), print one answer line, and stay (holding
// its servers) until its stdin ends.
type clientSpec struct {
	Dir      string `json:"dir"`
	Identity string `json:"identity,omitempty"`
	Root     string `json:"root"`
	File     string `json:"file"`
	Method   string `json:"method"`
	Params   string `json:"params"`
	// Own runs the servers in the process (local.shared = false).
	Own bool `json:"own,omitempty"`
	// Settings are gopls settings (a trusted project file's).
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// Servers replaces the registry (a fake server).
	Servers []lsp.ServerConfig `json:"servers,omitempty"`
}

// clientAnswer is the line a client process prints.
type clientAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Err    string          `json:"err,omitempty"`
	// PIDs are the server processes its answers came from.
	PIDs []int `json:"pids,omitempty"`
}

func (s clientSpec) options() lsp.Options {
	servers := s.Servers
	if servers == nil {
		servers = lsp.DefaultServers()
		for i := range servers {
			if servers[i].Name == "gopls" && s.Settings != nil {
				servers[i].Settings = s.Settings
			}
		}
	}
	return lsp.Options{Roots: []string{s.Root}, Servers: servers, Env: os.Environ()}
}

func clientMain() int {
	var spec clientSpec
	if err := json.Unmarshal([]byte(os.Getenv(clientEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var (
		local interface {
			Request(ctx context.Context, path, method string, params json.RawMessage) (json.RawMessage, error)
			Servers() []lsp.ServerStatus
			Close(ctx context.Context) error
		}
		err error
	)
	if spec.Own {
		local, err = lsp.NewManager(spec.options())
	} else {
		local, err = NewClient(spec.options(), Config{Dir: spec.Dir, Identity: spec.Identity, Idle: -1})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var ans clientAnswer
	res, err := local.Request(ctx, spec.File, spec.Method, json.RawMessage(spec.Params))
	ans.Result = res
	if err != nil {
		ans.Err = err.Error()
	}
	for _, st := range local.Servers() {
		if st.PID > 0 {
			ans.PIDs = append(ans.PIDs, st.PID)
		}
	}
	b, _ := json.Marshal(ans)
	fmt.Println(string(b))
	io.Copy(io.Discard, os.Stdin)
	local.Close(context.Background())
	return 0
}

// clientProc is a client process the test runs.
type clientProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startClient runs the test binary as a client process with spec.
func startClient(t *testing.T, spec clientSpec) *clientProc {
	t.Helper()
	b, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(peers.Env(), clientEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &clientProc{cmd: cmd, stdin: stdin, out: bufio.NewReader(out)}
	t.Cleanup(func() { p.end() })
	return p
}

// answer reads the client's answer line.
func (p *clientProc) answer(t *testing.T) clientAnswer {
	t.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("client process: no answer: %v", err)
	}
	var a clientAnswer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		t.Fatalf("client process: %q: %v", line, err)
	}
	return a
}

// end lets the client leave (stdin ends) and waits for it.
func (p *clientProc) end() {
	p.stdin.Close()
	p.cmd.Wait()
}
