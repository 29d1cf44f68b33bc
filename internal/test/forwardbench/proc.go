package forwardbench

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// acplspProcesses returns root and its descendants that run binary (the
// conductor's external proxies are its children; the agent is not
// counted).
func acplspProcesses(root int, binary string) []int {
	procs, err := procfs.Table()
	if err != nil {
		return nil
	}
	tree := procfs.Descendants(procs, root)
	if p, ok := procs[root]; ok {
		tree = append(tree, p)
	}
	want, _ := filepath.EvalSymlinks(binary)
	var out []int
	for _, p := range tree {
		exe, err := os.Readlink("/proc/" + strconv.Itoa(p.Pid) + "/exe")
		if err != nil || (exe != binary && exe != want) {
			continue
		}
		out = append(out, p.Pid)
	}
	return out
}

// procCPU returns the user+system CPU time pid has used.
func procCPU(pid int) time.Duration {
	p, ok := procfs.ReadStat(pid)
	if !ok {
		return 0
	}
	return time.Duration(p.CPU) * time.Second / procfs.TicksPerSecond
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
