package proctest

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// awaitExit waits until pid exits (or becomes a zombie) or d passes: a
// pidfd becomes readable when its process exits.
func awaitExit(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return gone(State(pid))
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(d)
	for {
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0).Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n > 0 {
			return true
		}
		return gone(State(pid))
	}
}
