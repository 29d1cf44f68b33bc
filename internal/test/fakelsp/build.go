package fakelsp

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// BuildTo compiles cmd/fakelsp into dir and returns the binary's path. It
// suits TestMain, where there is no testing.TB; the caller removes dir.
// The binary is built under a temporary name and renamed into place, so
// test binaries sharing dir never run a half-written file.
func BuildTo(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	pkg := filepath.Join(filepath.Dir(file), "cmd", "fakelsp")
	bin := filepath.Join(dir, "fakelsp")
	tmp, err := os.CreateTemp(dir, ".fakelsp-*")
	if err != nil {
		return "", fmt.Errorf("fakelsp: build: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-o", tmp.Name(), ".")
	cmd.Dir = pkg
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("fakelsp: go build: %w\n%s", err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", fmt.Errorf("fakelsp: build: %w", err)
	}
	return bin, nil
}

// PrebuiltEnv names a fake server binary built beforehand, which Build
// returns instead of compiling one: a test binary run where no Go
// toolchain is (Windows under Wine, scripts/wine.sh) uses it.
const PrebuiltEnv = "ACP_LSP_FAKELSP"

// Build compiles cmd/fakelsp into a temporary folder of t and returns the
// binary's path (PrebuiltEnv's, when set).
func Build(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(PrebuiltEnv); bin != "" {
		return bin
	}
	bin, err := BuildTo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Args returns the arguments that run the binary with the script file and
// the record file (appended to, so respawned processes share it).
func Args(scriptPath, recordPath string) []string {
	return []string{"-script", scriptPath, "-record", recordPath}
}

// Alive reports the live processes (pid list) whose process group is pgid,
// read from /proc: after a client has shut a subprocess down it must be
// empty. Processes that can no longer run count as gone: zombies (their
// parent has yet to reap them), processes already exiting, and processes
// with SIGKILL pending, which the kernel delivers asynchronously to the
// other members of a killed group.
func Alive(pgid int) ([]int, error) {
	procs, err := procfs.Table()
	if err != nil {
		return nil, fmt.Errorf("fakelsp: %w", err)
	}
	var out []int
	for _, pid := range slices.Sorted(maps.Keys(procs)) {
		st := procs[pid]
		if st.Pgrp != pgid || st.Gone() || st.Flags&pfExiting != 0 {
			continue
		}
		if status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status")); err == nil && killPending(string(status)) {
			continue
		}
		out = append(out, pid)
	}
	return out, nil
}

// pfExiting is the kernel's PF_EXITING task flag.
const pfExiting = 0x4

// killPending reports whether /proc/PID/status shows SIGKILL (signal 9,
// bit 8 of the masks) pending for the thread or its group.
func killPending(status string) bool {
	for line := range strings.Lines(status) {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		if err == nil && mask&(1<<8) != 0 {
			return true
		}
	}
	return false
}
