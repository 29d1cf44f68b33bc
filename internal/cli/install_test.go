package cli

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
)

const modulePath = "github.com/acp-lsp/acp-lsp"

// goEnv returns this process's environment without the go command's own
// variables, plus kv.
func goEnv(kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GO") {
			env = append(env, e)
		}
	}
	return append(env, kv...)
}

func goEnvVar(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// TestGoInstallVersion installs acp-lsp the way the README tells a user,
// `go install github.com/acp-lsp/acp-lsp/cmd/acp-lsp@VERSION`, into a
// clean GOPATH, with the module served by a file proxy built from the
// committed tree (dependencies from the local module cache, so no
// network), and checks that --version prints VERSION.
func TestGoInstallVersion(t *testing.T) {
	const version = "v0.0.1-installtest"
	root := peers.ModuleRoot()
	proxyDir := t.TempDir()
	writeProxyModule(t, root, proxyDir, version)

	gopath := t.TempDir()
	gobin := filepath.Join(gopath, "bin")
	modcache := goEnvVar(t, "GOMODCACHE")
	cmd := exec.Command("go", "install", modulePath+"/cmd/acp-lsp@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = goEnv(
		"GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN="+gobin,
		"GOCACHE="+goEnvVar(t, "GOCACHE"),
		"GOPROXY=file://"+proxyDir+",file://"+filepath.Join(modcache, "cache", "download"),
		// The dependencies compile again (their folder is new, and it is
		// part of the build cache's keys): a minute or two on 2 cores.
		// -trimpath would avoid that on later runs only, at the price of
		// rebuilding the standard library on the first.
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=",
		"HOME="+t.TempDir(),
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	// go leaves the fresh module cache read-only; clean it so that the
	// test's temporary folder can be removed.
	t.Cleanup(func() {
		c := exec.Command("go", "clean", "-modcache")
		c.Env = goEnv("GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOTOOLCHAIN=local")
		c.Run()
	})
	out, err := exec.Command(filepath.Join(gobin, "acp-lsp"), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("acp-lsp --version: %v\n%s", err, out)
	}
	if got, want := string(out), "acp-lsp "+version+"\n"; got != want {
		t.Errorf("acp-lsp --version = %q, want %q", got, want)
	}
}

// TestInstallFromCheckout: `go install ./cmd/acp-lsp` from the checkout
// prints the same main-module version that `go version -m` reads from the
// binary.
func TestInstallFromCheckout(t *testing.T) {
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/acp-lsp")
	cmd.Dir = peers.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "acp-lsp")
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	want := ""
	for _, l := range strings.Split(string(meta), "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "mod" && f[1] == modulePath {
			want = f[2]
		}
	}
	if want == "" {
		t.Fatalf("no main module in go version -m:\n%s", meta)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "acp-lsp "+want {
		t.Errorf("--version = %q, want %q", got, "acp-lsp "+want)
	}
}

// writeProxyModule writes the committed tree of the module at root as
// version into a GOPROXY folder: @v/list, .info, .mod and .zip. Folders
// holding another go.mod (test fixtures) are left out, as the go command
// does.
func writeProxyModule(t *testing.T, root, proxyDir, version string) {
	t.Helper()
	archive := exec.Command("git", "archive", "--format=tar", "HEAD")
	archive.Dir = root
	tarball, err := archive.Output()
	if err != nil {
		t.Fatalf("git archive: %v", err)
	}
	files := map[string][]byte{}
	nested := map[string]bool{}
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
		if path.Base(h.Name) == "go.mod" && h.Name != "go.mod" {
			nested[path.Dir(h.Name)] = true
		}
	}
	inNested := func(name string) bool {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if nested[d] {
				return true
			}
		}
		return false
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	prefix := modulePath + "@" + version + "/"
	for name, b := range files {
		if inNested(name) {
			continue
		}
		w, err := zw.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxyDir, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-11-23T00:00:00Z"}`),
		version + ".mod":  files["go.mod"],
		version + ".zip":  zbuf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
