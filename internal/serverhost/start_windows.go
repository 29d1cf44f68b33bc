package serverhost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// noFollow is 0: Windows' open has no such flag; the host folder is the
// user's own (checkOwner).
const noFollow = 0

// lockFile takes the exclusive lock (LockFileEx) on path, so two
// processes starting a host at once make one; the function returned
// releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server host lock: %w", err)
	}
	// A handle opened for synchronous I/O: LockFileEx waits for the lock.
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped)); err != nil {
		f.Close()
		return nil, fmt.Errorf("server host lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// readyLine is what the host writes on its standard output once its pipe
// listens: the client that started it dials then.
const readyLine = "listening"

// startHost connects to the host of pl, starting it when none listens:
// under the start lock it dials again (another process may have started
// it meanwhile), then starts the host, detached, and waits for its word
// that its pipe listens. A host that died leaves nothing to clean: its
// pipe ended with its last handle.
func startHost(ctx context.Context, pl place, exe string, idle time.Duration, log *slog.Logger) (net.Conn, error) {
	if c, err := dial(ctx, pl.socket()); err == nil {
		return c, nil
	}
	unlock, err := lockFile(pl.lock())
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c, err := dial(ctx, pl.socket()); err == nil {
		return c, nil
	}
	logf, err := os.OpenFile(pl.log(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start server host: %w", err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start server host: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(exe, "host", "-socket", pl.socket(), "-identity", pl.id, "-idle", idle.String())
	cmd.Stdout, cmd.Stderr = w, logf
	cmd.Dir = pl.dir // not a folder of the editor's, which may go away
	err = startDetached(cmd)
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("start server host (%s): %w", exe, err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if line != readyLine+"\n" {
		werr := cmd.Wait()
		return nil, fmt.Errorf("start server host (%s): it ended before listening (%v; its log: %s)", exe, werr, pl.log())
	}
	cmd.Process.Release()
	log.Info("started a server host", "socket", pl.socket())
	return dial(ctx, pl.socket())
}

// startDetached starts cmd with no console, in a process group of its
// own, out of the job acp-lsp runs in when that job lets it go, so the
// host outlives the acp-lsp that started it and no console's Ctrl+C
// reaches it. In a job that forbids it, the host stays in the job (and
// ends with it; the next client starts another).
func startDetached(cmd *exec.Cmd) error {
	flags := uint32(windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB, HideWindow: true}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		retry := exec.Command(cmd.Path, cmd.Args[1:]...)
		retry.Stdout, retry.Stderr, retry.Dir, retry.Env = cmd.Stdout, cmd.Stderr, cmd.Dir, cmd.Env
		retry.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags, HideWindow: true}
		*cmd = *retry
		err = cmd.Start()
	}
	return err
}

// RunHost is the `acp-lsp host` command: started detached by a client,
// it listens on the named pipe of socket, says so on its standard output
// (readyLine, which it then closes) and serves until its idle grace ends.
func RunHost(ctx context.Context, socket, identity string, idle time.Duration, log *slog.Logger) error {
	ln, err := listen(socket)
	if err != nil {
		return fmt.Errorf("server host: %w", err)
	}
	fmt.Fprintln(os.Stdout, readyLine)
	os.Stdout.Close()
	log.Info("server host up", "pid", os.Getpid(), "socket", socket)
	return Serve(ctx, HostConfig{Listener: ln, Socket: socket, Identity: identity, Idle: idle, Logger: log})
}
