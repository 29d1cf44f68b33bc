package serverhost

import (
	"errors"
	"fmt"
	"os/exec"
)

// noFollow is 0: Windows' open has no such flag (links in the host's
// folder are not refused there; the host does not run on Windows, see
// Supported).
const noFollow = 0

// errUnsupported: the shared server host does not run on Windows (see
// Supported): it is a Unix socket in a folder only the user can open, a
// lock by flock, the listener handed down to the detached host; a named
// pipe host is a later step.
var errUnsupported = errors.New("not supported on windows yet")

// lockFile fails: see errUnsupported.
func lockFile(string) (func(), error) {
	return nil, fmt.Errorf("server host lock: %w", errUnsupported)
}

// detach leaves cmd as it is: see errUnsupported.
func detach(*exec.Cmd) {}
