package component

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPositionFileOverCap: a position action on a workspace file over the
// file-size cap (local.max_file_size) is refused from a stat, naming the
// file's size and the cap, without reading the file: a 2 GiB file (sparse,
// so it costs no disk) allocates nothing near its size. Before, the whole
// file was read to place the position, and a 1.5 GiB one ended the process
// with "fatal error: out of memory".
func TestPositionFileOverCap(t *testing.T) {
	root := t.TempDir()
	huge := filepath.Join(root, "huge.go")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, s := startSession(t, Config{}, newFake(), root)
	for _, in := range []Input{
		{Action: "hover", File: "huge.go", Line: 1, Symbol: "x"},
		{Action: "definition", File: "huge.go", Line: 1, Column: 1},
		{Action: "references", File: huge, Line: 3, Symbol: "x"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := s.call(context.Background(), in)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s on a 2 GiB file: no error", in.Action)
		}
		for _, want := range []string{"huge.go", "2147483648 bytes", "over the cap of 10.0 MiB"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not say %q", in.Action, err, want)
			}
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: allocated %d bytes to refuse the file", in.Action, grew)
		}
	}
}
