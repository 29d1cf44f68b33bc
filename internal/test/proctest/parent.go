package proctest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// ParentEnv is set (to the value given to KillParent) in the environment of
// the test binary KillParent runs again; a test that finds it set plays the
// parent: it starts its children, prints one line, and blocks until killed.
const ParentEnv = "ACP_LSP_TEST_KILLED_PARENT"

// KillParent runs the test binary again as a parent that is then killed
// outright (SIGKILL: no clean-up of its own runs), to prove that what it
// started dies with it. The parent runs the calling top-level test with
// ParentEnv set to value; KillParent reads its stdout up to the first line
// starting with prefix, SIGKILLs and reaps it, and returns that line. What
// the parent started is the caller's to check (AwaitGone).
func KillParent(t *testing.T, value, prefix string) string {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.Command(os.Args[0], "-test.run=^"+top+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), ParentEnv+"="+value)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	line := ""
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			line = sc.Text()
			break
		}
	}
	kill := cmd.Process.Kill()
	cmd.Wait()
	if line == "" {
		t.Fatalf("the parent process printed no %q line: %v", prefix, sc.Err())
	}
	if kill != nil {
		t.Fatal(kill)
	}
	return line
}
