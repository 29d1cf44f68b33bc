package lsp

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/proctest"
)

// parentEnv marks the test binary run as the parent that gets killed.
const parentEnv = "ACP_LSP_TEST_KILLED_PARENT"

// TestServersDieWithTheirParent: a process running a Manager that is
// killed outright (SIGKILL, so no Close runs: an editor that lost
// patience) takes its language servers with it, though each runs in its
// own process group, and ignores its input's end. The test binary is run again as that process: it
// starts a server, prints the server's pid and its script path (unique
// to it, so the process table is searched for exactly this server), and
// waits to be killed.
func TestServersDieWithTheirParent(t *testing.T) {
	if os.Getenv(parentEnv) != "" {
		// A server that ignores stdin EOF and SIGTERM, as gopls was seen
		// to outlive an acp-lsp killed by acpx.
		e := newFaultEnv(t, fakelsp.Script{RefuseExit: true}, nil)
		e.wantHover()
		fmt.Printf("server %d %s\n", e.m.Servers()[0].PID, e.script)
		select {} // killed here
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServersDieWithTheirParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), parentEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(out)
	var pid int
	var script string
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "server %d %s", &pid, &script); err == nil {
			break
		}
	}
	if pid == 0 || !strings.HasSuffix(script, "script.json") {
		cmd.Process.Kill()
		t.Fatalf("the parent process printed no server pid: %v", sc.Err())
	}
	procs, err := proctest.Matching(script)
	if err != nil || len(procs) != 1 || procs[0].Pid != pid {
		cmd.Process.Kill()
		t.Fatalf("processes running the script: %v %v, want the server, pid %d", procs, err, pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proctest.NoLeftovers(t, script, 10*time.Second)
	if left, _ := proctest.Matching(script); len(left) > 0 { // failed: leave nothing behind
		for _, p := range left {
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}
}
