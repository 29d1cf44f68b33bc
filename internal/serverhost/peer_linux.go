package serverhost

import "golang.org/x/sys/unix"

// Supported reports whether this platform runs a shared server host:
// Linux, macOS and Windows, where peer credentials (SO_PEERCRED,
// LOCAL_PEERCRED; the pipe client's token) and the reap guard (a server
// ends with the host: the guard; kill-on-close job objects) hold;
// elsewhere acp-lsp keeps its servers in process.
const Supported = true

// sockUID reads the peer's uid of the connected unix socket fd
// (SO_PEERCRED).
func sockUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
