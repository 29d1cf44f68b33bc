// Package demo runs acp-lsp's demo: it starts acp-lsp (conductor, adapter,
// component) in front of the built-in scripted agent over a sample Go
// workspace, drives the chain as an ACP client would, and prints what the
// agent saw from the lsp tool for each step, with timings.
//
// The chain is a real child process (`acp-lsp -- acp-lsp agent`, the same
// command line an editor would run), so the demo exercises exactly what an
// editor gets: process groups, stdio framing, the injected MCP server and
// the language servers acp-lsp starts.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acp-lsp/acp-lsp/internal/acpclient"

	"github.com/acp-lsp/acp-lsp/internal/reap"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// Options configure Run.
type Options struct {
	// Chain is the command line of acp-lsp in front of the scripted agent,
	// e.g. [acp-lsp -log-level warn -- acp-lsp agent]. Required.
	Chain []string
	// Workspace is the folder to run in. Empty copies the sample workspace
	// into a new temporary folder, removed at the end unless Keep is set.
	// A given folder is used in place and never removed.
	Workspace string
	// Keep keeps the temporary copy of the sample.
	Keep bool
	// Steps are the tool calls to run (default SampleSteps over the sample,
	// WorkspaceSteps over a given workspace).
	Steps []Step
	// Out receives the report; Stderr the chain's logs. Nil discards.
	Out, Stderr io.Writer
	// Env is the chain's environment (nil: this process's). Its PATH is
	// where gopls is looked for.
	Env []string
	// StepTimeout bounds each step (default 3 minutes: the first call
	// waits for gopls to load the workspace).
	StepTimeout time.Duration
	// ExitGrace is how long acp-lsp gets to end its agent and servers and
	// exit once its client is gone, and again after SIGTERM, before its
	// process group is killed (default 15s).
	ExitGrace time.Duration
}

// Report is what a run showed.
type Report struct {
	// Workspace is the folder the demo ran in.
	Workspace string
	// Gopls is the gopls binary found for the sample ("" over another
	// workspace).
	Gopls string
	// Connect is the time from starting acp-lsp to an open session
	// (initialize and session/new through the whole chain).
	Connect time.Duration
	// Steps are the results in order.
	Steps []StepResult
	// ChainExit describes how acp-lsp ended after the client closed.
	ChainExit string
}

// StepResult is one step's outcome.
type StepResult struct {
	Step
	// Status is the tool call's final status: completed or failed (or
	// "no tool call" when the agent did not run one).
	Status string
	// Text is the tool's answer as the agent saw it.
	Text string
	// Duration is the session/prompt round trip of the step.
	Duration time.Duration
}

// GoplsInstall tells a person how to get gopls; the demo prints it when
// gopls is missing.
const GoplsInstall = `install it with:
  go install golang.org/x/tools/gopls@v0.23.0
and put $(go env GOPATH)/bin on PATH; in a checkout of acp-lsp, scripts/demo.sh installs it into .cache/bin and runs the demo`

// ErrNoGopls is returned (wrapped) when gopls is not on PATH.
var ErrNoGopls = errors.New("gopls, the Go language server the demo's workspace needs, is not installed (not found on PATH)")

// FindGopls looks gopls up on the PATH of env (nil: this process's).
func FindGopls(env []string) (string, error) {
	p, err := lsp.LookPath("gopls", env)
	if err != nil {
		return "", fmt.Errorf("%w; %s", ErrNoGopls, GoplsInstall)
	}
	return p, nil
}

// removeAll removes the temporary workspace; tests make it fail.
var removeAll = os.RemoveAll

