package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/reap"
)

// ProcessOptions configure StartProcess.
type ProcessOptions struct {
	// Name names the process in errors and logs ("agent", "proxy 1").
	Name string
	// Dir, Env are as in exec.Cmd (nil Env inherits).
	Dir string
	Env []string
	// Stderr receives the child's stderr (nil discards).
	Stderr io.Writer
	// Stream configures the NDJSON stream over the child's stdio.
	Stream StreamOptions
	// ExitWait is how long Read waits, after the child closed its output,
	// for its exit status (default 2s).
	ExitWait time.Duration
}

// Process is a child speaking NDJSON on stdin/stdout, in its own process
// group. It is an Endpoint; Stop ends it with everything it started
// (reap.Start).
type Process struct {
	*Stream
	name   string
	child  *reap.Child
	stdin  io.WriteCloser
	stdout io.ReadCloser
	exitW  time.Duration
	stopMu sync.Mutex
}

// StartProcess starts argv as a child in its own process group, whose
// whole tree ends with acp-lsp (reap.Start).
func StartProcess(argv []string, opts ProcessOptions) (*Process, error) {
	if opts.Name == "" {
		opts.Name = "child"
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("start %s: no command", opts.Name)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("start %s: %q not found: %w", opts.Name, argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	cmd.Stderr = opts.Stderr
	// Own pipes, not cmd.StdoutPipe: Wait must not close our read end
	// before we have read what the child wrote just before exiting.
	inR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", opts.Name, err)
	}
	stdout, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		stdin.Close()
		return nil, fmt.Errorf("start %s: %w", opts.Name, err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	child, err := reap.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("start %s %q: %w", opts.Name, strings.Join(argv, " "), err)
	}
	if opts.Stream.Name == "" {
		opts.Stream.Name = opts.Name
	}
	p := &Process{
		Stream: NewStream(stdout, stdin, opts.Stream),
		name:   opts.Name, child: child,
		stdin: stdin, stdout: stdout, exitW: opts.ExitWait,
	}
	if p.exitW <= 0 {
		p.exitW = 2 * time.Second
	}
	return p, nil
}

// Pid returns the child's pid (also its process group id).
func (p *Process) Pid() int { return p.child.Pid() }

// Done is closed when the child has exited.
func (p *Process) Done() <-chan struct{} { return p.child.Exited() }

// Read implements Endpoint; at the end of the child's output it reports how
// the child ended.
func (p *Process) Read() (*Message, error) {
	m, err := p.Stream.Read()
	if err == nil {
		return m, nil
	}
	if errors.Is(err, os.ErrClosed) {
		return nil, fmt.Errorf("read %s: %w", p.name, err)
	}
	if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", p.name, err)
	}
	t := time.NewTimer(p.exitW)
	defer t.Stop()
	select {
	case <-p.Done():
		return nil, fmt.Errorf("%s %s", p.name, describeExit(p.child.Wait()))
	case <-t.C:
		return nil, fmt.Errorf("%s closed its output", p.name)
	}
}

func describeExit(err error) string {
	var ee *reap.ExitError
	if errors.As(err, &ee) {
		if ee.Status.Signaled() {
			return "was killed by signal " + ee.Status.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.Status.ExitStatus())
	}
	if err != nil {
		return "failed: " + err.Error()
	}
	return "exited with status 0"
}

// ExitDescription says how the child ended ("" while it runs).
func (p *Process) ExitDescription() string {
	select {
	case <-p.Done():
		return describeExit(p.child.Wait())
	default:
		return ""
	}
}

// CloseWrite closes the child's stdin: the end of its input.
func (p *Process) CloseWrite() error { return p.stdin.Close() }

// Close implements Endpoint: it closes the child's stdin and stdout.
func (p *Process) Close() error {
	p.stdin.Close()
	p.stdout.Close()
	return nil
}

// Stop ends the child and everything it started: stdin is closed, then
// after grace SIGTERM goes to its process group, after another grace its
// whole tree is killed (reap.Child.Kill: also what left the group), as is
// what is left of it once the child has exited. It returns when the
// child has exited and, on Linux, its tree has ended.
func (p *Process) Stop(grace time.Duration) {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	p.stdin.Close()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-t.C:
		p.child.Terminate()
		t.Reset(grace)
		select {
		case <-p.Done():
		case <-t.C:
		}
	}
	// Whatever is left of the tree (children surviving SIGTERM, a leader
	// ignoring it, a daemon) is killed.
	p.child.Kill()
	<-p.child.Gone()
	p.stdout.Close()
}
