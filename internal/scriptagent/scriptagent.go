// Package scriptagent is a real ACP agent with no model: it connects to the
// MCP servers a client gives in session/new (or session/load, session/resume)
// and, on session/prompt, runs the tool calls written in the prompt text, one
// per line:
//
//	lsp {"action":"hover","file":"main.go","line":3,"symbol":"add"}
//
// The first word names the tool (as the MCP server lists it, or
// "<server>_<tool>" the way opencode names it to its model); the rest of the
// line is the JSON object of arguments. Other lines are echoed back as agent
// text. Each call is reported as session/update messages: a tool_call
// (pending), a tool_call_update to in_progress, a tool_call_update to
// completed or failed carrying the tool's text, and an agent_message_chunk
// with that text. The turn ends with stopReason end_turn, or cancelled after
// session/cancel.
//
// acp-lsp's demo and end-to-end tests put it behind the proxy, so that what
// it prints is exactly what an agent would see from the injected lsp tool.
package scriptagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	acp "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the agent's name in initialize's agentInfo.
const Name = "acp-lsp-scripted-agent"

// Options configure an agent. The zero value works.
type Options struct {
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Stderr receives the stderr of the stdio MCP servers the agent starts;
	// nil discards it.
	Stderr io.Writer
	// Version is reported in agentInfo.
	Version string
}

// Serve runs the agent over one ACP connection: it reads NDJSON requests from
// in and writes to out until in reaches EOF (the client went away) or ctx
// ends, then closes every MCP connection it opened (ending stdio MCP servers
// as process groups) and returns. When ctx ends first, the caller must also
// close in to stop the connection's reader.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	a := newAgent(opts)
	conn := acp.NewAgentSideConnection(a, out, in)
	conn.SetLogger(a.log)
	a.conn = conn
	close(a.ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}

type agent struct {
	log  *slog.Logger
	opts Options
	// conn is set once, before ready closes: handlers can run before
	// NewAgentSideConnection returns, so they wait for ready to use it.
	conn  *acp.AgentSideConnection
	ready chan struct{}

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	nextID   int
	closed   bool
}

// session holds the MCP connections of one ACP session.
type session struct {
	servers []*server
}

// server is one connected MCP server.
type server struct {
	name   string
	cs     *mcp.ClientSession
	tools  []string
	proc   *os.Process // a stdio server, leading its process group; nil for http/sse
	cancel context.CancelFunc
}

func newAgent(opts Options) *agent {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &agent{log: log, opts: opts, sessions: map[acp.SessionId]*session{}, ready: make(chan struct{})}
}

func (a *agent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	version := a.opts.Version
	if version == "" {
		version = "dev"
	}
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:     true,
			McpCapabilities: acp.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acp.SessionCapabilities{
				Resume: &acp.SessionResumeCapabilities{},
				Close:  &acp.SessionCloseCapabilities{},
			},
		},
		AgentInfo:   &acp.Implementation{Name: Name, Version: version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	// A random id, as real agents give: an editor may keep it and load
	// the session from another acp-lsp process later.
	id := acp.SessionId("script-" + uuid.NewString())
	if err := a.open(ctx, id, p.McpServers); err != nil {
		return acp.NewSessionResponse{}, err
	}
	return acp.NewSessionResponse{SessionId: id}, nil
}

func (a *agent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	// No history is kept, so there is nothing to replay.
	return acp.LoadSessionResponse{}, a.open(ctx, p.SessionId, p.McpServers)
}

func (a *agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, a.open(ctx, p.SessionId, p.McpServers)
}

