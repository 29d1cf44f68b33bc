package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const sysPidfdOpen = 434

// serverProcAttr puts a server in its own process group, so it is ended
// as a group, and has the kernel kill it should acp-lsp die without
// ending it (SIGKILL from an editor that lost patience: acpx sends it
// 1.6 s after closing the agent's input). Its own group would otherwise
// keep it running, orphaned. The signal follows the thread that started
// it; Go ends no thread but one locked by a goroutine that exits, and
// acp-lsp locks none.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// awaitGroup waits until no live process is left in process group pgid
// (after it was sent SIGKILL), at most limit. Members that are not our
// children (a server's own children, reparented when it exited) cannot be
// waited for with wait4, so each one is watched through a pidfd, which
// becomes readable when the process exits.
func awaitGroup(pgid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for _, pid := range groupPIDs(pgid) {
		fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
		if errno != 0 {
			continue // already gone
		}
		left := time.Until(deadline)
		if left > 0 {
			var set syscall.FdSet
			set.Bits[int(fd)/64] |= 1 << (uint(fd) % 64)
			tv := syscall.NsecToTimeval(left.Nanoseconds())
			_, _ = syscall.Select(int(fd)+1, &set, nil, nil, &tv)
		}
		syscall.Close(int(fd))
	}
}

// groupPIDs lists live (non-zombie) processes of group pgid from /proc.
func groupPIDs(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	want := strconv.Itoa(pgid)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[0] != "Z" && f[2] == want {
			out = append(out, pid)
		}
	}
	return out
}
