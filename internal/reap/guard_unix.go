//go:build linux || darwin

package reap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ctlFD is the guard's end of its socket to acp-lsp (ExtraFiles[0]).
const ctlFD = 3

// What the guard reports, each an 8-byte record: kind, value (uint32,
// little-endian).
const (
	recPid      = 1 // the child started: its pid
	recStartErr = 2 // the child could not be started: the errno
	recStatus   = 3 // the child exited: its wait status
)

func init() {
	// Before main (and before a test binary's flags are parsed): a binary
	// that can start a guarded child can be its guard.
	if len(os.Args) > 1 && os.Args[0] == GuardName {
		// No exit hooks: the guard has nothing to flush, and a build with
		// the race detector would sleep a second in them.
		syscall.Exit(guard(guardHold, os.Args[1], os.Args[2:]))
	}
}

// hold is how a guard holds its child's tree and ends it: the platform's
// part of the guard (Linux: a child subreaper; macOS: the child's process
// group), the rest being one for all.
type hold struct {
	// prepare readies the guard before the child starts.
	prepare func() error
	// attr is how the child starts: leading a process group of its own
	// (acp-lsp's Terminate signals it).
	attr *syscall.SysProcAttr
	// end kills the tree of the child pid until none of it is left (or
	// deadline passes).
	end func(pid int, deadline time.Time)
}

// groupHold holds the child's process group alone, for systems without a
// subreaper: end kills the group, lists its members and awaits their
// exits until none is left. A process that left the group escapes it.
func groupHold(members func(pgid int) ([]int, bool), await func(pids []int, deadline time.Time)) hold {
	return hold{
		prepare: func() error { return nil },
		attr:    &syscall.SysProcAttr{Setpgid: true},
		end: func(pid int, deadline time.Time) {
			endGroup(pid, deadline, members, await)
		},
	}
}

// Start starts cmd (made by exec.Command, not yet started; no ExtraFiles
// nor SysProcAttr of its own) in a process group of its own, behind a
// guard that ends its whole tree (on macOS its group) on Kill or when
// acp-lsp dies.
func Start(cmd *exec.Cmd) (*Child, error) { return start(cmd, GuardName) }

// start is Start through the guard that the binary run again as name is.
func start(cmd *exec.Cmd, name string) (*Child, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil {
		return nil, errors.New("reap: a command with ExtraFiles or SysProcAttr cannot be guarded")
	}
	exe, err := guardExe()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	// Close-on-exec set under the fork lock: macOS has no SOCK_CLOEXEC,
	// and no other child may inherit acp-lsp's end.
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("guard socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "guard")
	ours := os.NewFile(uintptr(fds[0]), "guard")
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("guard socket: %w", err)
	}
	ctl := fc.(*net.UnixConn)
	path := cmd.Path
	cmd.Path = exe
	cmd.Args = append([]string{name, path}, cmd.Args...)
	cmd.ExtraFiles = []*os.File{theirs}
	// Out of the way of signals for acp-lsp's group (a terminal's ^C):
	// the guard must outlive the child. No Pdeathsig: acp-lsp's death is
	// the guard's cue to act, not to die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		ctl.Close()
		// What failed (a folder that is not there) was for the child.
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == cmd.Path {
			pe.Path = path
		}
		return nil, err
	}
	// The signals ignored here, which the child would inherit ignored had
	// acp-lsp started it: the guard, a Go program, handles most of them
	// (and so resets them to the default for the child) unless told.
	var mask [8]byte
	binary.LittleEndian.PutUint64(mask[:], ignoredSignals())
	_, _ = ctl.Write(mask[:]) // a guard that died is seen below
	kind, v, err := readRecord(ctl)
	if err != nil || kind != recPid {
		ctl.Close()
		werr := cmd.Wait()
		switch {
		case err == nil && kind == recStartErr:
			return nil, &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(v)}
		case err == nil:
			return nil, fmt.Errorf("guard said %d %d, want the pid", kind, v)
		default:
			return nil, fmt.Errorf("guard: %w (%v)", err, werr)
		}
	}
	c := &Child{pid: int(v), exited: make(chan struct{}), gone: make(chan struct{})}
	c.term = func() { _ = unix.Kill(-c.pid, unix.SIGTERM) }
	// The guard's cue (an error once it has gone).
	c.kill = func() { _ = ctl.CloseWrite() }
	go func() {
		defer close(c.gone)
		kind, v, err := readRecord(ctl)
		if err == nil && kind == recStatus {
			c.err = exitErr(syscall.WaitStatus(v))
			close(c.exited)
			// The guard goes on holding the tree until Kill; then it ends.
			_, _ = io.Copy(io.Discard, ctl)
		}
		werr := cmd.Wait()
		ctl.Close()
		if err != nil || kind != recStatus {
			// The guard died without a word (killed): so did the child,
			// by its Pdeathsig (Linux; on macOS the child stays).
			c.err = waitErr(werr)
			if c.err == nil {
				c.err = errors.New("guard ended without the child's status")
			}
			close(c.exited)
		}
	}()
	return c, nil
}

