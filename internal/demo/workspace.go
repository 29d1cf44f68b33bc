package demo

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// sample is the demo's Go workspace. go.mod ships as go.mod.txt because
// go:embed refuses a folder holding a go.mod (it would be another module),
// and the folder sits under testdata so that `go build ./...` and `go vet
// ./...` never compile its deliberate error.
//
//go:embed testdata/workspace
var sample embed.FS

const sampleRoot = "testdata/workspace"

// CopySample writes the sample workspace into dir (which must exist),
// restoring go.mod from go.mod.txt.
func CopySample(dir string) error {
	return fs.WalkDir(sample, sampleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, sampleRoot), "/")
		if rel == "" {
			return nil
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, ".mod.txt")+modSuffix(rel)))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := sample.ReadFile(p)
		if err != nil {
			return fmt.Errorf("copy sample: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("copy sample: %w", err)
		}
		return nil
	})
}

// modSuffix gives go.mod.txt back its name.
func modSuffix(rel string) string {
	if strings.HasSuffix(rel, ".mod.txt") {
		return ".mod"
	}
	return ""
}

// sampleLine returns the 1-based number of the first line of the sample
// file name that contains text. The steps find their lines this way so
// that editing the sample cannot silently point them at the wrong place.
func sampleLine(name, text string) (int, error) {
	f, err := sample.Open(sampleRoot + "/" + name)
	if err != nil {
		return 0, fmt.Errorf("sample %s: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), text) {
			return n, nil
		}
	}
	return 0, fmt.Errorf("sample %s: no line contains %q", name, text)
}
