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
		Calls: 5, InProcess: 400 * time.Microsecond, ThroughHost: 440 * time.Microsecond,
		ToolOwn: 2000 * time.Microsecond, ToolShared: 2100 * time.Microsecond}
	for _, right := range []bool{true, false} {
		s.Right = right
		var b strings.Builder
		s.markdown(&b)
		md := b.String()
		for _, want := range []string{"| 3x4, shared | 1 | 105 | 1.05x |", "| 3x4, not shared | 3 | 300 | 3.00x |",
			"| first question's wait, prewarm | 1.00 s | 0.05x |", "| through the host (`serverhost.Client`) | 440 µs | 1.10x |",
			"(go-sdk client, HTTP)", "| `local.shared = true` | 2100 µs | 1.05x |"} {
			if !strings.Contains(md, want) {
				t.Errorf("right %v: no %q in\n%s", right, want, md)
			}
		}
		if got := strings.Contains(md, "was not right"); got == right {
			t.Errorf("right %v: says not right %v", right, got)
		}
	}
	// A tool row that could not be measured says why instead of a ratio.
	s.ToolErr = "lsp tool hover (shared true): boom"
	var b strings.Builder
	s.markdown(&b)
	if md := b.String(); !strings.Contains(md, "**Not measured: lsp tool hover (shared true): boom**") || strings.Contains(md, "local.shared = true` |") {
		t.Errorf("tool row not measured, yet:\n%s", md)
	}
}
