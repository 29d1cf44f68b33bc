//go:build unix

package fakelsp

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

type proc struct {
	*testClient
	cmd    *exec.Cmd
	record string
	stdin  interface{ Close() error }
}

// spawn runs the fake as a child in its own process group, the way the
// client is required to.
func spawn(t *testing.T, s Script) *proc {
	t.Helper()
	dir := t.TempDir()
	script, record := filepath.Join(dir, "script.json"), filepath.Join(dir, "record.jsonl")
	if err := WriteScript(script, s); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), Args(script, record)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, record: record, stdin: in}
	p.testClient = &testClient{t: t, conn: rwc{out, in}, r: bufio.NewReader(out)}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return p
}

type rwc struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (c rwc) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c rwc) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c rwc) Close() error                { return c.w.Close() }

func (p *proc) exitCode() int {
	p.t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *proc) messages() []Message {
	p.t.Helper()
	msgs, err := ReadRecord(p.record)
	if err != nil {
		p.t.Fatal(err)
	}
	return msgs
}

func TestProcessExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script Script
		drive  func(p *proc)
		code   int
	}{
		{"shutdown and exit", Script{}, func(p *proc) {
			p.reply(p.request("shutdown", nil))
			p.notify("exit", nil)
		}, 0},
		{"exit without shutdown", Script{}, func(p *proc) { p.notify("exit", nil) }, 1},
		{"stdin closed", Script{}, func(p *proc) { p.stdin.Close() }, 0},
		{"crash mid-request", Script{Methods: map[string]Behavior{"textDocument/hover": {Crash: true}}}, func(p *proc) {
			p.request("textDocument/hover", map[string]any{})
		}, 2},
		{"SIGTERM", Script{}, func(p *proc) {
			p.reply(p.request("no/such", nil)) // initialized is recorded
			p.cmd.Process.Signal(syscall.SIGTERM)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := spawn(t, tc.script)
			p.initialize()
			tc.drive(p)
			if code := p.exitCode(); code != tc.code {
				t.Fatalf("exit status %d, want %d", code, tc.code)
			}
			msgs := p.messages()
			starts := Starts(msgs)
			if len(starts) != 1 || starts[0].PID != p.cmd.Process.Pid || starts[0].PGID != p.cmd.Process.Pid {
				t.Fatalf("starts %+v, pid %d", starts, p.cmd.Process.Pid)
			}
			if m := Methods(msgs); len(m) < 2 || m[0] != "initialize" || m[1] != "initialized" {
				t.Fatalf("methods %v", m)
			}
			if alive, _ := Alive(p.cmd.Process.Pid); len(alive) != 0 {
				t.Fatalf("left running: %v", alive)
			}
		})
	}
}

// TestProcessRefuseExit: a server that ignores exit, stdin EOF and SIGTERM,
// with a grandchild in its group, only goes with SIGKILL to the group.
func TestProcessRefuseExit(t *testing.T) {
	p := spawn(t, Script{RefuseExit: true, Grandchild: true, Methods: map[string]Behavior{"shutdown": {NeverAnswer: true}}})
	p.initialize()
	pgid := p.cmd.Process.Pid
	if alive, _ := Alive(pgid); len(alive) != 2 {
		t.Fatalf("want the server and its grandchild in group %d, got %v", pgid, alive)
	}
	p.request("shutdown", nil)
	p.notify("exit", nil)
	// Still serving after exit: this request is answered.
	if m := p.reply(p.request("no/such", nil)); p.errCode(m) != CodeMethodNotFound {
		t.Fatalf("after exit: %+v", m)
	}
	p.stdin.Close()
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if m := Methods(p.messages()); !slices.Contains(m, "exit") {
		t.Fatalf("exit not recorded: %v", m)
	}
	// SIGTERM ignored: the process still exists (Signal 0 would fail on a
	// process reaped by Wait, which only this test calls).
	if err := p.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("server gone after exit and SIGTERM: %v", err)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.exitCode()
	if alive, _ := Alive(pgid); len(alive) != 0 {
		t.Fatalf("left running in group %d: %v", pgid, alive)
	}
}

// TestProcessStopReading: once the server stops reading, a write bigger
// than the pipe buffer cannot complete; killing the group ends it with an
// error.
func TestProcessStopReading(t *testing.T) {
	p := spawn(t, Script{Methods: map[string]Behavior{"textDocument/hover": {StopReading: true}}})
	p.initialize()
	p.request("textDocument/hover", map[string]any{})
	wrote := make(chan error, 1)
	go func() {
		_, err := p.conn.Write([]byte("Content-Length: 4194304\r\n\r\n" + strings.Repeat(" ", 4<<20)))
		wrote <- err
	}()
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if err := <-wrote; err == nil {
		t.Fatal("a 4 MiB write to a server that stopped reading completed")
	}
	p.exitCode()
}

// TestKillPending: SIGKILL pending for the thread or for its group is
// seen in /proc/PID/status; another signal is not.
func TestKillPending(t *testing.T) {
	for status, want := range map[string]bool{
		"SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n": true,
		"SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n": true,
		"SigPnd:\t0000000000004000\nShdPnd:\t0000000000000000\n": false,
	} {
		if got := killPending(status); got != want {
			t.Errorf("killPending(%q) = %v", status, got)
		}
	}
}
