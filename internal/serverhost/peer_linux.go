package serverhost

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// Supported reports whether this platform runs a shared server host: Linux
// only, where peer credentials (SO_PEERCRED) and the reap guard (a server
// ends with the host) hold; elsewhere acp-lsp keeps its servers in
// process.
const Supported = true

// peerUID reads the uid of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var (
		cred *unix.Ucred
		gerr error
	)
	if err := raw.Control(func(fd uintptr) {
		cred, gerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if gerr != nil {
		return 0, fmt.Errorf("peer credentials: %w", gerr)
	}
	return int(cred.Uid), nil
}
