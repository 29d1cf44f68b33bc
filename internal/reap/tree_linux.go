package reap

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// descendants lists the live processes (zombies left out) below pid,
// parents before their children.
func descendants(pid int) []procfs.Stat {
	procs, err := procfs.Table()
	if err != nil {
		return nil
	}
	var out []procfs.Stat
	for _, p := range procfs.Descendants(procs, pid) {
		if !p.Gone() {
			out = append(out, p)
		}
	}
	return out
}

// signalTree sends sig to every live descendant of the guard and returns
// a pidfd of each one signalled (nil where pidfds are missing, before
// Linux 5.3; then blind says how many were signalled by pid alone). A pid
// is signalled through a pidfd opened after checking, by its start time,
// that it is still the process listed: never a stranger that got a freed
// pid.
func signalTree(sig syscall.Signal) (fds []int, blind int) {
	for _, p := range descendants(os.Getpid()) {
		fd, err := unix.PidfdOpen(p.Pid, 0)
		if errors.Is(err, unix.ENOSYS) {
			if unix.Kill(p.Pid, sig) == nil {
				blind++
			}
			continue
		}
		if err != nil {
			continue // gone
		}
		if now, ok := procfs.ReadStat(p.Pid); !ok || now.Start != p.Start ||
			unix.PidfdSendSignal(fd, sig, nil, 0) != nil {
			unix.Close(fd)
			continue
		}
		fds = append(fds, fd)
	}
	return fds, blind
}

// endTree kills the guard's descendants until none is left (or deadline
// passes). A process may fork while being killed, so the tree is listed
// again after each round has exited. Without pidfds there is no waiting
// for processes that are not the guard's children: one round is all.
func endTree(deadline time.Time) {
	for {
		fds, blind := signalTree(unix.SIGKILL)
		for _, fd := range fds {
			awaitPidfd(fd, deadline)
			unix.Close(fd)
		}
		if len(fds) == 0 || blind > 0 || !time.Now().Before(deadline) {
			return
		}
	}
}

// awaitPidfd waits until the process of pidfd fd has exited, at most
// until deadline.
func awaitPidfd(fd int, deadline time.Time) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		ms := max(time.Until(deadline).Milliseconds(), 0)
		if _, err := unix.Poll(fds, int(ms)); err != unix.EINTR {
			return
		}
	}
}
