//go:build !linux && !darwin

package serverhost

import "errors"

// Supported reports whether this platform runs a shared server host:
// Linux and macOS, where peer credentials (SO_PEERCRED, LOCAL_PEERCRED)
// and the reap guard (a server ends with the host) hold; elsewhere
// acp-lsp keeps its servers in process.
const Supported = false

func sockUID(int) (int, error) {
	return 0, errors.New("not supported on this platform")
}
