package config

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stdinChildEnv makes TestConfigFileStdinChild run: it names the folder to
// load.
const stdinChildEnv = "CONFIG_TEST_STDIN_CHILD"

// TestConfigFileIsNotStdin: a user or project file that is a symlink to
// /dev/stdin is refused without reading a byte of acp-lsp's standard
// input, which carries the editor's ACP messages. A child process loads
// the configuration with a pipe as its stdin and then reports what is
// left on it.
func TestConfigFileIsNotStdin(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "/dev/stdin", filepath.Join(ws, ProjectFileName))
	symlink(t, "/dev/stdin", filepath.Join(dir, "config.toml"))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const msg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	cmd := exec.Command(self, "-test.run", "^TestConfigFileStdinChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), stdinChildEnv+"="+dir)
	cmd.Stdin = strings.NewReader(msg)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s%s", err, out, stderr.String())
	}
	for _, want := range []string{
		"load error: config: read user file: open " + filepath.Join(dir, "config.toml") + ": not a regular file (a named pipe)",
		"config: read project file: open " + filepath.Join(ws, ProjectFileName) + ": not a regular file (a named pipe)",
		"stdin after load: " + msg,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child's report lacks %q:\n%s", want, out)
		}
	}
}

// TestConfigFileStdinChild is the child of TestConfigFileIsNotStdin; it
// does nothing unless started by it.
func TestConfigFileStdinChild(t *testing.T) {
	dir := os.Getenv(stdinChildEnv)
	if dir == "" {
		return
	}
	_, err := Load(Options{
		UserFile:  filepath.Join(dir, "config.toml"),
		Workspace: filepath.Join(dir, "ws"),
		StateDir:  filepath.Join(dir, "state"),
		Getenv:    func(string) string { return "" },
	})
	rest, rerr := io.ReadAll(os.Stdin)
	if rerr != nil {
		t.Fatal(rerr)
	}
	fmt.Printf("load error: %v\nstdin after load: %s", err, rest)
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
