package proxy

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/proctest"
)

// TestAgentDiesWithItsParent: an acp-lsp killed outright (SIGKILL, so it
// cannot end its agent: an impatient editor) takes the agent with it,
// though the agent runs in its own process group and here ignores both
// its input's end and SIGTERM. The test binary is run again as that
// acp-lsp; the agent's command line carries a marker unique to this run,
// so the process table is searched for exactly it.
func TestAgentDiesWithItsParent(t *testing.T) {
	if marker := os.Getenv(proctest.ParentEnv); marker != "" {
		// SIGTERM ignored here is ignored in the agent too (an ignored
		// signal stays ignored across exec), so the agent is sleep from
		// its start: through sh's trap and exec its command line read
		// empty for a moment, and the check below could miss it.
		signal.Ignore(syscall.SIGTERM)
		p, err := StartProcess([]string{"sleep", marker}, ProcessOptions{Name: "agent"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("agent %d\n", p.Pid())
		select {} // killed here
	}
	marker := fmt.Sprintf("%d.%d", 900000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	proctest.KillParent(t, marker, "agent ", 10*time.Second, func(string) string {
		if procs, err := proctest.Matching("sleep " + marker); err != nil || len(procs) != 1 {
			t.Fatalf("processes running sleep %s: %v %v, want the agent", marker, procs, err)
		}
		return "sleep " + marker
	})
}
