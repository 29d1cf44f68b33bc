package bench

import (
	"strings"
	"testing"
	"time"
)

// TestSharedMarkdown: the shared rows state each figure against its
// reference (one session's memory, the server's load, the in-process
// call), and an answer that was not right is said, not hidden.
func TestSharedMarkdown(t *testing.T) {
	s := &SharedResult{Procs: 3, Sessions: 4, OneRSS: 100 << 20, SharedRSS: 105 << 20, OwnRSS: 300 << 20, SharedServers: 1, OwnServers: 3,
		LoadModule: "m@v", LoadFiles: 10, Delay: 3 * time.Second, Load: 20 * time.Second, WaitCold: 17 * time.Second, WaitWarm: time.Second,
		Calls: 5, InProcess: 400 * time.Microsecond, ThroughHost: 440 * time.Microsecond}
	for _, right := range []bool{true, false} {
		s.Right = right
		var b strings.Builder
		s.markdown(&b)
		md := b.String()
		for _, want := range []string{"| 3x4, shared | 1 | 105 | 1.05x |", "| 3x4, not shared | 3 | 300 | 3.00x |",
			"| first question's wait, prewarm | 1.00 s | 0.05x |", "| through the host (`serverhost.Client`) | 440 µs | 1.10x |"} {
			if !strings.Contains(md, want) {
				t.Errorf("right %v: no %q in\n%s", right, want, md)
			}
		}
		if got := strings.Contains(md, "was not right"); got == right {
			t.Errorf("right %v: says not right %v", right, got)
		}
	}
}
