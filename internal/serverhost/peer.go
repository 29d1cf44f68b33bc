//go:build !windows

package serverhost

import (
	"fmt"
	"net"
)

// peerUID reads the uid of the process at the other end of c, from the
// kernel (sockUID: the platform's peer credentials).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var (
		uid  int
		gerr error
	)
	if err := raw.Control(func(fd uintptr) { uid, gerr = sockUID(int(fd)) }); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if gerr != nil {
		return 0, fmt.Errorf("peer credentials: %w", gerr)
	}
	return uid, nil
}

// admit refuses a peer of another user (Windows: the pipe client's
// token, peer_windows.go).
func (h *host) admit(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("peer credentials: %T is not a unix socket", c)
	}
	uid, err := peerUID(uc)
	if err != nil {
		return err
	}
	return checkUID(uid, h.uid)
}
