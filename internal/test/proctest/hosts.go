package proctest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RuntimeDir makes a private folder for the shared server hosts of one
// test (what the test gives acp-lsp as XDG_RUNTIME_DIR, or as the host
// folder itself), so hosts of tests running side by side never meet, and
// at the test's end stops every host listening there and fails the test
// if a host or one of its servers outlives it. The folder is short (a
// unix socket path holds about 100 bytes; t.TempDir's are long).
func RuntimeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := StopHosts(dir, 20*time.Second); err != nil {
			t.Error(err)
		}
		os.RemoveAll(dir)
	})
	return dir
}

// StopHosts ends with SIGTERM every server host whose socket lies under
// dir (`acp-lsp host -socket DIR/…`) and awaits each one and its
// servers gone for up to grace; what is still running then is killed and
// reported in the error, as is any other process naming dir.
func StopHosts(dir string, grace time.Duration) error {
	procs, err := Matching(dir)
	if err != nil {
		return err
	}
	var await []int
	for _, p := range procs {
		if !strings.Contains(p.Cmdline, " host ") {
			continue
		}
		kids, _ := Descendants(p.Pid)
		for _, k := range kids {
			await = append(await, k.Pid)
		}
		await = append(await, p.Pid)
		if pr, err := os.FindProcess(p.Pid); err == nil {
			pr.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(grace)
	var errs []error
	for _, pid := range await {
		if awaitExit(pid, max(time.Until(deadline), 0)) {
			continue
		}
		errs = append(errs, fmt.Errorf("server host process left running: %v", Process{Pid: pid, State: State(pid), Cmdline: cmdline(pid)}))
		if pr, err := os.FindProcess(pid); err == nil {
			pr.Kill()
		}
	}
	// Anything else naming the folder (a client that started a host
	// there) is left over too.
	rest, err := Matching(dir)
	if err != nil {
		return err
	}
	for _, p := range rest {
		if !awaitExit(p.Pid, max(time.Until(deadline), 0)) {
			errs = append(errs, fmt.Errorf("process left running: %v", p))
		}
	}
	return errors.Join(errs...)
}
