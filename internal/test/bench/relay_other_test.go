//go:build !linux

package bench

import (
	"os/exec"

	"github.com/acp-lsp/acp-lsp/internal/reap"
)

// relayGroup starts the relay in its own group (where there are groups);
// with no Pdeathsig here, a relay outlives a benchmark killed outright.
func relayGroup(cmd *exec.Cmd) { reap.OwnGroup(cmd) }
