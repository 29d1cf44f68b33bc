package reap

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// The argv[0]s this test binary is run again with: the guard that holds
// its child's process group alone, as macOS's does (groupHold), with /proc
// and pidfds standing in for sysctl and kqueue; and a process playing
// acp-lsp, which starts a child through that guard.
const (
	groupGuardName = "acp-lsp-guard-group"
	playACPLSPName = "acp-lsp-playing"
)

// groupScript starts two members of the child's group and prints the
// child's pid (its group's id) once they run.
const groupScript = "sleep 1000 & sleep 1000 & echo $$; wait"

func init() {
	if len(os.Args) > 0 && os.Args[0] == groupGuardName {
		syscall.Exit(guard(groupHold(procGroupMembers, awaitPidfds), os.Args[1], os.Args[2:]))
	}
	if len(os.Args) > 0 && os.Args[0] == playACPLSPName {
		syscall.Exit(playACPLSP())
	}
}

// playACPLSP starts groupScript through the group guard, its output
// going to this process's, and waits for the end of its input (never:
// the test kills it).
func playACPLSP() int {
	cmd := exec.Command("sh", "-c", groupScript)
	cmd.Stdout = os.Stdout
	if _, err := start(cmd, groupGuardName); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// groupOf reads the group id the script printed and returns it with a
// pidfd of each live member of the group and of the guard (the child's
// parent).
func groupOf(t *testing.T, out io.Reader) (pgid int, fds map[int]int) {
	t.Helper()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the script's pid: %q, %v", line, err)
	}
	if pgid, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Kill(-pgid, unix.SIGKILL) })
	members, _ := procGroupMembers(pgid)
	if len(members) != 3 {
		t.Fatalf("group %d: members %v, want the script and its two sleeps", pgid, members)
	}
	child, ok := procfs.ReadStat(pgid)
	if !ok {
		t.Fatalf("no /proc/%d/stat", pgid)
	}
	fds = map[int]int{}
	for _, pid := range append(members, child.PPid) {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("pidfd of %d: %v", pid, err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		fds[pid] = fd
	}
	return pgid, fds
}

// TestGroupGuardEndsGroup: the guard that holds its child's process group
// alone (macOS's, no subreaper) ends the whole group, and itself, when
// asked (Kill) and when acp-lsp is killed outright (its socket's end).
// Ended by the guard, not by anything this test could wait on: the
// test's deadline bounds a group that survives.
func TestGroupGuardEndsGroup(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(t *testing.T) (out io.Reader, end func())
	}{
		{"Kill", func(t *testing.T) (io.Reader, func()) {
			cmd := exec.Command("sh", "-c", groupScript)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			c, err := start(cmd, groupGuardName)
			if err != nil {
				t.Fatal(err)
			}
			return out, func() {
				c.Kill()
				<-c.Gone()
			}
		}},
		{"acp-lsp killed outright", func(t *testing.T) (io.Reader, func()) {
			cmd := exec.Command(os.Args[0])
			cmd.Args[0] = playACPLSPName
			if _, err := cmd.StdinPipe(); err != nil { // held open: acp-lsp waits on it
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			return out, func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, end := tc.end(t)
			pgid, fds := groupOf(t, out)
			end()
			for pid, fd := range fds {
				for {
					_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
					if err == nil {
						break
					}
					if err != unix.EINTR {
						t.Fatalf("awaiting %d: %v", pid, err)
					}
				}
			}
			if left, ok := procGroupMembers(pgid); !ok || len(left) > 0 {
				t.Errorf("members of group %d alive after the guard ended: %v", pgid, left)
			}
		})
	}
}
