package cli

import (
	"context"
	"flag"
)

// proxyCmd is proxy mode: acp-lsp as one proxy inside an external conductor.
type proxyCmd struct {
	f     chainFlags
	noLSP bool
}

func (*proxyCmd) Name() string { return "proxy" }
func (*proxyCmd) Synopsis() string {
	return "run as a proxy inside an external ACP conductor (proxy-chain protocol)"
}
func (*proxyCmd) Usage() string {
	return `Usage: acp-lsp proxy [flags]

Proxy mode. An ACP conductor starts acp-lsp as one of its proxies and
talks to it on stdin/stdout with the proxy-chain protocol: it initializes
acp-lsp with proxy/initialize (or _proxy/initialize), acp-lsp initializes
its successor with an initialize wrapped in proxy/successor (answering in
the family it was initialized with), and traffic to and from the
successor travels in successor envelopes. $/cancel_request is per hop.

Inside, acp-lsp runs its LSP stack (adapter, then the lsp tool) exactly as
in wrapper mode; -no-lsp makes it a transparent proxy. The configuration
is read as in wrapper mode ('acp-lsp run -h'), for the folder the
conductor starts it in.

Examples:
  agent-client-protocol-conductor agent "acp-lsp proxy" "opencode acp"
  acp-lsp conductor --proxy 'acp-lsp proxy' -- opencode acp
`
}
func (c *proxyCmd) SetFlags(fs *flag.FlagSet) {
	c.f.set(fs)
	fs.BoolVar(&c.noLSP, "no-lsp", false, "forward only: no lsp tool, no language servers")
}
func (c *proxyCmd) Run(ctx context.Context, stdio Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q: proxy mode reaches its successor through the conductor", args)
	}
	s, err := c.f.setup(stdio)
	if err != nil {
		return err
	}
	defer s.done()
	return s.runWithLSP(ctx, !c.noLSP)
}
