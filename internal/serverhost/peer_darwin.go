package serverhost

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Supported reports whether this platform runs a shared server host:
// Linux, macOS and Windows, where peer credentials (SO_PEERCRED,
// LOCAL_PEERCRED; the pipe client's token) and the reap guard (a server
// ends with the host: the guard; kill-on-close job objects) hold;
// elsewhere acp-lsp keeps its servers in process.
const Supported = true

// xucredVersion is XUCRED_VERSION (sys/ucred.h): the layout of the
// credentials the kernel fills in.
const xucredVersion = 0

// sockUID reads the peer's uid of the connected unix socket fd
// (LOCAL_PEERCRED: the credentials of the peer when it connected).
func sockUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	if cred.Version != xucredVersion {
		return 0, fmt.Errorf("credentials of version %d, want %d", cred.Version, xucredVersion)
	}
	return int(cred.Uid), nil
}
