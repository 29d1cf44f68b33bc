// Package stacktest runs acp-lsp's stack in process: a proxy.Chain of the
// caller's stages (the adapter, the component, or both) between a
// scripted editor and a scripted agent over in-memory pipes. It is the
// one harness of the chain tests of packages adapter and component and of
// the benchmarks and soak tests (internal/test/bench's Stack).
//
// The caller builds the stages, so this package imports neither adapter
// nor component and the in-package tests of both can use it.
//
// The ends work in one of two ways. By default every message the chain
// writes to an end is queued (after the end's Handler, if any, had its
// say) and the test reads and answers step by step: End.Next, End.Sendf,
// with Chain.Initialize and Chain.NewSession for the usual first steps.
// With Config.Answer the ends answer by themselves (see Config) and the
// caller drives the chain with Chain.Call and Chain.OpenSession, safe for
// concurrent use, as benchmarks and soak tests do.
package stacktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/test/acptest"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// Wait bounds every wait of a test for a message or a tool call: real
// language servers are slow on a shared machine, and these tests are
// about what arrives, never about how fast.
const Wait = 3 * time.Minute

// Executable is the acp-lsp path tests give the component: its stdio MCP
// entry names it, but the scripted agents here use the HTTP entry, so it
// is never run.
const Executable = "/bin/acp-lsp"

// DiagnosticsWait is the component's wait for fresh diagnostics in tests
// of the stack with real servers, which are slow on a shared machine.
const DiagnosticsWait = 90 * time.Second

// Config is the chain Start runs.
type Config struct {
	// Stages sit between the editor and the agent, editor side first.
	Stages []proxy.Stage
	// Editor and Agent, when set, see every message written to their end
	// first (see acptest.Handler); what they leave is queued for Next.
	Editor, Agent acptest.Handler
	// Answer makes both ends answer by themselves, in place of Editor and
	// Agent: the agent answers initialize (MCP over HTTP supported),
	// session/new (with a fresh session id, keeping the HTTP MCP entry it
	// carried for OpenSession), session/cancel and session/close, and
	// refuses other requests; the editor refuses every request and drops
	// notifications. Nothing is queued.
	Answer bool
}

// End is one scripted end of the chain, the editor or the agent: an
// acptest.Peer with the steps of a test.
type End struct{ *acptest.Peer }

// Sendf writes one line, formatted, into the chain; a failed write fails
// t.
func (e End) Sendf(t testing.TB, format string, args ...any) {
	t.Helper()
	if err := e.SendLine(fmt.Sprintf(format, args...)); err != nil {
		t.Fatal(err)
	}
}

// Next returns the next queued message; it fails t when the chain closed
// this end or nothing arrived within Wait.
func (e End) Next(t testing.TB) acptest.Msg {
	t.Helper()
	return e.Expect(t, Wait)
}

// NextMethod returns the next queued message with method and the
// messages passed over before it; it fails t as Next does, each message
// waited for up to Wait.
func (e End) NextMethod(t testing.TB, method string) (acptest.Msg, []acptest.Msg) {
	t.Helper()
	var skipped []acptest.Msg
	for {
		m := e.Next(t)
		if m.Method == method {
			return m, skipped
		}
		skipped = append(skipped, m)
	}
}

// Chain is a running chain: Editor is its client end, Agent its agent
// end.
type Chain struct {
	Editor, Agent End

	cancel    context.CancelFunc
	done      chan error
	closeOnce sync.Once
	closeErr  error

	sessions *sessions // with Config.Answer
}

// Start runs the chain of cfg until Close. The chain gets ctx's values,
// not its end: Close ends it.
func Start(ctx context.Context, cfg Config) *Chain {
	c := &Chain{done: make(chan error, 1)}
	editor, agent := cfg.Editor, cfg.Agent
	if cfg.Answer {
		c.sessions = &sessions{entries: map[string]Entry{}}
		editor, agent = answerEditor, c.sessions.answerAgent
	}
	var cep, aep *proxy.Stream
	c.Editor.Peer, cep = acptest.New("editor", editor)
	c.Agent.Peer, aep = acptest.New("agent", agent)
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	go func() {
		c.done <- proxy.NewChain(proxy.Config{Client: cep, Agent: aep, Stages: cfg.Stages}).Run(cctx)
	}()
	return c
}

// Run is Start for a test: the chain is closed when t ends, before
// whatever t.Cleanup registered earlier (such as closing the stages). The
// chain's own error is not checked: the tests check what arrives.
func Run(t testing.TB, cfg Config) *Chain {
	t.Helper()
	c := Start(context.Background(), cfg)
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Close ends the chain: it cancels the chain's context, closes both ends,
// waits for the chain to return and then for both ends' readers to end.
// It returns the chain's error, nil for an orderly end (cancelled, or an
// end gone first: both are closed at once here), or ctx's error when ctx
// ends before the chain does (the chain is then left to end by itself).
// Later calls return the first one's result.
func (c *Chain) Close(ctx context.Context) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(ctx) })
	return c.closeErr
}

func (c *Chain) close(ctx context.Context) error {
	c.cancel()
	c.Editor.Close()
	c.Agent.Close()
	var err error
	select {
	case err = <-c.done:
	case <-ctx.Done():
		return fmt.Errorf("stacktest close: the chain did not end: %w", ctx.Err())
	}
	// The chain closed its streams when it returned: the ends' readers
	// see EOF; what they queued and nobody read is dropped.
	for range c.Editor.Messages() {
	}
	for range c.Agent.Messages() {
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, proxy.ErrAgentGone) {
		return nil
	}
	return err
}
