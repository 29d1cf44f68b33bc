package component

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// authenticate refuses a request from a browser page that is not this
// server (ownOrigin), then requires "Authorization: Bearer TOKEN" of a live
// session, and an Mcp-Session-Id, when given, of an MCP session of that
// session's server: the SDK's handler finds MCP sessions by id alone,
// across the servers of all sessions, so a token must not reach another
// workspace's MCP session. A plain tools/call then takes the fast path
// (fastpath.go); everything else goes to the SDK. Both paths pass here.
func (c *Tool) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.ownOrigin(r) {
			http.Error(w, "forbidden: Origin is not this server", http.StatusForbidden)
			return
		}
		s := c.sessionFromRequest(r)
		if s == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="acp-lsp"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		s.watch.open()
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && !s.ownsMCPSession(sid) {
			// The SDK's answer for an id it does not know.
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); r.Method == http.MethodPost && sid != "" {
			c.servePost(w, r, s, sid, next)
			return
		}
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") != "" && !s.ownsMCPSession(r.Header.Get("Mcp-Session-Id")) {
			// The SDK closed the MCP session: so end its calls.
			c.fast.cancelSession(r.Header.Get("Mcp-Session-Id"))
		}
	})
}

// ownOrigin reports whether every Origin header of r names this server
// (ownOrigin). A request without Origin is not from a browser and passes.
// The MCP spec (Streamable HTTP) asks servers to check Origin against DNS
// rebinding: a page that had its name rebound to 127.0.0.1 sends its own
// origin.
func (c *Tool) ownOrigin(r *http.Request) bool {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	_, port, err := net.SplitHostPort(c.HTTPAddr())
	if err != nil {
		return false
	}
	for _, o := range origins {
		if !isOwnOrigin(o, port) {
			return false
		}
	}
	return true
}

// isOwnOrigin reports whether the origin o is "http://HOST:PORT" with a
// loopback HOST (as the SDK's DNS rebinding protection decides it for
// Host) and this server's port: nothing else, no user, path or escapes.
func isOwnOrigin(o, port string) bool {
	const scheme = "http://"
	if len(o) < len(scheme) || !strings.EqualFold(o[:len(scheme)], scheme) {
		return false
	}
	host, p, err := net.SplitHostPort(o[len(scheme):])
	return err == nil && p == port && loopback(strings.ToLower(host))
}

// bearerToken returns the token of r's "Authorization: Bearer TOKEN"; the
// scheme is matched without regard to case (RFC 9110 §11.1), and may be
// followed by several spaces (§11.4).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimLeft(tok, " ")
	return tok, tok != ""
}

func (c *Tool) sessionFromRequest(r *http.Request) *Session {
	tok, ok := bearerToken(r)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, s := range c.sessions {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
			return s
		}
	}
	return nil
}
