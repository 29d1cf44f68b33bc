package reap

import (
	"os"

	"golang.org/x/sys/unix"
)

// guardHold is macOS's: no subreaper there, so the guard holds the
// child's process group, listed by sysctl and awaited by kqueue
// (pgrp_darwin.go). A process that left the group escapes; so does the
// child should the guard itself be killed (no Pdeathsig).
var guardHold = groupHold(groupMembers, awaitExits)

// guardExe is the binary run again as the guard: the path this one was
// started from (no /proc/self/exe here), so a binary replaced on disk
// since runs its successor as the guard.
func guardExe() (string, error) { return os.Executable() }

// ignoredSignals is the set of signals this process ignores (bit n-1 for
// signal n): the kernel's p_sigignore, read by sysctl (kern.proc.pid, as
// ps reads it for its "ignored" column), for there is no
// /proc/self/status; the Go runtime knows of some only.
func ignoredSignals() uint64 {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil {
		return 0
	}
	return uint64(kp.Proc.P_sigignore)
}
