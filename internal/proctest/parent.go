package proctest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ParentEnv is set (to the value given to KillParent) in the environment of
// the test binary KillParent runs again; a test that finds it set plays the
// parent: it starts its child, prints one line, and blocks until killed.
const ParentEnv = "ACP_LSP_TEST_KILLED_PARENT"

// KillParent proves that what a process starts dies with it when the
// process is killed outright (SIGKILL: no clean-up of its own runs). It
// runs the test binary again, with only the calling test and ParentEnv set
// to value, reads the parent's stdout up to the first line starting with
// prefix, and passes that line to check, which returns the substring of
// the child's command line to look for (unique to this run) or fails the
// test. It then SIGKILLs the parent and fails t if a process whose command
// line holds that substring is still running after grace; such processes
// are killed, so a failure leaves nothing behind.
func KillParent(t *testing.T, value, prefix string, grace time.Duration, check func(line string) string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), ParentEnv+"="+value)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill() // on an early failure
	sc := bufio.NewScanner(out)
	line := ""
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			line = sc.Text()
			break
		}
	}
	if line == "" {
		t.Fatalf("the parent process printed no %q line: %v", prefix, sc.Err())
	}
	marker := check(line)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	NoLeftovers(t, marker, grace)
	if left, _ := Matching(marker); len(left) > 0 {
		for _, p := range left {
			syscall.Kill(p.Pid, syscall.SIGKILL)
		}
	}
}
