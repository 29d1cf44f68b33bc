package memory

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// childEnv makes the test binary a child that says it is up (one byte)
// and waits for its input to close: a process of known pid, alive while
// it is read, on every platform (under Wine too, where it is a Windows
// program).
const childEnv = "ACP_LSP_MEMORY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Stdout.Write([]byte{1})
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts the test binary as a child and returns once it runs.
func startChild(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	in, err := cmd.StdinPipe()
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
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	})
	if _, err := io.ReadFull(out, make([]byte, 1)); err != nil {
		t.Fatalf("child did not start: %v", err)
	}
	return cmd.Process.Pid
}

// TestTotal: the machine's memory is known on this platform.
func TestTotal(t *testing.T) {
	if n := Total(); n <= 0 {
		t.Errorf("Total() = %d, want > 0", n)
	}
}

// TestResident reads, in one call, the resident memory of this process
// and of a child it started (both > 0), and not of a pid that does not
// exist nor of pid 0 or below, the pid of no server (absent, 0).
func TestResident(t *testing.T) {
	self, kid, none := os.Getpid(), startChild(t), 1<<30
	got := Resident(self, 0, kid, none, -1)
	if len(got) != 2 || got[self] <= 0 || got[kid] <= 0 {
		t.Errorf("Resident(self %d, 0, child %d, %d, -1) = %v, want self and child > 0, nothing else", self, kid, none, got)
	}
	if got := Resident(); len(got) != 0 {
		t.Errorf("Resident() = %v, want empty", got)
	}
}
