package peerrun

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acp-lsp/acp-lsp/internal/acpclient"
)

// Client is an acp.Client for tests: it records every session update,
// approves every permission request with its first allow option, and
// refuses file-system and terminal requests (tests that need them wrap it).
// Its methods are safe for concurrent use.
type Client struct {
	acpclient.Refusing // files and terminals
	mu                 sync.Mutex
	updates            []acp.SessionNotification
	permissions        []acp.RequestPermissionRequest
	changed            chan struct{} // closed and replaced on every update
}

// NewClient returns an empty recording client.
func NewClient() *Client { return &Client{changed: make(chan struct{})} }

// Updates returns the session updates received so far, in order.
func (c *Client) Updates() []acp.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates...)
}

// Permissions returns the permission requests received so far.
func (c *Client) Permissions() []acp.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), c.permissions...)
}

// WaitUpdate blocks until cond holds for the updates received so far
// (checked now and after every new update) or ctx ends.
func (c *Client) WaitUpdate(ctx context.Context, cond func([]acp.SessionNotification) bool) error {
	for {
		c.mu.Lock()
		ups := append([]acp.SessionNotification(nil), c.updates...)
		ch := c.changed
		c.mu.Unlock()
		if cond(ups) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("wait for session update after %d updates: %w", len(ups), ctx.Err())
		}
	}
}

// SessionUpdate records the update.
func (c *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

// RequestPermission selects the first allow option (or the first option).
func (c *Client) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.permissions = append(c.permissions, p)
	c.mu.Unlock()
	if len(p.Options) == 0 {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	pick := p.Options[0]
	for _, o := range p.Options {
		if o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways {
			pick = o
			break
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: pick.OptionId}}}, nil
}

// Connect speaks ACP to the process as a client through c. The connection
// ends when the process's stdout closes.
func (p *Process) Connect(c acp.Client) *acp.ClientSideConnection {
	conn := acp.NewClientSideConnection(c, p.Stdin, p.Stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	return conn
}

// Start starts `opencode acp` in cwd (empty: o.Dir) in its own process
// group; the test's cleanup stops it.
func (o *Opencode) Start(t testing.TB, cwd string) *Process {
	t.Helper()
	if cwd == "" {
		cwd = o.Dir
	}
	return Start(t, o.Env, cwd, o.Argv()...)
}
