package forwardbench

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// acplspProcesses returns root and its descendants that run binary (the
// conductor's external proxies are its children; the agent is not
// counted).
func acplspProcesses(root int, binary string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			parent[pid] = ppid
		}
	}
	want, _ := filepath.EvalSymlinks(binary)
	var out []int
	for pid := range parent {
		isDesc := false
		for p, n := pid, 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				isDesc = true
				break
			}
		}
		if !isDesc {
			continue
		}
		exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		if err != nil || (exe != binary && exe != want) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// statFields returns the fields of /proc/pid/stat after the command name
// (field 3, the state, is index 0).
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// clockTick is USER_HZ, 100 on every Linux platform Go supports.
const clockTick = 100

// procCPU returns the user+system CPU time pid has used.
func procCPU(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTick
}

// procMemory returns pid's resident set and its peak, in bytes.
func procMemory(pid int) (rss, hwm int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &rss
		case "VmHWM":
			dst = &hwm
		default:
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		*dst = kb << 10
	}
	return rss, hwm
}

// liveHeap returns the bytes of live Go heap objects after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
