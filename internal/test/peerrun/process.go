package peerrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/internal/test/syncbuf"
)

// stopGrace is how long Stop lets a process exit on its own after stdin
// closes, and again after SIGTERM, before it escalates. It only bounds a
// shutdown that has gone wrong; nothing waits for it when the peer behaves.
const stopGrace = 10 * time.Second

// Process is a peer started in its own process group with pipes for stdin
// and stdout; stderr is collected. Its methods are safe for concurrent use.
type Process struct {
	// Cmd is the started command.
	Cmd *exec.Cmd
	// Stdin writes to the process; Stop closes it.
	Stdin io.WriteCloser
	// Stdout reads from the process.
	Stdout io.ReadCloser

	stderr syncbuf.Buffer
	done   chan struct{}

	stopOnce sync.Once
	stopErr  error
}

// Start runs argv with env in dir as a new process group. The test's
// cleanup stops it (Stop) if the test did not.
func Start(t testing.TB, env *Env, dir string, argv ...string) *Process {
	t.Helper()
	p, err := StartProcess(env.Vars, dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("stop %s: %v\nstderr:\n%s", argv[0], err, p.Stderr())
		}
	})
	return p
}

// StartProcess is Start without a test: the caller must call Stop.
func StartProcess(env []string, dir string, argv ...string) (*Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	reap.OwnGroup(cmd)
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	// An os.Pipe rather than StdoutPipe: Wait must not close the read end
	// while the reader still drains what the process wrote before exiting.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	cmd.Stdout = w
	p.Stdout = r
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go func() {
		_ = cmd.Wait() // nothing reads the exit status; Stop says whether it was forced
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stderr returns what the process wrote to stderr so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// ErrForced is returned by Stop when the process did not exit after its
// stdin closed and had to be signalled.
var ErrForced = errors.New("did not exit when stdin closed; had to be signalled")

// Stop closes stdin and waits for the process to exit; if it does not, it
// sends SIGTERM and then SIGKILL to the whole process group and returns an
// error wrapping ErrForced. Afterwards it kills whatever is left in the
// group. The exit status itself is not an error (Err reports it).
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		_ = p.Stdin.Close()
		proc := p.Cmd.Process
		timer := time.NewTimer(stopGrace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
			p.stopErr = fmt.Errorf("stop: %w", ErrForced)
			_ = reap.TermGroup(proc)
			timer.Reset(stopGrace)
			select {
			case <-p.done:
			case <-timer.C:
				_ = reap.KillGroup(proc)
				<-p.done
			}
		}
		_ = reap.KillGroup(proc)
	})
	return p.stopErr
}
