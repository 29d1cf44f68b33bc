package reap

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// guardHold is Linux's: the guard is a child subreaper, so every orphan
// of the child's tree is reparented to it and ends with it, also a
// process that left the child's group; the child dies with the guard
// should the guard be killed (Pdeathsig).
var guardHold = hold{
	prepare: func() error {
		// Named in ps and top as it is in its command line, not "exe".
		_ = os.WriteFile("/proc/self/comm", []byte(GuardName), 0)
		return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	},
	attr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	end:  func(_ int, deadline time.Time) { endTree(deadline) },
}

// guardExe is the binary run again as the guard: this very binary, even
// if replaced on disk since.
func guardExe() (string, error) { return "/proc/self/exe", nil }

// ignoredSignals is the set of signals this process ignores (bit n-1 for
// signal n), from /proc/self/status; the Go runtime knows of some only.
func ignoredSignals() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nSigIgn:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 64)
	if err != nil {
		return 0
	}
	return mask
}
