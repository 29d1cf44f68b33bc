package proxy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/proctest"
)

// parentEnv carries the marker of the agent the re-run test binary starts.
const parentEnv = "ACP_LSP_TEST_KILLED_PARENT"

// TestAgentDiesWithItsParent: an acp-lsp killed outright (SIGKILL, so it
// cannot end its agent: an impatient editor) takes the agent with it,
// though the agent runs in its own process group and here ignores both
// its input's end and SIGTERM. The test binary is run again as that
// acp-lsp; the agent's command line carries a marker unique to this run,
// so the process table is searched for exactly it.
func TestAgentDiesWithItsParent(t *testing.T) {
	if marker := os.Getenv(parentEnv); marker != "" {
		p, err := StartProcess([]string{"sh", "-c", `trap "" TERM; exec sleep ` + marker}, ProcessOptions{Name: "agent"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("agent %d\n", p.Pid())
		select {} // killed here
	}
	marker := fmt.Sprintf("%d.%d", 900000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentDiesWithItsParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), parentEnv+"="+marker)
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
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "agent %d", &pid); err == nil {
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		t.Fatalf("the parent process printed no agent pid: %v", sc.Err())
	}
	marker = "sleep " + marker
	if procs, err := proctest.Matching(marker); err != nil || len(procs) != 1 || !strings.Contains(procs[0].Cmdline, marker) {
		cmd.Process.Kill()
		t.Fatalf("processes running %q: %v %v, want the agent", marker, procs, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proctest.NoLeftovers(t, marker, 10*time.Second)
	if left, _ := proctest.Matching(marker); len(left) > 0 { // failed: leave nothing behind
		for _, p := range left {
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}
}
