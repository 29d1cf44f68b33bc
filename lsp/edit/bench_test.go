package edit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkApplyRename applies (and then reverts, untimed) a rename touching
// 20 files of 500 lines, 10 occurrences each, as a language server sends it.
func BenchmarkApplyRename(b *testing.B) {
	dir := b.TempDir()
	var line strings.Builder
	line.WriteString("\tvalue := compute(alpha, beta) // 日本 😀\n")
	files := map[string]string{}
	we := &WorkspaceEdit{Changes: map[string][]TextEdit{}}
	back := &WorkspaceEdit{Changes: map[string][]TextEdit{}}
	for f := 0; f < 20; f++ {
		name := filepath.Join(dir, fmt.Sprintf("f%02d.go", f))
		files[name] = strings.Repeat(line.String(), 500)
		if err := os.WriteFile(name, []byte(files[name]), 0o644); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			l := uint32(i * 50)
			we.Changes[URIFromPath(name)] = append(we.Changes[URIFromPath(name)], te(l, 18, l, 23, "omega"))
			back.Changes[URIFromPath(name)] = append(back.Changes[URIFromPath(name)], te(l, 18, l, 23, "alpha"))
		}
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := Apply(ctx, we, Options{Root: dir}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := Apply(ctx, back, Options{Root: dir}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
