package reap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/windows"
)

// roleEnv names the part this test binary plays when run again by the
// tests below: a child that starts a grandchild, or acp-lsp itself.
const roleEnv = "ACP_LSP_REAP_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "child":
		os.Exit(playChild(false))
	case "child-exits":
		os.Exit(playChild(true))
	case "grandchild":
		// Until the test closes its end of the input: never, unless killed.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	case "acp-lsp":
		os.Exit(playACPLSP())
	}
	os.Exit(125)
}

// playChild starts a grandchild (directly, not through Start) sharing its
// input, prints the grandchild's pid, then waits for the end of its input
// or, with exit, exits at once with status 3.
func playChild(exit bool) int {
	g := exec.Command(os.Args[0])
	g.Env = append(os.Environ(), roleEnv+"=grandchild")
	g.Stdin = os.Stdin // a handle the grandchild inherits: the test's pipe
	if err := g.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	fmt.Println(g.Process.Pid)
	if exit {
		return 3
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// playACPLSP starts a child through Start as acp-lsp does and prints the
// child's and the grandchild's pids; then waits to be killed.
func playACPLSP() int {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=child")
	cmd.Stdin = os.Stdin
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	c, err := Start(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	var grandchild int
	if _, err := fmt.Fscan(out, &grandchild); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	fmt.Println(c.Pid(), grandchild)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// startRole starts this test binary in role, its input a pipe the test
// holds open until it ends (so no process of the tree ends of its own
// accord), its output read by the returned reader.
func startRole(t *testing.T, role string, start func(*exec.Cmd) error) *bufio.Reader {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	cmd.Stderr = os.Stderr
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	cmd.Stdin = in
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	in.Close()
	return bufio.NewReader(out)
}

// openProcess opens pid to wait for it; a process the tree leaves behind
// is killed when the test ends.
func openProcess(t *testing.T, pid int) windows.Handle {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatalf("open process %d: %v", pid, err)
	}
	t.Cleanup(func() {
		_ = windows.TerminateProcess(h, 1)
		windows.CloseHandle(h)
	})
	return h
}

// ended says whether the process of h has ended, without waiting.
func ended(t *testing.T, h windows.Handle) bool {
	t.Helper()
	ev, err := windows.WaitForSingleObject(h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ev == windows.WAIT_OBJECT_0
}

// TestJobEndsTree: a child that started a grandchild ends as a tree, by
// Kill or by its own exit, by the time Gone is closed.
func TestJobEndsTree(t *testing.T) {
	for _, tc := range []struct {
		name, role string
		end        func(*Child)
		want       string
	}{
		{"Kill", "child", (*Child).Kill, "exit status 1"},
		{"the child exits", "child-exits", func(*Child) {}, "exit status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *Child
			out := startRole(t, tc.role, func(cmd *exec.Cmd) (err error) {
				c, err = Start(cmd)
				return err
			})
			defer func() {
				c.Kill()
				<-c.Gone()
			}()
			var grandchild int
			if _, err := fmt.Fscan(out, &grandchild); err != nil {
				t.Fatalf("the grandchild's pid: %v", err)
			}
			g := openProcess(t, grandchild)
			tc.end(c)
			if err := c.Wait(); errText(err) != tc.want {
				t.Errorf("Wait: %v, want %s", err, tc.want)
			}
			<-c.Gone()
			if !ended(t, g) {
				t.Errorf("the grandchild %d runs on after Gone", grandchild)
			}
		})
	}
}

// TestJobEndsTreeWithACPLSP: when acp-lsp is killed outright, the tree of
// each child it started goes with it (the job's last handle closes).
func TestJobEndsTreeWithACPLSP(t *testing.T) {
	var acplsp *exec.Cmd
	out := startRole(t, "acp-lsp", func(cmd *exec.Cmd) error {
		acplsp = cmd
		return cmd.Start()
	})
	var child, grandchild int
	if _, err := fmt.Fscan(out, &child, &grandchild); err != nil {
		t.Fatalf("the pids: %v", err)
	}
	c, g := openProcess(t, child), openProcess(t, grandchild)
	if err := acplsp.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = acplsp.Wait()
	// Ended by the system, not by anything this test could wait on: the
	// test's deadline bounds a tree that survives.
	for _, h := range []windows.Handle{c, g} {
		if _, err := windows.WaitForSingleObject(h, windows.INFINITE); err != nil {
			t.Fatal(err)
		}
	}
}

// errText is err's message ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