func (a *agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if s != nil {
		s.close(a.log)
	}
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	// Sessions are not persisted, so there is never one to list or load
	// from history.
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// Cancel needs no work of its own: the connection cancels the running
// prompt's context, which stops the current tool call.
func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

// open connects to every MCP server of a session setup request, replacing
// the session's previous connections. Any failure fails the request: the
// point of this agent is to show whether the servers work.
func (a *agent) open(ctx context.Context, id acp.SessionId, specs []acp.McpServer) error {
	s := &session{}
	for _, spec := range specs {
		srv, err := a.connect(ctx, spec)
		if err != nil {
			s.close(a.log)
			return &acp.RequestError{Code: -32603, Message: err.Error()}
		}
		s.servers = append(s.servers, srv)
	}
	a.mu.Lock()
	old := a.sessions[id]
	closed := a.closed
	if !closed {
		a.sessions[id] = s
	}
	a.mu.Unlock()
	if old != nil {
		old.close(a.log)
	}
	if closed {
		s.close(a.log)
		return errors.New("scriptagent: shutting down")
	}
	return nil
}

func (a *agent) connect(ctx context.Context, spec acp.McpServer) (*server, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: Name, Version: a.opts.Version}, nil)
	var (
		t    mcp.Transport
		name string
		proc *os.Process
	)
	switch {
	case spec.Stdio != nil:
		name = spec.Stdio.Name
		cmd := exec.Command(spec.Stdio.Command, spec.Stdio.Args...)
		cmd.Env = os.Environ()
		for _, e := range spec.Stdio.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		cmd.Stderr = a.opts.Stderr
		reap.OwnGroup(cmd)
		t = &cmdTransport{CommandTransport: mcp.CommandTransport{Command: cmd}, proc: &proc}
	case spec.Http != nil:
		name = spec.Http.Name
		t = &mcp.StreamableClientTransport{Endpoint: spec.Http.Url, HTTPClient: headerClient(spec.Http.Headers), DisableStandaloneSSE: true}
	case spec.Sse != nil:
		name = spec.Sse.Name
		t = &mcp.SSEClientTransport{Endpoint: spec.Sse.Url, HTTPClient: headerClient(spec.Sse.Headers)}
	default:
		return nil, errors.New("scriptagent: connect mcp server: unsupported transport (want stdio, http or sse)")
	}
	// Some transports (SSE) tie the connection's life to the context given
	// to Connect, so it must outlive the session/new request; the request's
	// context still aborts a connect that hangs.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	cs, err := client.Connect(life, t, nil)
	stop()
	if err != nil {
		cancel()
		killGroup(proc)
		return nil, fmt.Errorf("scriptagent: connect mcp server %q: %w", name, err)
	}
	srv := &server{name: name, cs: cs, proc: proc, cancel: cancel}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			srv.close(a.log)
			return nil, fmt.Errorf("scriptagent: list tools of mcp server %q: %w", name, err)
		}
		srv.tools = append(srv.tools, tool.Name)
	}
	a.log.Debug("connected mcp server", "name", name, "tools", srv.tools)
	return srv, nil
}

// cmdTransport records the stdio server it starts (its process group's leader).
type cmdTransport struct {
	mcp.CommandTransport
	proc **os.Process
}

func (t *cmdTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.CommandTransport.Connect(ctx)
	if t.Command.Process != nil {
		*t.proc = t.Command.Process
	}
	return c, err
}

// killGroup ends whatever is left of a stdio server's process group (its own
// children) after the server itself exited or was stopped; on Windows, the
// server alone (see reap.OwnGroup).
func killGroup(p *os.Process) {
	if p != nil {
		_ = reap.KillGroup(p)
	}
}

func (srv *server) close(log *slog.Logger) {
	if err := srv.cs.Close(); err != nil {
		log.Debug("close mcp server", "name", srv.name, "err", err)
	}
	srv.cancel()
	killGroup(srv.proc)
}

func (s *session) close(log *slog.Logger) {
	for _, srv := range s.servers {
		srv.close(log)
	}
}

type headerRoundTripper struct {
	headers []acp.HttpHeader
}