// Run runs the demo and returns its report. It returns an error when the
// chain cannot start or breaks, or when a step failed (the report then
// holds every step). acp-lsp's process group is ended and the temporary
// workspace removed (unless Keep) before it returns.
func Run(ctx context.Context, opts Options) (rep *Report, err error) {
	if len(opts.Chain) == 0 {
		return nil, errors.New("run demo: no chain command")
	}
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = 3 * time.Minute
	}
	if opts.ExitGrace <= 0 {
		opts.ExitGrace = 15 * time.Second
	}
	rep = &Report{}
	steps := opts.Steps
	ws := opts.Workspace
	if ws == "" {
		// No := for err in this block: the removal below must report
		// its failure through Run's own err, not a shadow of it.
		var gopls, tmp string
		if gopls, err = FindGopls(opts.Env); err != nil {
			return nil, err
		}
		rep.Gopls = gopls
		if steps == nil {
			if steps, err = SampleSteps(); err != nil {
				return nil, err
			}
		}
		if tmp, err = os.MkdirTemp("", "acp-lsp-demo-"); err != nil {
			return nil, fmt.Errorf("temporary workspace: %w", err)
		}
		if ws, err = filepath.EvalSymlinks(tmp); err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("temporary workspace: %w", err)
		}
		if !opts.Keep {
			// Runs after acp-lsp is stopped (deferred later), so the
			// line comes after how it ended, and only when it is true.
			defer func() {
				if rmErr := removeAll(ws); rmErr != nil {
					if err == nil {
						err = fmt.Errorf("remove temporary workspace: %w", rmErr)
					}
					return
				}
				if rep != nil && rep.ChainExit != "" {
					fmt.Fprintf(out, "workspace removed: %s\n", ws)
				}
			}()
		}
		if err := CopySample(ws); err != nil {
			return nil, err
		}
	} else {
		abs, err := filepath.Abs(ws)
		if err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("workspace %s is not a folder", abs)
		}
		if ws, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		if steps == nil {
			if steps, err = WorkspaceSteps(ws); err != nil {
				return nil, err
			}
		}
	}
	rep.Workspace = ws
	opts.Env = append(withWaitBudget(opts.Env), ownServersVar+"=false")
	printHeader(out, opts, rep)

	ch, err := startChain(opts, ws)
	if err != nil {
		return rep, err
	}
	defer func() {
		rep.ChainExit = ch.stop(opts.ExitGrace)
		fmt.Fprintf(out, "\nacp-lsp %s\n", rep.ChainExit)
		if opts.Workspace == "" && opts.Keep {
			fmt.Fprintf(out, "workspace kept: %s\n", ws)
		}
	}()

	start := time.Now()
	sid, err := ch.open(ctx, ws)
	if err != nil {
		return rep, fmt.Errorf("open session: %w%s", err, ch.exitHint())
	}
	rep.Connect = time.Since(start)
	fmt.Fprintf(out, "\nsession open after %s (acp-lsp started, initialize and session/new through the chain)\n", round(rep.Connect))

	var failed []string
	for i, st := range steps {
		res, err := ch.step(ctx, sid, st, opts.StepTimeout)
		rep.Steps = append(rep.Steps, res)
		printStep(out, i+1, len(steps), res, i == 0 && rep.Gopls != "")
		if err != nil {
			return rep, fmt.Errorf("step %d (%s): %w%s", i+1, st.Title, err, ch.exitHint())
		}
		if res.Status != string(acp.ToolCallStatusCompleted) {
			failed = append(failed, fmt.Sprint(i+1))
		}
		if strings.Contains(res.Text, `offers tool "lsp"`) {
			return rep, fmt.Errorf("step %d: acp-lsp did not give the agent its lsp tool (the session's MCP servers lack it); run with -log-level debug to see why", i+1)
		}
	}
	var total time.Duration
	for _, r := range rep.Steps {
		total += r.Duration
	}
	fmt.Fprintf(out, "\n%d steps in %s, %d failed\n", len(rep.Steps), round(total), len(failed))
	if len(failed) > 0 {
		return rep, fmt.Errorf("%d of %d steps failed (%s; their answers are above)", len(failed), len(rep.Steps), strings.Join(failed, ", "))
	}
	fmt.Fprintln(out, "next: run 'acp-lsp doctor' in your project, then give your editor 'acp-lsp -- YOUR-AGENT' as its agent (docs/editors.md)")
	return rep, nil
}

// waitBudgetVar sets how long a diagnostics answer waits for fresh results.
// acp-lsp's default (5s) suits an editor session where servers are warm;
// the demo's first call starts gopls on a possibly busy machine, so it
// allows longer unless the caller chose a value.
const (
	waitBudgetVar  = "ACP_LSP_DIAGNOSTICS_WAIT_BUDGET"
	demoWaitBudget = "1m"
)

// ownServersVar is local.shared: the demo's acp-lsp runs its gopls
// itself, so it ends with the demo (whose workspace is removed) instead
// of staying in the user's server host. Last in the environment, it wins.
const ownServersVar = "ACP_LSP_LOCAL_SHARED"

// withWaitBudget returns env (nil: this process's) with the demo's
// diagnostics wait budget unless env sets one.
func withWaitBudget(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, waitBudgetVar+"="); ok && v != "" {
			return env
		}
	}
	return append(slices.Clip(env), waitBudgetVar+"="+demoWaitBudget)
}

