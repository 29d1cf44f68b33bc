package cli

import (
	"context"
	"flag"

	"github.com/acp-lsp/acp-lsp/internal/logging"
	"github.com/acp-lsp/acp-lsp/internal/scriptagent"
)

// agentCmd runs the built-in scripted ACP agent on stdin/stdout.
type agentCmd struct {
	logLevel string
}

func (*agentCmd) Name() string { return "agent" }
func (*agentCmd) Synopsis() string {
	return "run the built-in scripted ACP agent (no model; runs the tool calls written in prompts)"
}
func (*agentCmd) Usage() string {
	return `Usage: acp-lsp agent [-log-level LEVEL]

Runs a real ACP agent with no model on stdin/stdout (NDJSON JSON-RPC). It
connects to the MCP servers given in session/new, session/load or
session/resume (stdio, http and sse) and, for every prompt, runs the tool
calls written in it, one per line: the tool's name, a space, and a JSON
object of arguments. Other lines are echoed back. Each call is reported as a
tool_call and tool_call_updates (pending, in_progress, completed or failed
with the tool's text) and an agent message with the text. A "?" before the
tool name asks the client's permission first (session/request_permission);
a name starting with "_" is sent to the client as an ACP extension request
instead, and its answer is echoed. The demo and the
end-to-end tests put it behind acp-lsp to show what an agent sees.

It exits when stdin closes. Logs go to stderr.

Examples:
  # behind acp-lsp, in any ACP client:
  acp-lsp -- acp-lsp agent

  # a prompt line that asks the injected lsp tool for a hover:
  lsp {"action":"hover","file":"main.go","line":3,"symbol":"add"}

  # with acpx as the client:
  acpx --agent "acp-lsp agent" --approve-all exec 'lsp {"action":"diagnostics","file":"main.go"}'
`
}

func (c *agentCmd) SetFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.logLevel, "log-level", "info", "minimum level of log lines on stderr: debug, info, warn, error")
}

func (c *agentCmd) Run(ctx context.Context, io Stdio, args []string) error {
	if len(args) > 0 {
		return UsageErrorf("unexpected arguments %q", args)
	}
	level, err := logging.ParseLevel(c.logLevel)
	if err != nil {
		return UsageErrorf("%v", err)
	}
	log := logging.New(io.Err, logging.Options{Level: level})
	return scriptagent.Serve(ctx, io.In, io.Out, scriptagent.Options{Logger: log, Stderr: io.Err, Version: Version()})
}