func (h headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, hd := range h.headers {
		r.Header.Set(hd.Name, hd.Value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func headerClient(headers []acp.HttpHeader) *http.Client {
	return &http.Client{Transport: headerRoundTripper{headers: headers}}
}

// closeAll ends every session; later session setups fail.
func (a *agent) closeAll() {
	a.mu.Lock()
	a.closed = true
	sessions := a.sessions
	a.sessions = map[acp.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.close(a.log)
	}
}

// Line is one parsed line of a prompt.
type Line struct {
	// Tool is the tool name when the line is a tool call, else "". A name
	// starting with "_" is an ACP extension method instead: the agent sends
	// it to the client as a request with Arguments as params.
	Tool string
	// Arguments is the JSON object of a tool call.
	Arguments json.RawMessage
	// Ask is set by a leading "?" on the tool name: the agent asks the
	// client's permission (session/request_permission) before the call.
	Ask bool
	// Text is the line itself.
	Text string
}

var toolWord = regexp.MustCompile(`^[A-Za-z0-9_.\-/]+$`)

// ParseLine reads one prompt line: "<tool> <json object>" is a tool call
// ("?<tool> …" asks permission first, "_<method> …" is an extension
// request to the client), anything else is text.
func ParseLine(line string) Line {
	text := strings.TrimRight(line, "\r")
	word, rest, ok := strings.Cut(strings.TrimSpace(text), " ")
	rest = strings.TrimSpace(rest)
	ask := strings.HasPrefix(word, "?")
	word = strings.TrimPrefix(word, "?")
	if !ok || !toolWord.MatchString(word) || !strings.HasPrefix(rest, "{") {
		return Line{Text: text}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rest), &obj); err != nil {
		return Line{Text: text}
	}
	return Line{Tool: word, Arguments: json.RawMessage(rest), Ask: ask, Text: text}
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	a.mu.Unlock()
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session " + string(p.SessionId)})
	}
	var text strings.Builder
	for _, block := range p.Prompt {
		if block.Text != nil {
			text.WriteString(block.Text.Text)
			text.WriteString("\n")
		}
	}
	for _, raw := range strings.Split(strings.TrimRight(text.String(), "\n"), "\n") {
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		line := ParseLine(raw)
		if line.Tool == "" {
			if err := a.update(ctx, p.SessionId, acp.UpdateAgentMessageText(line.Text+"\n")); err != nil {
				return cancelledOr(ctx, err)
			}
			continue
		}
		run := a.runTool
		if strings.HasPrefix(line.Tool, "_") {
			run = a.runExtension
		}
		if err := run(ctx, p.SessionId, s, line); err != nil {
			return cancelledOr(ctx, err)
		}
	}
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// errTurnCancelled ends a turn with stopReason cancelled without a
// session/cancel (the client cancelled a permission request).
var errTurnCancelled = errors.New("scriptagent: turn cancelled by the client")

func cancelledOr(ctx context.Context, err error) (acp.PromptResponse, error) {
	if ctx.Err() != nil || errors.Is(err, errTurnCancelled) {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return acp.PromptResponse{}, err
}

func (a *agent) update(ctx context.Context, id acp.SessionId, u acp.SessionUpdate) error {
	<-a.ready
	return a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: id, Update: u})
}

// find returns the server offering tool, by its plain or "<server>_<tool>"
// name, and the plain name.
func (s *session) find(tool string) (*server, string) {
	for _, srv := range s.servers {
		for _, t := range srv.tools {
			if t == tool {
				return srv, t
			}
		}
	}
	for _, srv := range s.servers {
		for _, t := range srv.tools {
			if srv.name+"_"+t == tool {
				return srv, t
			}
		}
	}
	return nil, ""
}

// runTool runs one tool line and reports it. A failing tool is reported as a
// failed tool call, not as an error of the turn; only a broken ACP
// connection or a cancellation ends the turn early.
func (a *agent) runTool(ctx context.Context, sid acp.SessionId, s *session, line Line) error {
	a.mu.Lock()
	a.nextID++
	callID := acp.ToolCallId(fmt.Sprintf("call-%d", a.nextID))
	a.mu.Unlock()
	var rawInput any = line.Arguments
	if err := a.update(ctx, sid, acp.StartToolCall(callID, line.Tool,
		acp.WithStartKind(acp.ToolKindOther), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(rawInput))); err != nil {
		return err
	}
	status := acp.ToolCallStatusCompleted
	var out string
	allowed, err := a.permit(ctx, sid, callID, line)
	switch {
	case err != nil:
		return err
	case !allowed:
		status, out = acp.ToolCallStatusFailed, "permission denied by the client"
	default:
		if err := a.update(ctx, sid, acp.UpdateToolCall(callID, acp.WithUpdateStatus(acp.ToolCallStatusInProgress))); err != nil {
			return err
		}
		out, err = a.call(ctx, s, line)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			status, out = acp.ToolCallStatusFailed, err.Error()
		}
	}
	if err := a.update(ctx, sid, acp.UpdateToolCall(callID,
		acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(out))}),
		acp.WithUpdateRawOutput(map[string]any{"text": out}))); err != nil {
		return err
	}
	return a.update(ctx, sid, acp.UpdateAgentMessageText(out+"\n"))
}

// permit asks the client's permission for a "?" line; other lines need
// none. A cancelled outcome ends the turn.
func (a *agent) permit(ctx context.Context, sid acp.SessionId, callID acp.ToolCallId, line Line) (bool, error) {
	if !line.Ask {
		return true, nil
	}
	<-a.ready
	title := line.Tool
	resp, err := a.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: sid,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: callID, Title: &title, RawInput: line.Arguments},
		Options: []acp.PermissionOption{
			{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		return false, fmt.Errorf("scriptagent: request permission: %w", err)
	}
	if resp.Outcome.Selected == nil {
		return false, errTurnCancelled
	}
	return resp.Outcome.Selected.OptionId == "allow", nil
}

// runExtension sends an "_" line to the client as an extension request and
// reports the answer (or the error) as agent text, so a test can see
// whether a proxy forwards agent-to-client methods it does not know.
func (a *agent) runExtension(ctx context.Context, sid acp.SessionId, _ *session, line Line) error {
	<-a.ready
	res, err := a.conn.CallExtension(ctx, line.Tool, line.Arguments)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	out := line.Tool + " -> " + string(res)
	if err != nil {
		out = line.Tool + " failed: " + err.Error()
	}
	return a.update(ctx, sid, acp.UpdateAgentMessageText(out+"\n"))
}

// call runs the tool and returns its text content. A tool result with
// isError set is an error carrying that text.
func (a *agent) call(ctx context.Context, s *session, line Line) (string, error) {
	srv, tool := s.find(line.Tool)
	if srv == nil {
		var offered []string
		for _, srv := range s.servers {
			for _, t := range srv.tools {
				offered = append(offered, srv.name+"/"+t)
			}
		}
		list := strings.Join(offered, ", ")
		if list == "" {
			list = "none"
		}
		return "", fmt.Errorf("no MCP server of this session offers tool %q (offered: %s)", line.Tool, list)
	}
	res, err := srv.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: line.Arguments})
	if err != nil {
		return "", fmt.Errorf("call %s on mcp server %q: %w", tool, srv.name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", errors.New(b.String())
	}
	return b.String(), nil
}
