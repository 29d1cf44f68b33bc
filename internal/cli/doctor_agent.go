package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/conductor"
	"github.com/acp-lsp/acp-lsp/internal/acpclient"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/internal/stack"
)

// errAgentUnopened: the agent did not open the injected lsp tool.
var errAgentUnopened = errors.New("doctor: the agent did not open the lsp tool")

// probeAgent runs the agent argv behind acp-lsp's stack in dir, as an
// editor would run `acp-lsp -- argv`, and opens one session without a
// prompt (a prompt would reach the agent's model): it reports the agent,
// the MCP transport of the entry it was given, and whether it opened it
// within wait. Several ACP agents drop the MCP servers of session/new
// without a word (docs/protocol.md §7); in a session that is seen only
// after a turn, here at once. An agent that opens its MCP servers lazily,
// at its first prompt, is reported as not having opened it yet.
func probeAgent(ctx context.Context, out io.Writer, cfg config.Config, log *slog.Logger, dir string, argv []string, wait time.Duration) error {
	st, err := stack.Build(cfg, log, stack.Options{Workspace: dir})
	if err != nil {
		return fmt.Errorf("agent probe: %w", err)
	}
	defer st.Close()
	var stages []conductor.Proxy
	for _, c := range st.Stages() {
		stages = append(stages, conductor.Proxy{Stage: c})
	}
	toChain, clientOut := io.Pipe()
	clientIn, fromChain := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- conductor.Run(ctx, conductor.Options{Agent: argv, Proxies: stages, In: toChain, Out: fromChain, Stderr: io.Discard, Logger: log, Dir: dir})
		fromChain.Close()
	}()
	defer func() {
		// The client leaving ends the agent, as an editor closing does.
		clientOut.Close()
		<-done
	}()
	conn := acp.NewClientSideConnection(acpclient.Refusing{}, clientOut, clientIn)
	conn.SetLogger(slog.New(slog.DiscardHandler))

	setup, cancelSetup := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelSetup()
	init, err := conn.Initialize(setup, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo:      &acp.Implementation{Name: "acp-lsp doctor", Version: Version()},
	})
	if err != nil {
		return fmt.Errorf("agent probe: initialize: %w", err)
	}
	name := argv[0]
	if init.AgentInfo != nil {
		name = init.AgentInfo.Name + " " + init.AgentInfo.Version
	}
	fmt.Fprintf(out, "\nAgent %s (ACP %d):\n", name, init.ProtocolVersion)
	asked := time.Now()
	sess, err := conn.NewSession(setup, acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		return fmt.Errorf("agent probe: session/new: %w", err)
	}
	s := st.Stage.Tool().SessionByACP(string(sess.SessionId))
	if s == nil {
		return fmt.Errorf("agent probe: session %s was not set up with the lsp tool", sess.SessionId)
	}
	transport := s.Injected()
	if transport == "" {
		fmt.Fprintf(out, "  no lsp tool given: the agent advertises no MCP transport acp-lsp offers (ACP v2 capabilities.mcp.stdio or .http); try mcp.transport = %q or %q\n", component.TransportStdio, component.TransportHTTP)
		return errAgentUnopened
	}
	select {
	case <-s.Opened():
		fmt.Fprintf(out, "  opened the lsp tool (an MCP server over %s) %s after session/new\n", transport, time.Since(asked).Round(time.Millisecond))
		return nil
	case <-time.After(wait):
	case <-ctx.Done():
		return ctx.Err()
	}
	other := component.TransportHTTP
	if transport == component.TransportHTTP {
		other = component.TransportStdio
	}
	fmt.Fprintf(out, "  has not opened the lsp tool (an MCP server over %s) within %s of session/new, so its model cannot call it.\n"+
		"  An agent that connects to MCP servers at its first prompt does so later (doctor sends no prompt: it would reach the model);\n"+
		"  one that drops mcpServers never does: check that it passes them to its MCP client, or try mcp.transport = %q.\n", transport, wait, other)
	return errAgentUnopened
}