func readRecord(r io.Reader) (kind, v uint32, err error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, 0, err
	}
	return binary.LittleEndian.Uint32(b[:4]), binary.LittleEndian.Uint32(b[4:]), nil
}

func writeRecord(w io.Writer, kind, v uint32) {
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], kind)
	binary.LittleEndian.PutUint32(b[4:], v)
	_, _ = w.Write(b[:]) // acp-lsp may be gone
}

// guard is the guard process: it starts path with argv as its child,
// holding its tree as h says, and returns its exit code (the child's;
// 128+signal if it was killed) once told to end (or orphaned) and the
// tree has gone.
func guard(h hold, path string, argv []string) int {
	ctl := os.NewFile(ctlFD, "acp-lsp")
	syscall.CloseOnExec(ctlFD)
	if err := h.prepare(); err != nil {
		errno, _ := err.(syscall.Errno)
		writeRecord(ctl, recStartErr, uint32(errno))
		return 125
	}
	var b [8]byte
	if _, err := io.ReadFull(ctl, b[:]); err != nil {
		return 125 // acp-lsp is gone already
	}
	ignored := binary.LittleEndian.Uint64(b[:])
	for sig := 1; sig <= 64; sig++ {
		if ignored&(1<<(sig-1)) != 0 {
			signal.Ignore(syscall.Signal(sig))
		}
	}
	// Signals someone sends the guard are meant for the child: caught and
	// passed on (unless ignored).
	sigs := make(chan os.Signal, 4)
	for _, s := range []syscall.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP} {
		if ignored&(1<<(s-1)) == 0 {
			signal.Notify(sigs, s)
		}
	}
	// This runs in init, on the main thread, which lives as long as the
	// guard (Linux's Pdeathsig follows the thread that forked).
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   h.attr,
	})
	if err != nil {
		errno, _ := err.(syscall.Errno)
		writeRecord(ctl, recStartErr, uint32(errno))
		return 127
	}
	// The child's stdio is its own: the guard holding it too would keep
	// a pipe's end from being seen (acp-lsp writing to a child that has
	// closed its input would block rather than fail).
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := range 3 {
			_ = unix.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}
	writeRecord(ctl, recPid, uint32(pid))
	var running atomic.Bool
	running.Store(true)
	go func() {
		for s := range sigs {
			if running.Load() {
				_ = unix.Kill(-pid, s.(syscall.Signal))
			}
		}
	}()
	code := 0
	childDone := make(chan struct{})
	go func() {
		// As a subreaper (Linux) the guard reaps every orphan of the tree
		// for as long as it runs (each would stay a zombie otherwise), the
		// child among them; elsewhere the child alone is its to reap.
		for {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return
			}
			if wpid == pid {
				running.Store(false)
				writeRecord(ctl, recStatus, uint32(ws))
				code = ws.ExitStatus()
				if ws.Signaled() {
					code = 128 + int(ws.Signal())
				}
				close(childDone)
			}
		}
	}()
	// Nothing is ever sent: the end of input is acp-lsp's Kill, or
	// acp-lsp gone.
	_, _ = io.Copy(io.Discard, ctl)
	deadline := time.Now().Add(endLimit)
	h.end(pid, deadline)
	t := time.NewTimer(time.Until(deadline))
	select {
	case <-childDone:
		return code
	case <-t.C:
		return 128 + int(unix.SIGKILL)
	}
}
