//go:build unix

package serverhost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// noFollow makes an open of a link fail: the host's files are in a folder
// of the user's, but a link there must not send a write elsewhere.
const noFollow = syscall.O_NOFOLLOW

// lockFile takes the exclusive lock on path (created 0600), so two
// processes starting a host at once make one; the function returned
// releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server host lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("server host lock: %w", err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// detach makes the host (cmd, not yet started) a session of its own, so
// it outlives the client that started it and no terminal's signal reaches it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// dial connects to the host at socket.
func dial(ctx context.Context, socket string) (*net.UnixConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, err
	}
	return c.(*net.UnixConn), nil
}

// startHost connects to the host of pl, starting it when none listens:
// under the start lock it dials again (another process may have started
// it meanwhile), removes a stale socket (no one listening), binds the
// socket itself and hands the listener to a new host process, so the
// connection made right after is queued by the kernel until the host
// accepts it, with no wait for the host to come up.
func startHost(ctx context.Context, pl place, exe string, idle time.Duration, log *slog.Logger) (*net.UnixConn, error) {
	if c, err := dial(ctx, pl.socket()); err == nil {
		return c, nil
	}
	if len(pl.socket()) > maxSocketPath {
		return nil, fmt.Errorf("start server host: socket path %s is longer than a unix socket address holds (%d bytes)", pl.socket(), maxSocketPath)
	}
	unlock, err := lockFile(pl.lock())
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c, err := dial(ctx, pl.socket()); err == nil {
		return c, nil
	}
	// Nobody listens: what is there is the socket of a host that died
	// (SIGKILL leaves it behind).
	if err := os.Remove(pl.socket()); err == nil {
		log.Info("removed a stale server host socket", "socket", pl.socket())
	}
	ln, err := listen(pl.socket())
	if err != nil {
		return nil, fmt.Errorf("start server host: %w", err)
	}
	ln.SetUnlinkOnClose(false) // the socket is the host's now
	f, err := ln.File()
	ln.Close()
	if err != nil {
		os.Remove(pl.socket())
		return nil, fmt.Errorf("start server host: %w", err)
	}
	defer f.Close()
	logf, err := os.OpenFile(pl.log(), os.O_WRONLY|os.O_CREATE|os.O_APPEND|noFollow, 0o600)
	if err != nil {
		os.Remove(pl.socket())
		return nil, fmt.Errorf("start server host: %w", err)
	}
	defer logf.Close()
	// The process started here only starts the host, in a session of its
	// own, and exits: the host is nobody's child (no zombie, no goroutine
	// waiting for it here) and out of the editor's process group and its
	// signals.
	cmd := exec.Command(exe, "host", "-socket", pl.socket(), "-identity", pl.id, "-idle", idle.String())
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/" // not a folder of the editor's, which may go away
	cmd.Env = append(os.Environ(), detachEnv+"=1")
	if err := cmd.Run(); err != nil {
		os.Remove(pl.socket())
		return nil, fmt.Errorf("start server host (%s): %w", exe, err)
	}
	log.Info("started a server host", "socket", pl.socket())
	return dial(ctx, pl.socket())
}

// listen binds the socket at path.
func listen(path string) (*net.UnixListener, error) {
	return net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
}

// detachEnv marks the first `acp-lsp host` process, which starts the real
// host detached and exits.
const detachEnv = "ACP_LSP_HOST_DETACH"

// listenerFD is the descriptor the host's listener is handed on.
const listenerFD = 3

// RunHost is the `acp-lsp host` command: started by a client with the
// bound listener on descriptor 3, it first starts itself again in a new
// session (and returns), then, as that process, serves until its idle
// grace ends.
func RunHost(ctx context.Context, socket, identity string, idle time.Duration, log *slog.Logger) error {
	f := os.NewFile(listenerFD, "server-host-listener")
	if f == nil {
		return errors.New("server host: no listener on descriptor 3 (acp-lsp starts the host itself)")
	}
	if os.Getenv(detachEnv) != "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("server host: %w", err)
		}
		cmd := exec.Command(exe, "host", "-socket", socket, "-identity", identity, "-idle", idle.String())
		cmd.ExtraFiles = []*os.File{f}
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.Env = withoutEnv(os.Environ(), detachEnv)
		detach(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("server host: %w", err)
		}
		return cmd.Process.Release()
	}
	fl, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("server host: %w", err)
	}
	ln, ok := fl.(*net.UnixListener)
	if !ok {
		fl.Close()
		return errors.New("server host: descriptor 3 is not a unix socket listener")
	}
	ln.SetUnlinkOnClose(false)
	log.Info("server host up", "pid", os.Getpid(), "socket", socket)
	return Serve(ctx, HostConfig{Listener: ln, Socket: socket, Identity: identity, Idle: idle, Logger: log})
}

func withoutEnv(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
