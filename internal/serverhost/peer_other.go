//go:build !linux

package serverhost

import (
	"errors"
	"net"
)

// Supported reports whether this platform runs a shared server host: Linux
// only, where peer credentials (SO_PEERCRED) and the reap guard (a server
// ends with the host) hold; elsewhere acp-lsp keeps its servers in
// process.
const Supported = false

func peerUID(c *net.UnixConn) (int, error) {
	return 0, errors.New("peer credentials: not supported on this platform")
}
