//go:build !linux && !darwin && !windows

package serverhost

import "errors"

// Supported reports whether this platform runs a shared server host:
// Linux, macOS and Windows, where peer credentials (SO_PEERCRED,
// LOCAL_PEERCRED; the pipe client's token) and the reap guard (a server
// ends with the host: the guard; kill-on-close job objects) hold;
// elsewhere acp-lsp keeps its servers in process.
const Supported = false

func sockUID(int) (int, error) {
	return 0, errors.New("not supported on this platform")
}
