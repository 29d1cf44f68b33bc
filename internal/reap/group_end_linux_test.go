package reap

import (
	"bufio"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// procGroupMembers lists the live members of group pgid from /proc: on
// Linux, the stand-in for what macOS lists with sysctl (kern.proc.pgrp).
func procGroupMembers(pgid int) ([]int, bool) {
	procs, err := procfs.Table()
	if err != nil {
		return nil, false
	}
	var pids []int
	for _, p := range procs {
		if p.Pgrp == pgid && !p.Gone() {
			pids = append(pids, p.Pid)
		}
	}
	return pids, true
}

// awaitPidfds returns once each of pids has exited, by pidfds: on Linux,
// the stand-in for macOS's kqueue (EVFILT_PROC, NOTE_EXIT).
func awaitPidfds(pids []int, deadline time.Time) {
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone
		}
		awaitPidfd(fd, deadline)
		unix.Close(fd)
	}
}

// TestEndGroup: once endGroup returns, no member of the group is alive:
// those the leader started, and one whose parent left it behind.
func TestEndGroup(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{"members", "sleep 1000 & sleep 1000 & echo started; wait"},
		{"an orphan", "sh -c 'sleep 1000 & echo started'; wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			pgid := cmd.Process.Pid
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil {
				t.Fatalf("the script's start: %q, %v", line, err)
			}
			// Each member's pidfd, opened before: readable once it exited.
			before, _ := procGroupMembers(pgid)
			fds := map[int]int{}
			for _, pid := range before {
				fd, err := unix.PidfdOpen(pid, 0)
				if errors.Is(err, unix.ESRCH) {
					// Listed, then gone before its pidfd: the orphan
					// case's inner sh exits right after its echo.
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(fd)
				fds[pid] = fd
			}
			endGroup(pgid, time.Now().Add(endLimit), procGroupMembers, awaitPidfds)
			for pid, fd := range fds {
				if n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0); n != 1 || err != nil {
					t.Errorf("member %d (of %v) has not exited when endGroup returns (%v)", pid, before, err)
				}
			}
			if left, ok := procGroupMembers(pgid); !ok || len(left) > 0 {
				t.Errorf("members alive after endGroup: %v (of %v)", left, before)
			}
		})
	}
}
