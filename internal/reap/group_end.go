//go:build unix

package reap

import (
	"time"

	"golang.org/x/sys/unix"
)

// endLimit bounds how long the tree a child leaves is waited for once
// killed: a process in uninterruptible sleep (a hung network file system)
// dies only when it wakes, and one running as another user (sudo) cannot
// be killed at all. Kill returns then, leaving those.
const endLimit = 5 * time.Second

// endGroup kills the process group pgid and returns once none of its
// members is alive (or deadline passes). members lists the live ones (ok
// false: they cannot be listed, so the one kill is all); await returns
// once each of pids has exited. A member may fork while being killed, so
// the group is killed and listed again after each round has exited.
func endGroup(pgid int, deadline time.Time, members func(pgid int) (pids []int, ok bool), await func(pids []int, deadline time.Time)) {
	for {
		_ = unix.Kill(-pgid, unix.SIGKILL)
		pids, ok := members(pgid)
		if !ok || len(pids) == 0 || !time.Now().Before(deadline) {
			return
		}
		await(pids, deadline)
	}
}
