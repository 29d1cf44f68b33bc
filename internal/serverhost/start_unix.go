//go:build unix

package serverhost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

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
