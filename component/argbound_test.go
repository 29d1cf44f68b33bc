package component

import (
	"context"
	"strings"
	"testing"
)

// TestPathArgumentsBounded: a file argument or a diagnostics glob longer
// than any path can be (4096 bytes, Linux's PATH_MAX) is refused at once,
// naming its length and the bound, before any resolution or walk: a
// 40,000-byte file took 3.4 s to resolve, and a 1 MiB one kept running
// after the client had gone. One of exactly 4096 bytes goes on to the
// system (which finds it too long below the workspace folder).
func TestPathArgumentsBounded(t *testing.T) {
	_, s := startSession(t, Config{}, newFake(), t.TempDir())
	long := func(n int, tail string) string { return strings.Repeat("a/", (n-len(tail))/2) + tail }
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		{"file at the bound", Input{Action: "hover", File: long(4096, "x.go"), Line: 1, Symbol: "x"}, "file name too long"},
		{"file over the bound", Input{Action: "hover", File: long(4098, "x.go"), Line: 1, Symbol: "x"}, "path of 4098 bytes is longer than any file path can be (4096 bytes)"},
		{"1 MiB file", Input{Action: "definition", File: long(1<<20, "x.go"), Line: 1, Symbol: "x"}, "path of 1048576 bytes is longer than any file path"},
		{"diagnostics file", Input{Action: "diagnostics", File: long(40000, "x.go")}, "path of 40000 bytes is longer than any file path"},
		{"glob over the bound", Input{Action: "diagnostics", File: long(4098, "*.go")}, "glob of 4098 bytes is longer than any file path can be (4096 bytes)"},
		{"symbols file", Input{Action: "symbols", File: long(5000, "x.go")}, "path of 5000 bytes is longer than any file path"},
	} {
		_, err := s.call(context.Background(), tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %.200v; want an error saying %q", tc.name, err, tc.want)
		}
	}
}
