//go:build !linux && !windows

package proctest

import "time"

// awaitExit reports whether pid is gone; without pidfds it does not wait.
func awaitExit(pid int, d time.Duration) bool { return gone(State(pid)) }
