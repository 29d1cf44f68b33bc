package serverhost

import (
	"fmt"
	"net"
	"sync"

	"golang.org/x/sys/windows"
)

// Supported reports whether this platform runs a shared server host:
// Linux, macOS and Windows, where peer credentials (SO_PEERCRED,
// LOCAL_PEERCRED; the pipe client's token) and the reap guard (a server
// ends with the host: the guard; kill-on-close job objects) hold;
// elsewhere acp-lsp keeps its servers in process.
const Supported = true

// userSID is the SID of the user this process runs as.
var userSID = sync.OnceValues(func() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("user sid: %w", err)
	}
	return u.User.Sid.Copy()
})

// processSID is the SID of the user process pid runs as.
func processSID(pid uint32) (*windows.SID, error) {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, fmt.Errorf("process %d's token: %w", pid, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("process %d's user: %w", pid, err)
	}
	return u.User.Sid.Copy()
}

// checkSID refuses a peer whose user is not the host's (Unix: checkUID);
// nil is nobody's.
func checkSID(peer, own *windows.SID) error {
	if peer == nil || own == nil || !peer.Equals(own) {
		return fmt.Errorf("server host: peer user %v is not the host's user %v", peer, own)
	}
	return nil
}

// pipePeer is the user of the process at the other end of c: the client
// (GetNamedPipeClientProcessId) on the host's side, the host
// (GetNamedPipeServerProcessId) on the client's.
func pipePeer(c net.Conn, server bool) (*windows.SID, error) {
	pc, ok := c.(*pipeConn)
	if !ok {
		return nil, fmt.Errorf("peer credentials: %T is not a named pipe", c)
	}
	raw, err := pc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	var (
		pid  uint32
		perr error
	)
	if err := raw.Control(func(fd uintptr) {
		if server {
			perr = windows.GetNamedPipeServerProcessId(windows.Handle(fd), &pid)
		} else {
			perr = windows.GetNamedPipeClientProcessId(windows.Handle(fd), &pid)
		}
	}); err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	if perr != nil {
		return nil, fmt.Errorf("peer credentials: %w", perr)
	}
	sid, err := processSID(pid)
	if err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	return sid, nil
}

// admit refuses a client process of another user.
func (h *host) admit(c net.Conn) error { return checkPeer(c, false) }

// checkPeer refuses the process at the other end of the pipe c (its
// server, the host, when server; else its client) unless it runs as
// this process's user.
func checkPeer(c net.Conn, server bool) error {
	own, err := userSID()
	if err != nil {
		return err
	}
	peer, err := pipePeer(c, server)
	if err != nil {
		return err
	}
	return checkSID(peer, own)
}
