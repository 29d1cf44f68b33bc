package reap

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// szomb is a zombie's p_stat (SZOMB in sys/proc.h): exited already.
const szomb = 5

// groupMembers lists the live members of process group pgid by sysctl
// (kern.proc.pgrp): macOS has no /proc.
func groupMembers(pgid int) ([]int, bool) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, false
	}
	var pids []int
	for _, p := range procs {
		if p.Proc.P_stat != szomb {
			pids = append(pids, int(p.Proc.P_pid))
		}
	}
	return pids, true
}

// awaitExits returns once each of pids has exited (or deadline passes):
// a kqueue tells each exit (EVFILT_PROC, NOTE_EXIT), and a pid that has
// gone already fails to register (ESRCH, in its receipt).
func awaitExits(pids []int, deadline time.Time) {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	changes := make([]unix.Kevent_t, len(pids))
	for i, pid := range pids {
		unix.SetKevent(&changes[i], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT|unix.EV_RECEIPT)
		changes[i].Fflags = unix.NOTE_EXIT
	}
	events := make([]unix.Kevent_t, len(pids))
	n, err := unix.Kevent(kq, changes, events, nil)
	if err != nil {
		return
	}
	pending := 0
	for _, ev := range events[:n] {
		if ev.Flags&unix.EV_ERROR != 0 && ev.Data == 0 {
			pending++ // registered
		}
	}
	for pending > 0 {
		ts := unix.NsecToTimespec(max(time.Until(deadline), 0).Nanoseconds())
		n, err := unix.Kevent(kq, nil, events, &ts)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return // failed, or the deadline passed
		}
		pending -= n
	}
}
