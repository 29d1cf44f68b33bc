package memory

import "github.com/acp-lsp/acp-lsp/internal/procfs"

func total() int64 { return procfs.MemTotal() }

func resident(pids []int) map[int]int64 {
	out := make(map[int]int64, len(pids))
	for _, pid := range pids {
		if n := procfs.RSS(pid); n > 0 {
			out[pid] = n
		}
	}
	return out
}
