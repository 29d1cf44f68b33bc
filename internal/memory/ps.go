package memory

import (
	"bytes"
	"math"
	"os/exec"
	"strconv"
)

// residentByPS asks /bin/ps for the resident sets of pids in one run.
// Each pid is its own -p and each column its own -o, which every ps
// (BSD's, macOS', procps') reads alike. ps exits non-zero when a pid is
// not found: the lines it printed for the others stand.
func residentByPS(pids []int) map[int]int64 {
	args := []string{"-o", "pid=", "-o", "rss="}
	for _, pid := range pids {
		args = append(args, "-p", strconv.Itoa(pid))
	}
	out, _ := exec.Command("/bin/ps", args...).Output()
	return parsePS(out)
}

// parsePS reads ps's "pid rss" lines, rss in KiB (1024-byte units on
// macOS, the BSDs and Linux alike), into bytes by pid. A line that is not
// two numbers, a pid below 1 or a size that does not fit is skipped.
func parsePS(out []byte) map[int]int64 {
	res := map[int]int64{}
	for line := range bytes.Lines(out) {
		f := bytes.Fields(line)
		if len(f) != 2 {
			continue
		}
		pid, err := strconv.Atoi(string(f[0]))
		if err != nil || pid < 1 {
			continue
		}
		kb, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			continue
		}
		res[pid] = kb * 1024
	}
	return res
}
