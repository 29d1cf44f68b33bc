package memory

import (
	"math"

	"golang.org/x/sys/unix"
)

func total() int64 {
	n, err := unix.SysctlUint64("hw.memsize")
	if err != nil || n > math.MaxInt64 {
		return 0
	}
	return int64(n)
}

// resident runs /bin/ps once for all of pids. Another process's resident
// set is proc_pidinfo(PROC_PIDTASKINFO) in libproc, which Go reaches only
// with cgo or a raw system call trap (not a stable interface on macOS,
// which is why Go calls libSystem since 1.12); task_for_pid needs
// privileges; sysctl's kinfo_proc leaves the memory fields zero. ps reads
// proc_pidinfo for us, at the cost of one fork and exec per check.
func resident(pids []int) map[int]int64 { return residentByPS(pids) }
