package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
)

// mcpBridgeCmd pumps an agent's stdio MCP connection to the running
// proxy's private unix socket.
type mcpBridgeCmd struct {
	socket string
}

func (*mcpBridgeCmd) Name() string { return "mcp-bridge" }
func (*mcpBridgeCmd) Synopsis() string {
	return "connect an agent's stdio MCP client to the running acp-lsp (used in injected mcpServers entries)"
}
func (*mcpBridgeCmd) Usage() string {
	return `Usage: acp-lsp mcp-bridge --socket PATH

Copies stdin to the unix socket PATH and the socket to stdout, unchanged, until
either side closes. acp-lsp puts this command in the mcpServers entry it adds
to an agent's session when the agent gets the lsp tool over stdio; the socket
lives in a folder only the user can open (0700), which is the only lock: the
command line, which every local user can read, holds no secret. You do not
run it by hand.

Example (the entry acp-lsp adds to an agent's session/new):
  {"name":"acp-lsp","command":"/usr/local/bin/acp-lsp","args":["mcp-bridge","--socket","/tmp/acp-lsp-1234/5f0c9e2a7b3d4e61.sock"],"env":[]}
`
}

func (c *mcpBridgeCmd) SetFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.socket, "socket", "", "path of the unix socket of the running acp-lsp")
}

func (c *mcpBridgeCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	if c.socket == "" {
		return UsageErrorf("--socket is required")
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.socket)
	if err != nil {
		return fmt.Errorf("mcp-bridge: connect to acp-lsp (is the proxy still running?): %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	up := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, stdio.In)
		// Reported before the half-close: the server ends only after it
		// sees the end of input, so once its end reaches us the error is
		// there to read.
		up <- err
		// Half-close so the server sees end of input and finishes.
		if uc, ok := conn.(*net.UnixConn); ok {
			uc.CloseWrite()
		}
	}()
	_, err = io.Copy(stdio.Out, conn)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("mcp-bridge: %w", err)
	}
	select {
	case err := <-up:
		// A broken stdin (or socket) ended the input early: the server
		// saw a clean end, but the connection broke.
		if err != nil && !errors.Is(err, net.ErrClosed) {
			return fmt.Errorf("mcp-bridge: copy to acp-lsp: %w", err)
		}
	default:
		// The server ended first; the agent's stdin is left as it is.
	}
	return nil
}
