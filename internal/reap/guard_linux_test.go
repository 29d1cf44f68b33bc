package reap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acp-lsp/acp-lsp/internal/procfs"
)

// errText is err's message ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestGuardReportsExit: how a child ended reaches acp-lsp through the
// guard as it would had acp-lsp started the child itself, and as an
// *ExitError for anything but status 0.
func TestGuardReportsExit(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"exit 0", ""},
		{"exit 3", "exit status 3"},
		{"kill -TERM $$", "signal: terminated"},
		{"kill -KILL $$", "signal: killed"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			direct := exec.Command("sh", "-c", tc.script).Run()
			c, err := Start(exec.Command("sh", "-c", tc.script))
			if err != nil {
				t.Fatal(err)
			}
			got := c.Wait()
			c.Kill()
			<-c.Gone()
			if errText(got) != tc.want || errText(direct) != tc.want {
				t.Errorf("Wait: %v, started directly: %v; want %q", got, direct, tc.want)
			}
			var ee *ExitError
			if (tc.want != "") != errors.As(got, &ee) {
				t.Errorf("Wait: %#v, want an *ExitError exactly when the status is not 0", got)
			}
		})
	}
}

// TestGuardStartErrors: a child that cannot be started fails Start as it
// fails exec.Cmd.Start in a process group of its own.
func TestGuardStartErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"not executable", func() *exec.Cmd { return exec.Command(notExec) }},
		{"no such folder", func() *exec.Cmd {
			c := exec.Command("true")
			c.Dir = filepath.Join(dir, "missing")
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := tc.cmd()
			direct.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			want := direct.Start()
			c, err := Start(tc.cmd())
			if err == nil {
				c.Kill()
				<-c.Gone()
			}
			if want == nil || errText(err) != errText(want) {
				t.Errorf("Start: %v, want %v", err, want)
			}
		})
	}
}

// TestGuardLetsGoOfStdio: the guard does not hold the child's stdio, so
// a child that closes its output is seen to (end of file), and writing to
// a child that closed its input fails (rather than filling the pipe).
func TestGuardLetsGoOfStdio(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exec 0<&-; echo closed; exec 1>&-; exec sleep 1000")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.Kill()
		<-c.Gone()
	}()
	// Checked first, as the checks below would block for good.
	p, ok := procfs.ReadStat(c.Pid())
	if !ok {
		t.Fatalf("no /proc/%d/stat", c.Pid())
	}
	for fd := range 3 {
		if f, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", p.PPid, fd)); err != nil || f != os.DevNull {
			t.Fatalf("the guard's fd %d is %q (%v), want %s", fd, f, err, os.DevNull)
		}
	}
	if b, err := io.ReadAll(out); string(b) != "closed\n" || err != nil {
		t.Fatalf("the child's output: %q, %v; want its line, then the end", b, err)
	}
	if _, err := in.Write(make([]byte, 1<<20)); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("writing to the child that closed its input: %v, want EPIPE", err)
	}
}

// sigIgn is the SigIgn line of a shell's /proc status: the signals it
// inherited ignored.
func sigIgn(t *testing.T, start func(*exec.Cmd) (wait func())) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", "grep SigIgn /proc/$$/status")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	wait := start(cmd)
	line, _ := bufio.NewReader(out).ReadString('\n')
	wait()
	return line
}

// TestGuardKeepsIgnoredSignals: a child inherits the signals acp-lsp
// ignores, ignored, as it would had acp-lsp started it directly, though
// the guard between them is a Go program that handles most signals.
func TestGuardKeepsIgnoredSignals(t *testing.T) {
	signal.Ignore(syscall.SIGUSR1, syscall.SIGTERM)
	defer func() {
		// Reset alone leaves them ignored; Notify handles them again.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGUSR1, syscall.SIGTERM)
		signal.Reset(syscall.SIGUSR1, syscall.SIGTERM)
	}()
	direct := sigIgn(t, func(cmd *exec.Cmd) func() {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return func() { cmd.Wait() }
	})
	guarded := sigIgn(t, func(cmd *exec.Cmd) func() {
		c, err := Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		return func() {
			c.Wait()
			c.Kill()
			<-c.Gone()
		}
	})
	const usr1, term = 1 << (syscall.SIGUSR1 - 1), 1 << (syscall.SIGTERM - 1)
	var mask uint64
	if _, err := fmt.Sscanf(direct, "SigIgn:\t%x", &mask); err != nil || mask&usr1 == 0 || mask&term == 0 {
		t.Fatalf("started directly, the child ignores %q (%v), want SIGUSR1 and SIGTERM among them", direct, err)
	}
	if guarded != direct {
		t.Errorf("through the guard the child ignores %q, started directly %q", strings.TrimSpace(guarded), strings.TrimSpace(direct))
	}
}

// TestSignalToGuard: SIGTERM sent to the guard goes on to the child; a
// guard killed outright takes the child with it (Pdeathsig), and Wait
// says so.
func TestSignalToGuard(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGTERM, "signal: terminated"},
		{syscall.SIGKILL, "signal: killed"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			c, err := Start(exec.Command("sleep", "1000"))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				c.Kill()
				<-c.Gone()
			}()
			p, ok := procfs.ReadStat(c.Pid())
			if !ok {
				t.Fatalf("no /proc/%d/stat", c.Pid())
			}
			if err := syscall.Kill(p.PPid, tc.sig); err != nil {
				t.Fatal(err)
			}
			var ee *ExitError
			if err := c.Wait(); !errors.As(err, &ee) || err.Error() != tc.want {
				t.Errorf("Wait: %#v, want an *ExitError saying %q", err, tc.want)
			}
		})
	}
}
