package demo_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/peers"
	"github.com/acp-lsp/acp-lsp/internal/test/proctest"
)

// readmeCommands returns the commands of the README's "Start" section: the
// lines of its first two ```sh blocks after the clone, in order.
func readmeCommands(t *testing.T, readme string) []string {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	inStart, inBlock := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			inStart = strings.HasPrefix(l, "## Start")
		case inStart && l == "```sh":
			inBlock = true
		case inBlock && l == "```":
			inBlock = false
		case inBlock && l != "" && !strings.HasPrefix(l, "#"):
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// TestReadmeCommands: the README's start section is a clone and exactly
// two commands, the demo then the tests (what .ci/run runs).
func TestReadmeCommands(t *testing.T) {
	cmds := readmeCommands(t, filepath.Join(peers.ModuleRoot(), "README.md"))
	if len(cmds) != 4 || !strings.HasPrefix(cmds[0], "git clone ") || !strings.HasPrefix(cmds[1], "cd ") ||
		cmds[2] != "scripts/demo.sh" || cmds[3] != "scripts/test.sh" {
		t.Fatalf("README start commands = %q, want git clone, cd, scripts/demo.sh, scripts/test.sh", cmds)
	}
}

// TestReadmeFirstCommand runs the README's first command after cloning on
// a clean clone of the committed tree, in a temporary folder, with HOME
// pointed elsewhere, and checks what the demo printed. The Go module and
// build caches are kept (the module cache is the only GOPROXY: no network), so the clone's
// scripts/setup.sh installs the pinned gopls into the clone's .cache from
// the module cache.
func TestReadmeFirstCommand(t *testing.T) {
	root := peers.ModuleRoot()
	cmds := readmeCommands(t, filepath.Join(root, "README.md"))
	if len(cmds) < 3 {
		t.Fatalf("README start commands = %q", cmds)
	}
	first := cmds[2]
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "acp-lsp")
	if out, err := exec.Command("git", "clone", "--quiet", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	goroot := goEnv("GOROOT")
	env := []string{
		"HOME=" + home,
		"PATH=" + filepath.Join(goroot, "bin") + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"GOMODCACHE=" + goEnv("GOMODCACHE"),
		"GOCACHE=" + goEnv("GOCACHE"),
		"GOFLAGS=" + goEnv("GOFLAGS"),
		"GOPATH=" + goEnv("GOPATH"),
		// The module cache as the only proxy: no network, and what
		// `go install …@version` looks up (versions, deprecations) is
		// answered from what is already downloaded.
		"GOPROXY=file://" + filepath.Join(goEnv("GOMODCACHE"), "cache", "download"),
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"TMPDIR=" + tmp,
	}
	cmd := exec.Command("bash", "-c", first)
	cmd.Dir = clone
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s (%s):\n%s", first, time.Since(start).Round(time.Second), out)
	if err != nil {
		t.Fatalf("%s: %v", first, err)
	}
	text := string(out)
	for _, w := range []string{
		"/.cache/bin/gopls (golang.org/x/tools/gopls v0.23.0)",
		"[1/5] diagnostics: what is wrong in main.go (completed",
		"cannot use Area(big) (value of type float64) as string value in variable declaration",
		"shapes.go:13:6",
		"references: 4",
		"func Area(c Circle) float64",
		"Area returns the area of the circle c.",
		"+func CircleArea(c Circle) float64 {",
		"5 steps in ",
		", 0 failed",
		"acp-lsp exited cleanly",
		"workspace removed: " + tmp,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the demo's output lacks %q", w)
		}
	}
	if _, err := os.Stat(filepath.Join(clone, ".cache", "bin", "gopls")); err != nil {
		t.Errorf("the pinned gopls was not installed into the clone: %v", err)
	}
	// The checkout is unchanged: only ignored files (.cache) were added.
	status, err := exec.Command("git", "-C", clone, "status", "--porcelain").Output()
	if err != nil || len(status) != 0 {
		t.Errorf("the clone changed: %v\n%s", err, status)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "acp-lsp-demo-*"))
	if len(left) > 0 {
		t.Errorf("temporary workspaces left: %q", left)
	}
	proctest.NoLeftovers(t, clone, 5*time.Second)
}
