package component

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session is one agent session: its workspace and what the agent changed.
type Session struct {
	c     *Tool
	token string
	// sock names the session's socket in the socket folder. It is on the
	// bridge's command line, which every local user can read, so it owes
	// nothing to token; the folder (0700) is what keeps others out.
	sock string
	// sockErr is why the socket could not be made (nil when it was): the
	// session is then reachable over HTTP alone.
	sockErr error
	// cfg holds the settings of this session's calls: the Tool's
	// Config, or what Config.ForSession gave.
	cfg *Config
	// Root is the session's workspace (its cwd, symlinks resolved).
	Root string
	// Extra are the session's further workspace roots, its
	// additionalDirectories (symlinks resolved): its files may be in any
	// root (roots.go).
	Extra []string
	// bounds are the workspace boundaries of Root and then of each of
	// Extra (edit.RootResolver).
	bounds []func(string) (string, error)
	// foreign remembers paths beside the workspace seen with no link on
	// them, for answers to come (render.go).
	foreign plainPaths

	mu sync.Mutex
	// acpID is the ACP session id, once known.
	acpID string
	// touched are files (normalized URIs) written by the agent or saved
	// by the editor since the last turn.
	touched map[string]bool
	// reported are the errors already shown per file, keyed by
	// line:message.
	reported map[string]map[string]bool
	server   *mcp.Server
	// watch notices an agent that never opens server.
	watch *connectWatch
	// injected is the transport of the entry given to the agent ("" when
	// none was), set at session setup.
	injected Transport
	// unredact ends the chain trace's redaction of token (Stage, through
	// proxy.Hop.Redact) when the session closes.
	unredact func()
}

// NewSession registers a session whose workspace is cwd (absolute) and the
// additional directories extra (ACP's additionalDirectories). An extra
// directory that is not absolute or cannot be resolved is left out with a
// warning: the session works in the others. The session's MCP server is
// reachable over both transports when this returns, or over HTTP alone
// where a Unix socket cannot be made (Session.sockErr).
func (c *Tool) NewSession(cwd string, extra ...string) (*Session, error) {
	root, check, err := workspaceRoot(cwd)
	if err != nil {
		return nil, fmt.Errorf("component: session cwd: %w", err)
	}
	var roots []string
	bounds := []func(string) (string, error){check}
	for _, dir := range extra {
		real, rc, err := workspaceRoot(dir)
		if err != nil {
			c.log.Warn("additional directory left out of the session's workspace", "dir", dir, "err", err)
			continue
		}
		if real == root || slices.Contains(roots, real) {
			continue
		}
		roots, bounds = append(roots, real), append(bounds, rc)
	}
	cfg := &c.cfg
	if c.cfg.ForSession != nil {
		sc := c.cfg.ForSession(root, c.cfg)
		if err := sc.fill(); err != nil {
			return nil, err
		}
		cfg = &sc
	}
	s := &Session{c: c, token: newToken(), sock: randomHex(8) + ".sock", Root: root, Extra: roots, bounds: bounds, cfg: cfg,
		touched: map[string]bool{}, reported: map[string]map[string]bool{}, watch: newConnectWatch(c.cfg.ConnectWarning)}
	s.server = c.newServer(s)
	ln, err := net.Listen("unix", c.socketPath(s))
	if err != nil {
		// Windows before 10 (1803) and Wine have no AF_UNIX; an agent
		// that takes HTTP needs no socket, so only a stdio entry fails
		// (patchSessionSetup).
		s.sockErr = fmt.Errorf("component: session socket: %w", err)
		c.log.Warn("no Unix socket for the session: the lsp tool is offered over HTTP only", "err", err)
	}
	c.mu.Lock()
	c.sessions[s.token] = s
	if ln != nil {
		c.sockets[s] = ln
	}
	c.mu.Unlock()
	if ln != nil {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.serveSocket(s, ln)
		}()
	}
	return s, nil
}

// newToken returns a session's secret: its HTTP bearer token.
func newToken() string { return randomHex(24) }

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *Tool) socketPath(s *Session) string {
	return filepath.Join(c.sockDir, s.sock)
}

func (c *Tool) serveSocket(s *Session, ln net.Listener) {
	defer os.Remove(c.socketPath(s))
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		s.watch.open()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			stop := context.AfterFunc(c.ctx, func() { conn.Close() })
			defer stop()
			ss, err := s.server.Connect(c.ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
			if err != nil {
				conn.Close()
				return
			}
			ss.Wait()
			conn.Close()
		}()
	}
}

var _ io.Closer = (*net.UnixListener)(nil)

// CloseSession ends a session (on ACP session/close): its token stops
// working, its socket is removed and its MCP connections end.
func (c *Tool) CloseSession(s *Session) {
	c.mu.Lock()
	delete(c.sessions, s.token)
	if s.acpID != "" && c.byACP[s.acpID] == s {
		delete(c.byACP, s.acpID)
	}
	ln := c.sockets[s]
	delete(c.sockets, s)
	c.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	s.watch.stop()
	s.mu.Lock()
	unredact := s.unredact
	s.unredact = nil
	s.mu.Unlock()
	if unredact != nil {
		unredact()
	}
	for ss := range s.server.Sessions() {
		if id := ss.ID(); id != "" {
			c.fast.cancelSession(id)
		}
		ss.Close()
	}
}

// Bind records the ACP session id the agent gave the session (from the
// session/new response, or the params of load/resume/fork).
func (c *Tool) Bind(s *Session, acpSessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.mu.Lock()
	s.acpID = acpSessionID
	s.mu.Unlock()
	c.byACP[acpSessionID] = s
}

// SessionByACP returns the session bound to an ACP session id.
func (c *Tool) SessionByACP(id string) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byACP[id]
}

// Opened is closed when the agent first opens the session's MCP server
// (the bridge reaching its socket, or an HTTP request with its token).
func (s *Session) Opened() <-chan struct{} { return s.watch.openedCh }

// Injected is the transport of the MCP entry the agent was given for the
// session, "" when it was given none (it advertises no transport acp-lsp
// offers).
func (s *Session) Injected() Transport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.injected
}

func (s *Session) acpSessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acpID
}
