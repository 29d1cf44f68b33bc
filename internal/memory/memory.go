// Package memory reads the memory of this machine (Total) and the
// resident memory of processes (Resident), on each platform its own way:
// Linux from /proc (internal/procfs), macOS from sysctl hw.memsize and one
// run of /bin/ps for all the processes asked about, Windows from
// GlobalMemoryStatusEx and GetProcessMemoryInfo's working set. Elsewhere
// both are unknown (0, none). lsp's memory budget and the servers' status
// read it.
package memory

import "slices"

// Total returns the machine's physical memory in bytes (0 when unknown).
func Total() int64 { return total() }

// Resident returns the resident memory in bytes of each of pids that
// could be read; a pid that has ended, or that could not be read, is
// absent (reads as 0). A missing process is no error: a server may end
// between being listed and being read. A pid below 1 is no process here
// (a server reached over a connection has pid 0), though macOS and
// Windows number one 0. On macOS it is one run of /bin/ps for all of
// pids, so ask once for every process of a check.
func Resident(pids ...int) map[int]int64 {
	pids = slices.DeleteFunc(slices.Clone(pids), func(pid int) bool { return pid < 1 })
	if len(pids) == 0 {
		return map[int]int64{}
	}
	return resident(pids)
}
