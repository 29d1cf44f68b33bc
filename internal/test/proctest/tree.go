package proctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PidsEnv names, in the environment of a shell running TreeScript, the
// file it records its process tree in.
const PidsEnv = "ACP_LSP_TEST_PIDS"

// TreeScript is the start of a shell script that builds a process tree
// meant to outlive whoever started the shell: a child in the background,
// and a daemon that setsid(1) detached into a session of its own (out of
// the process group; the shell that forked it exits at once, so it is
// orphaned). Both run sleep. Before the script goes on, the shell has
// appended to the file named by $ACP_LSP_TEST_PIDS the child's pid, the
// daemon's and its own, one a line (TreeProcs of them). A script that
// execs next keeps its own pid for what it execs.
const TreeScript = `sleep 1000 & echo $! >>"$` + PidsEnv + `"; ` +
	`setsid -w sh -c 'sleep 1000 & echo $! >>"$` + PidsEnv + `"'; ` +
	`echo $$ >>"$` + PidsEnv + `"; `

// TreeProcs is how many pids TreeScript records.
const TreeProcs = 3

// ReadPids reads the pids a TreeScript recorded in file and fails t
// unless there are want of them.
func ReadPids(t testing.TB, file string, want int) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != want {
		t.Fatalf("%s records pids %v, want %d", file, pids, want)
	}
	return pids
}

// AwaitGone fails t for each of pids still running after grace (each is
// awaited through a pidfd, not by polling; a zombie counts as gone), and
// kills it, so a failure leaves nothing behind.
func AwaitGone(t testing.TB, pids []int, grace time.Duration) {
	t.Helper()
	deadline := time.Now().Add(grace)
	for _, pid := range pids {
		if awaitExit(pid, max(time.Until(deadline), 0)) {
			continue
		}
		t.Errorf("process left running: %v", Process{Pid: pid, State: State(pid), Cmdline: cmdline(pid)})
		if pr, err := os.FindProcess(pid); err == nil {
			pr.Kill()
		}
	}
}
