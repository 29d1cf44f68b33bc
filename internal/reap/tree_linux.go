package reap

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is a process as /proc/PID/stat describes it.
type proc struct {
	pid, ppid int
	state     byte
	start     uint64 // clock ticks after boot: with the pid, names the process
}

// parseStat reads the fields of /proc/PID/stat that tell the tree. The
// command name (in parentheses) may hold anything, parentheses and spaces
// included: the fields are counted from the last ')'.
func parseStat(b []byte) (proc, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	head, _, _ := bytes.Cut(b, []byte(" ("))
	f := bytes.Fields(b[i+1:])
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	pid, err1 := strconv.Atoi(string(head))
	ppid, err2 := strconv.Atoi(string(f[1]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, state: f[0][0], start: start}, true
}

func readStat(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	return parseStat(b)
}

// descendants lists the live processes (zombies left out) below pid.
func descendants(pid int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]proc{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(n); ok {
			kids[p.ppid] = append(kids[p.ppid], p)
		}
	}
	var out []proc
	for queue := kids[pid]; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if p.state != 'Z' && p.state != 'X' {
			out = append(out, p)
		}
		queue = append(queue, kids[p.pid]...)
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
		fd, err := unix.PidfdOpen(p.pid, 0)
		if errors.Is(err, unix.ENOSYS) {
			if unix.Kill(p.pid, sig) == nil {
				blind++
			}
			continue
		}
		if err != nil {
			continue // gone
		}
		if now, ok := readStat(p.pid); !ok || now.start != p.start ||
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
