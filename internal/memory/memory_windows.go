package memory

import (
	"math"
	"unsafe"

	"golang.org/x/sys/windows"
)

// x/sys/windows wraps neither call; both are in kernel32 (psapi's
// GetProcessMemoryInfo is K32GetProcessMemoryInfo there since Windows 7).
var (
	kernel32                 = windows.NewLazySystemDLL("kernel32.dll")
	procGlobalMemoryStatusEx = kernel32.NewProc("GlobalMemoryStatusEx")
	procGetProcessMemoryInfo = kernel32.NewProc("K32GetProcessMemoryInfo")
)

// memoryStatusEx is MEMORYSTATUSEX.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

// processMemoryCounters is PROCESS_MEMORY_COUNTERS.
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
}

func total() int64 {
	if procGlobalMemoryStatusEx.Find() != nil {
		return 0
	}
	m := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&m))); r == 0 || m.totalPhys > math.MaxInt64 {
		return 0
	}
	return int64(m.totalPhys)
}

// resident reads each process's working set: the pages of it in memory,
// shared ones included, as Linux's resident set counts them.
func resident(pids []int) map[int]int64 {
	out := make(map[int]int64, len(pids))
	if procGetProcessMemoryInfo.Find() != nil {
		return out
	}
	for _, pid := range pids {
		if n := workingSet(pid); n > 0 {
			out[pid] = n
		}
	}
	return out
}

func workingSet(pid int) int64 {
	if pid <= 0 || uint64(pid) > math.MaxUint32 {
		return 0
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_VM_READ, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	c := processMemoryCounters{cb: uint32(unsafe.Sizeof(processMemoryCounters{}))}
	if r, _, _ := procGetProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&c)), uintptr(c.cb)); r == 0 {
		return 0
	}
	return int64(c.workingSetSize)
}
