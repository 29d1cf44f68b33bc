package proxy

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// retained is the heap memory the process holds from the OS: in use, or
// free but not given back.
func retained() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.HeapIdle - ms.HeapReleased
}

// TestLineOverCapMemory: a line over the cap is skipped having held no
// more than the cap, and what it held goes back to the OS (issue 18,
// item 13: a line over the 256 MiB cap cost 823 MiB, which stayed
// resident). Allocation is counted, not timed.
func TestLineOverCapMemory(t *testing.T) {
	const max = 8 << 20
	for _, tc := range []struct {
		name string
		size int
	}{
		{"just over the cap", max + 1},
		{"far over the cap", 5 * max},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in bytes.Buffer
			in.WriteString(`{"s":"`)
			in.WriteString(strings.Repeat("a", tc.size))
			in.WriteString("\"}\n{\"next\":1}\n")
			lr := NewLineReader(&in, max)
			debug.FreeOSMemory()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			held := retained()

			_, err := lr.ReadLine()
			if !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("ReadLine = %v, want ErrLineTooLong", err)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > max+max/2 {
				t.Errorf("skipping a line of %d bytes over a cap of %d allocated %d bytes", tc.size, max, got)
			}
			if got := retained(); got > held+1<<20 {
				t.Errorf("after skipping the line the heap holds %d bytes more than before", got-held)
			}
			line, err := lr.ReadLine()
			if err != nil || string(line) != `{"next":1}` {
				t.Fatalf("the next line: %q, %v", line, err)
			}
			if _, err := lr.ReadLine(); err != io.EOF {
				t.Fatalf("then %v, want EOF", err)
			}
		})
	}
}
