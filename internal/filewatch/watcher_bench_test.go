package filewatch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchTree makes dirs folders of 5 files each under a fresh root.
func benchTree(b *testing.B, dirs int) string {
	b.Helper()
	root := b.TempDir()
	for i := range dirs {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("e%04d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 5 {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", j)), []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkWatcherDrain is the cost every request pays before it goes
// out: draining a watcher of 1,000 folders with nothing changed, and with
// one file written since the last drain.
func BenchmarkWatcherDrain(b *testing.B) {
	root := benchTree(b, 1000)
	for kind, make := range map[string]func() Watcher{
		"platform": func() Watcher {
			w, err := New(DefaultMaxDirs)
			if err != nil {
				b.Fatal(err)
			}
			return w
		},
		"scan": func() Watcher { return NewScan(DefaultMaxDirs) },
	} {
		for _, write := range []bool{false, true} {
			name := kind + "/idle"
			if write {
				name = kind + "/one-write"
			}
			b.Run(name, func(b *testing.B) {
				w := make()
				defer w.Close()
				w.Add(root)
				file := filepath.Join(root, "d00", "e0000", "f0.go")
				for b.Loop() {
					if write {
						b.StopTimer()
						if err := os.WriteFile(file, []byte("package p\n"), 0o644); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					evs, _ := w.Drain()
					if write && len(evs) != 1 {
						b.Fatalf("%d events after one write", len(evs))
					}
				}
			})
		}
	}
}

// BenchmarkWatcherAdd is the one-time cost of watching a workspace of
// 1,000 folders (paid when its first server starts).
func BenchmarkWatcherAdd(b *testing.B) {
	root := benchTree(b, 1000)
	for b.Loop() {
		w, err := New(DefaultMaxDirs)
		if err != nil {
			b.Fatal(err)
		}
		w.Add(root)
		if st := w.Status(); st.Dirs != 1051 {
			b.Fatalf("%d folders watched, want 1051", st.Dirs)
		}
		w.Close()
	}
}