// goplsVersion returns " (VERSION)" as gopls reports it, or "" when it
// cannot say within a few seconds: the line is information, not a check.
func goplsVersion(path string, env []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "version")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if first == "" {
		return ""
	}
	return " (" + first + ")"
}

func printHeader(out io.Writer, opts Options, rep *Report) {
	fmt.Fprintln(out, "acp-lsp demo: an ACP client (this command) → acp-lsp (conductor, adapter, component) → the scripted agent (acp-lsp agent, no model)")
	if opts.Workspace == "" {
		fmt.Fprintf(out, "  workspace  %s (a copy of the sample Go module; nothing in your checkout changes)\n", rep.Workspace)
		fmt.Fprintf(out, "  gopls      %s%s\n", rep.Gopls, goplsVersion(rep.Gopls, opts.Env))
	} else {
		fmt.Fprintf(out, "  workspace  %s (used in place; the steps only read)\n", rep.Workspace)
	}
	fmt.Fprintf(out, "  command    %s\n", strings.Join(opts.Chain, " "))
	for _, kv := range opts.Env {
		if v, ok := strings.CutPrefix(kv, waitBudgetVar+"="); ok {
			fmt.Fprintf(out, "  waits      diagnostics wait up to %s for fresh results (%s; acp-lsp's default is 5s)\n", v, waitBudgetVar)
		}
	}
}

func printStep(out io.Writer, n, total int, r StepResult, first bool) {
	fmt.Fprintf(out, "\n[%d/%d] %s (%s, %s)\n", n, total, r.Title, r.Status, round(r.Duration))
	if first {
		fmt.Fprintln(out, "      the first call also starts gopls and waits for it to load the workspace")
	}
	fmt.Fprintf(out, "  the agent ran: %s\n  the agent saw:\n", r.Line)
	text := strings.TrimRight(r.Text, "\n")
	if text == "" {
		text = "(nothing)"
	}
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(out, "    │ %s\n", l)
	}
}

// round shortens a duration for reading: milliseconds below 10s.
func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// chain is the running acp-lsp process and the ACP connection to it.
type chain struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *acp.ClientSideConnection
	client *client
	exited chan struct{}
	// exitErr is cmd.Wait's result, set before exited closes.
	exitErr error
}

func startChain(opts Options, ws string) (*chain, error) {
	cmd := exec.Command(opts.Chain[0], opts.Chain[1:]...)
	cmd.Dir = ws
	cmd.Env = opts.Env
	cmd.Stderr = opts.Stderr
	// Its own process group: a Ctrl-C in the terminal reaches the demo
	// only, which then ends acp-lsp the way an editor would (closing its
	// stdin), and a leftover can be killed as a group.
	reap.OwnGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start acp-lsp: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start acp-lsp: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start acp-lsp: %w", err)
	}
	ch := &chain{cmd: cmd, stdin: stdin, client: newClient(), exited: make(chan struct{})}
	go func() {
		ch.exitErr = cmd.Wait()
		close(ch.exited)
	}()
	ch.conn = acp.NewClientSideConnection(ch.client, stdin, stdout)
	// The connection logs its own end at info level; the demo reports
	// how acp-lsp ended itself.
	ch.conn.SetLogger(slog.New(slog.DiscardHandler))
	return ch, nil
}

// open initializes the chain and opens a session in ws.
func (ch *chain) open(ctx context.Context, ws string) (acp.SessionId, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	init, err := ch.conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{},
		ClientInfo:         &acp.Implementation{Name: "acp-lsp-demo", Version: "1"},
	})
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	if init.AgentInfo != nil && init.AgentInfo.Name != "" {
		ch.client.agent = init.AgentInfo.Name
	}
	sess, err := ch.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		return "", fmt.Errorf("session/new: %w", err)
	}
	return sess.SessionId, nil
}

// step runs one prompt and collects the tool call it caused.
func (ch *chain) step(parent context.Context, sid acp.SessionId, st Step, timeout time.Duration) (StepResult, error) {
	res := StepResult{Step: st, Status: "no tool call"}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	ch.client.reset()
	start := time.Now()
	resp, err := ch.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(st.Line)}})
	res.Duration = time.Since(start)
	calls, text := ch.client.take()
	switch {
	case len(calls) > 0:
		res.Status, res.Text = calls[0].status, calls[0].text
	case text != "":
		res.Text = text
	}
	if err != nil {
		switch {
		case parent.Err() != nil:
			return res, fmt.Errorf("interrupted: %w", parent.Err())
		case ctx.Err() != nil:
			return res, fmt.Errorf("no answer within %s (-timeout): %w", timeout, ctx.Err())
		}
		return res, fmt.Errorf("session/prompt: %w", err)
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		return res, fmt.Errorf("the turn ended with %q", resp.StopReason)
	}
	return res, nil
}

