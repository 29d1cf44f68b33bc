package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Spec pins the workspace module the LSP rows run on and the places they
// ask about. Places are found by text, so a line number never drifts from
// the code it names.
type Spec struct {
	Module, Version string
	// Hover: the declaration of HoverSymbol on the first line of HoverFile
	// containing HoverLine; HoverWant must be in the answer.
	HoverFile, HoverLine, HoverSymbol, HoverWant string
	// Definition: UseSymbol on the first line of UseFile containing
	// UseLine, declared on the line of DeclFile containing DeclLine.
	UseFile, UseLine, UseSymbol string
	DeclFile, DeclLine          string
	// Query is the workspace-symbol query (it must find the declaration).
	Query string
	// EditFile is the file the diagnostics row breaks, one new error per
	// run.
	EditFile string
}

// DefaultSpec is github.com/expr-lang/expr v1.17.5: 168 Go files, no
// dependencies, builds standalone.
var DefaultSpec = Spec{
	Module: "github.com/expr-lang/expr", Version: "v1.17.5",
	HoverFile: "expr.go", HoverLine: "func Compile(", HoverSymbol: "Compile",
	HoverWant: "func Compile(input string, ops ...Option) (*vm.Program, error)",
	UseFile:   "expr.go", UseLine: "checker.ParseCheck(", UseSymbol: "ParseCheck",
	DeclFile: "checker/checker.go", DeclLine: "func ParseCheck(",
	Query:    "ParseCheck",
	EditFile: "docgen/docgen.go",
}

// LargeSpec is the module of the bounded workspace-symbol row:
// google.golang.org/protobuf, about 700 Go files and one dependency.
var LargeSpec = Spec{Module: "google.golang.org/protobuf", Version: "v1.36.6"}

// Workspace is a module fetched into the bench cache.
type Workspace struct {
	Spec Spec
	// Src is the read-only module cache folder.
	Src string
	// Files counts its .go files.
	Files int
	// Env is the environment every Go tool and gopls runs with: the
	// bench's own module cache, no go.work, no toolchain download.
	Env []string
	// Extra are files (path under the copy: content) written into every
	// copy, such as a project's tsconfig.json.
	Extra map[string]string
}

// Fetch downloads spec's module with `go mod download -json` into
// cache/gomod (once; later runs reuse it) and its dependencies.
func Fetch(ctx context.Context, cache string, spec Spec, baseEnv []string) (*Workspace, error) {
	gomod := filepath.Join(cache, "gomod")
	env := append(append([]string{}, baseEnv...), "GOMODCACHE="+gomod, "GOFLAGS=-mod=mod -modcacherw", "GOWORK=off", "GOTOOLCHAIN=local")
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", spec.Module+"@"+spec.Version)
	cmd.Env = env
	cmd.Dir = cache
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("fetch %s@%s: %w: %s%s", spec.Module, spec.Version, err, out, stderr.Bytes())
	}
	var info struct {
		Dir   string
		Error string
	}
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		return nil, fmt.Errorf("fetch %s@%s: no folder in %s (%v)", spec.Module, spec.Version, out, err)
	}
	w := &Workspace{Spec: spec, Src: info.Dir, Env: env}
	filepath.WalkDir(info.Dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			w.Files++
		}
		return nil
	})
	// Dependencies, for a module that has any, so gopls type-checks it.
	dl := exec.CommandContext(ctx, "go", "mod", "download")
	dl.Env = env
	dl.Dir = info.Dir
	if out, err := dl.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("fetch dependencies of %s: %w: %s", spec.Module, err, out)
	}
	return w, nil
}

// Copy makes a fresh writable copy of the module under dir/name (removing
// what a previous run left there) and returns its absolute path, symbolic
// links resolved.
func (w *Workspace) Copy(dir, name string) (string, error) {
	dst := filepath.Join(dir, name)
	if err := os.RemoveAll(dst); err != nil {
		return "", fmt.Errorf("copy workspace: %w", err)
	}
	err := filepath.WalkDir(w.Src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.Src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("copy workspace: %w", err)
	}
	for name, text := range w.Extra {
		if err := os.WriteFile(filepath.Join(dst, name), []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("copy workspace: %w", err)
		}
	}
	return filepath.EvalSymlinks(dst)
}

// Locate fills a Target from the spec by reading the copied workspace.
func Locate(root string, spec Spec) (*Target, error) {
	t := &Target{HoverFile: spec.HoverFile, HoverSymbol: spec.HoverSymbol, HoverWant: spec.HoverWant,
		UseFile: spec.UseFile, UseSymbol: spec.UseSymbol, DeclFile: spec.DeclFile,
		Query: spec.Query, EditFile: spec.EditFile}
	var err error
	if t.HoverLine, t.HoverChar, err = find(root, spec.HoverFile, spec.HoverLine, spec.HoverSymbol); err != nil {
		return nil, err
	}
	if t.UseLine, t.UseChar, err = find(root, spec.UseFile, spec.UseLine, spec.UseSymbol); err != nil {
		return nil, err
	}
	if t.DeclLine, t.DeclChar, err = find(root, spec.DeclFile, spec.DeclLine, spec.UseSymbol); err != nil {
		return nil, err
	}
	return t, nil
}

// find returns the 1-based line of the first line of file containing
// text, and the 0-based column of symbol on it (ASCII: bytes are UTF-16
// units).
func find(root, file, text, symbol string) (int, int, error) {
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return 0, 0, fmt.Errorf("locate %s: %w", file, err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, text) {
			col := strings.Index(line, symbol)
			if col < 0 {
				return 0, 0, fmt.Errorf("locate %s: %q not on line %d", file, symbol, i+1)
			}
			return i + 1, col, nil
		}
	}
	return 0, 0, fmt.Errorf("locate %s: no line contains %q", file, text)
}
