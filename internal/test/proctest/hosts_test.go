package proctest

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStopHosts: StopHosts ends a host of its folder and the host's
// server; a server its host leaves behind is reported (and killed); a
// host of another folder is not touched.
func TestStopHosts(t *testing.T) {
	cases := []struct {
		name string
		// script is the "host": it runs a "server" (sleep) below it.
		script string
		leaks  bool
	}{
		{"host ends its server", `trap 'kill $!; exit 0' TERM; sleep 1000 & echo $!; wait`, false},
		{"host leaves its server behind", `sleep 1000 & echo $!; wait`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, other := t.TempDir(), t.TempDir()
			// start runs a host of folder d and returns it once its
			// server runs (it prints the server's pid).
			start := func(d string) (host, server int) {
				cmd := exec.Command("sh", "-c", tc.script, "sh", "host", "-socket", filepath.Join(d, "h-x.sock"))
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				line, err := bufio.NewReader(out).ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				go cmd.Wait()
				server, err = strconv.Atoi(strings.TrimSpace(line))
				if err != nil {
					t.Fatal(err)
				}
				return cmd.Process.Pid, server
			}
			host, server := start(dir)
			theirs, _ := start(other)
			t.Cleanup(func() { StopHosts(other, time.Second) })
			err := StopHosts(dir, 2*time.Second)
			if got := err != nil; got != tc.leaks {
				t.Fatalf("StopHosts = %v, want an error %v", err, tc.leaks)
			}
			if tc.leaks && !strings.Contains(err.Error(), "sleep 1000") {
				t.Errorf("StopHosts = %v, want the server named", err)
			}
			for _, pid := range []int{host, server} {
				if !gone(State(pid)) {
					t.Errorf("pid %d still running", pid)
				}
			}
			if gone(State(theirs)) {
				t.Errorf("the host of another folder was stopped")
			}
		})
	}
}
