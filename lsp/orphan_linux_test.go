package lsp

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/fakelsp"
	"github.com/acp-lsp/acp-lsp/internal/proctest"
)

// TestServersDieWithTheirParent: a process running a Manager that is
// killed outright (SIGKILL, so no Close runs: an editor that lost
// patience) takes its language servers with it, though each runs in its
// own process group, and ignores its input's end. The test binary is run
// again as that process: it starts a server and prints the server's pid
// and its script path (unique to it, so the process table is searched for
// exactly this server).
func TestServersDieWithTheirParent(t *testing.T) {
	if os.Getenv(proctest.ParentEnv) != "" {
		// A server that ignores stdin EOF and SIGTERM, as gopls was seen
		// to outlive an acp-lsp killed by acpx.
		e := newFaultEnv(t, fakelsp.Script{RefuseExit: true}, nil)
		e.wantHover()
		fmt.Printf("server %d %s\n", e.m.Servers()[0].PID, e.script)
		select {} // killed here
	}
	proctest.KillParent(t, "1", "server ", 10*time.Second, func(line string) string {
		var pid int
		var script string
		if _, err := fmt.Sscanf(line, "server %d %s", &pid, &script); err != nil || !strings.HasSuffix(script, "script.json") {
			t.Fatalf("parent said %q (%v)", line, err)
		}
		if procs, err := proctest.Matching(script); err != nil || len(procs) != 1 || procs[0].Pid != pid {
			t.Fatalf("processes running the script: %v %v, want the server, pid %d", procs, err, pid)
		}
		return script
	})
}
