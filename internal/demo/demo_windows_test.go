package demo_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/demo"
)

// TestSampleDemoOnWindows runs the demo as TestSampleDemo does, as Windows
// programs (scripts/wine.sh runs it under Wine): acp-lsp.exe in front of
// its scripted agent, each in a job object, talking over pipes, the agent
// reaching the lsp tool over HTTP, and a Windows gopls.exe (with its
// go.exe, scripts/setup.sh windows-gopls) found on PATH as Windows finds a
// command, answering about the sample in a Windows temporary folder.
func TestSampleDemoOnWindows(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "acp-lsp.exe")
	copyFile(t, exe)
	var out, logs bytes.Buffer
	rep, err := demo.Run(context.Background(), demo.Options{
		Chain:  []string{exe, "-log-level", "warn", "--", exe, "agent", "-log-level", "warn"},
		Out:    &out,
		Stderr: &logs,
		Env:    env("acp-lsp", dir+string(os.PathListSeparator)+os.Getenv("PATH")),
	})
	checkSample(t, rep, err, &out, &logs)
	if filepath.VolumeName(rep.Workspace) == "" {
		t.Errorf("workspace %s: not a Windows path", rep.Workspace)
	}
	if filepath.VolumeName(rep.Gopls) == "" || !strings.EqualFold(filepath.Ext(rep.Gopls), ".exe") {
		t.Errorf("gopls %s: not a Windows program's path", rep.Gopls)
	}
}

// copyFile copies this test binary to exe, where TestSampleDemo links it:
// Windows runs a program by its .exe name, and links need a privilege.
func copyFile(t *testing.T, exe string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	o, err := os.Create(exe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
}
