package cli

import (
	"context"
	"flag"
	"log/slog"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/logging"
	"github.com/acp-lsp/acp-lsp/internal/serverhost"
)

// hostCmd is the user's shared language-server host. acp-lsp starts it
// itself (internal/serverhost) with the listening socket on descriptor 3
// (on Windows it listens on its named pipe itself); it is not listed in
// the help.
type hostCmd struct {
	socket   string
	identity string
	idle     time.Duration
}

func (*hostCmd) Name() string { return "host" }
func (*hostCmd) Synopsis() string {
	return "the shared language-server host (started by acp-lsp itself)"
}
func (*hostCmd) Usage() string {
	return `Usage: acp-lsp host -socket PATH -identity ID [-idle DURATION]

The user's shared language-server host. acp-lsp starts it when the first
process needs a language server (local.shared = true); it is not meant to
be run by hand: it serves the listener it is given on descriptor 3 (on
Windows it makes the named pipe of PATH itself and says "listening").
`
}

func (c *hostCmd) SetFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.socket, "socket", "", "the socket path the listener is bound to")
	fs.StringVar(&c.identity, "identity", "", "the build identity clients must have")
	fs.DurationVar(&c.idle, "idle", serverhost.DefaultIdleGrace, "how long to stay after the last client left")
}

func (c *hostCmd) Run(ctx context.Context, io Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	if c.socket == "" || c.identity == "" {
		return UsageErrorf("-socket and -identity are required")
	}
	log := logging.New(io.Err, logging.Options{Level: slog.LevelInfo})
	return serverhost.RunHost(ctx, c.socket, c.identity, c.idle, log)
}
