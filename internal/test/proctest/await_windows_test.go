package proctest

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestAwaitExitOnWindows: awaitExit waits on the process's handle: a live
// process (this one) is not gone when the wait ends, a child that ended
// is, and so is a pid no process has.
func TestAwaitExitOnWindows(t *testing.T) {
	if awaitExit(os.Getpid(), 10*time.Millisecond) {
		t.Error("awaitExit: this live process is gone")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !awaitExit(cmd.Process.Pid, time.Minute) {
		t.Errorf("awaitExit: child %d that ends is still running after a minute", cmd.Process.Pid)
	}
	cmd.Wait()
	if !awaitExit(cmd.Process.Pid, time.Minute) {
		t.Errorf("awaitExit: child %d, ended and waited for, is not gone", cmd.Process.Pid)
	}
}