// exitHint says how acp-lsp ended when the connection to it broke, for
// the error that reports it. A broken connection usually means acp-lsp is
// exiting, so it waits a little for the exit status.
func (ch *chain) exitHint() string {
	select {
	case <-ch.conn.Done():
	default:
		return ""
	}
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-ch.exited:
	case <-t.C:
		return " (acp-lsp closed its output; its log is above)"
	}
	if ch.exitErr != nil {
		return fmt.Sprintf(" (acp-lsp exited: %v; its log is above)", ch.exitErr)
	}
	return " (acp-lsp exited; its log is above)"
}

// stop closes acp-lsp's stdin, as an editor does when it quits, and waits
// up to grace for it to end its agent and servers and exit. One still
// running gets SIGTERM (acp-lsp then shuts down the same way) and another
// grace; only then is its process group killed, which can orphan language
// servers in their own groups, so it is the last resort. It says how
// acp-lsp ended.
func (ch *chain) stop(grace time.Duration) string {
	ch.stdin.Close()
	how := ""
	if !ch.waitExit(grace) {
		how = fmt.Sprintf("did not exit within %s of its client closing; ", grace)
		_ = ch.cmd.Process.Signal(syscall.SIGTERM)
		if ch.waitExit(grace) {
			how += "it exited after SIGTERM"
		} else {
			how += fmt.Sprintf("nor within %s of SIGTERM, so its process group was killed", grace)
		}
	}
	// Anything still in the group (nothing, normally) goes too.
	_ = reap.KillGroup(ch.cmd.Process)
	<-ch.exited
	if how != "" {
		return how
	}
	if ch.exitErr != nil {
		return "exited after the client closed: " + ch.exitErr.Error()
	}
	return "exited cleanly after the client closed (it ends the agent and the language servers first)"
}

// waitExit reports whether acp-lsp exited within d.
func (ch *chain) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch.exited:
		return true
	case <-t.C:
		return false
	}
}

// client is the demo's ACP client: it records the tool calls of the
// running turn and refuses what a demo must not do (write files, run
// terminals, approve changes).
type client struct {
	acpclient.Refusing // files and terminals
	agent              string

	mu    sync.Mutex
	calls map[acp.ToolCallId]*toolCall
	order []acp.ToolCallId
	text  strings.Builder
}

type toolCall struct {
	status string
	text   string
}

func newClient() *client { return &client{calls: map[acp.ToolCallId]*toolCall{}} }

func (c *client) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = map[acp.ToolCallId]*toolCall{}
	c.order = nil
	c.text.Reset()
}

// take returns the tool calls of the turn in order, and the agent's text
// when it ran none.
func (c *client) take() ([]toolCall, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []toolCall
	for _, id := range c.order {
		out = append(out, *c.calls[id])
	}
	return out, c.text.String()
}

func (c *client) call(id acp.ToolCallId) *toolCall {
	tc := c.calls[id]
	if tc == nil {
		tc = &toolCall{}
		c.calls[id] = tc
		c.order = append(c.order, id)
	}
	return tc
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	u := n.Update
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case u.ToolCall != nil:
		tc := c.call(u.ToolCall.ToolCallId)
		tc.status = string(u.ToolCall.Status)
	case u.ToolCallUpdate != nil:
		tc := c.call(u.ToolCallUpdate.ToolCallId)
		if u.ToolCallUpdate.Status != nil {
			tc.status = string(*u.ToolCallUpdate.Status)
		}
		var parts []string
		for _, content := range u.ToolCallUpdate.Content {
			if content.Content != nil && content.Content.Content.Text != nil {
				parts = append(parts, content.Content.Content.Text.Text)
			}
		}
		if len(parts) > 0 {
			tc.text = strings.Join(parts, "\n")
		}
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		c.text.WriteString(u.AgentMessageChunk.Content.Text.Text)
	}
	return nil
}

// RequestPermission declines: the demo only previews changes.
func (c *client) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Selected: &acp.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: "reject"},
	}}, nil
}
