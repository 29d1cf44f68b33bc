package component

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPOriginAndScheme: a request from a browser page (an Origin
// header) is served only when the page is this server on a loopback
// host, against DNS rebinding (MCP Streamable HTTP, security warning);
// a request without Origin (an agent's MCP client) is served; the
// authentication scheme is matched case-insensitively (RFC 9110 §11.1).
// Both the fast path and the SDK apply the same checks, so every case
// runs on each.
func TestHTTPOriginAndScheme(t *testing.T) {
	c, rc := startRaw(t, newFake())
	_, port, err := net.SplitHostPort(c.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	tok := rc.token
	hover := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"hover","file":"main.go","line":5,"symbol":"add"}}}`
	for _, tc := range []struct {
		name   string
		origin []string // Origin headers sent, none when nil
		auth   string   // Authorization, "Bearer TOKEN" when empty
		status int
	}{
		{name: "no Origin", status: http.StatusOK},
		{name: "Origin 127.0.0.1 with this port", origin: []string{"http://127.0.0.1:" + port}, status: http.StatusOK},
		{name: "Origin localhost with this port", origin: []string{"http://localhost:" + port}, status: http.StatusOK},
		{name: "Origin [::1] with this port", origin: []string{"http://[::1]:" + port}, status: http.StatusOK},
		{name: "Origin 127.0.0.2 with this port", origin: []string{"http://127.0.0.2:" + port}, status: http.StatusOK},
		{name: "Origin in capitals", origin: []string{"HTTP://LOCALHOST:" + port}, status: http.StatusOK},
		{name: "foreign Origin", origin: []string{"http://evil.example"}, status: http.StatusForbidden},
		{name: "foreign Origin with this port", origin: []string{"http://evil.example:" + port}, status: http.StatusForbidden},
		{name: "rebinding name ending in a loopback address", origin: []string{"http://127.0.0.1.evil.example:" + port}, status: http.StatusForbidden},
		{name: "loopback with another port", origin: []string{"http://127.0.0.1:1"}, status: http.StatusForbidden},
		{name: "loopback without a port", origin: []string{"http://127.0.0.1"}, status: http.StatusForbidden},
		{name: "https (not this server)", origin: []string{"https://127.0.0.1:" + port}, status: http.StatusForbidden},
		{name: "opaque Origin null", origin: []string{"null"}, status: http.StatusForbidden},
		{name: "file Origin", origin: []string{"file://"}, status: http.StatusForbidden},
		{name: "Origin with a path", origin: []string{"http://127.0.0.1:" + port + "/x"}, status: http.StatusForbidden},
		{name: "Origin with user info", origin: []string{"http://evil@127.0.0.1:" + port}, status: http.StatusForbidden},
		{name: "garbage Origin", origin: []string{"::::"}, status: http.StatusForbidden},
		{name: "empty Origin", origin: []string{""}, status: http.StatusForbidden},
		{name: "a good and a foreign Origin", origin: []string{"http://127.0.0.1:" + port, "http://evil.example"}, status: http.StatusForbidden},
		{name: "foreign Origin without a token", origin: []string{"http://evil.example"}, auth: "-", status: http.StatusForbidden},
		{name: "scheme lower case", auth: "bearer " + tok, status: http.StatusOK},
		{name: "scheme upper case", auth: "BEARER " + tok, status: http.StatusOK},
		{name: "scheme mixed case", auth: "bEaReR " + tok, status: http.StatusOK},
		{name: "two spaces after the scheme", auth: "Bearer  " + tok, status: http.StatusOK},
		{name: "no space after the scheme", auth: "Bearer" + tok, status: http.StatusUnauthorized},
		{name: "tab after the scheme", auth: "Bearer\t" + tok, status: http.StatusUnauthorized},
		{name: "scheme alone", auth: "Bearer", status: http.StatusUnauthorized},
		{name: "another scheme", auth: "Basic " + tok, status: http.StatusUnauthorized},
		{name: "token and more", auth: "Bearer " + tok + " x", status: http.StatusUnauthorized},
		{name: "lower-case scheme, wrong token", auth: "bearer " + tok[:len(tok)-1] + "x", status: http.StatusUnauthorized},
	} {
		for _, fast := range []bool{true, false} {
			path := map[bool]string{true: "fast path", false: "SDK"}[fast]
			t.Run(tc.name+"/"+path, func(t *testing.T) {
				c.noFast.Store(!fast)
				defer c.noFast.Store(false)
				before := c.fastHits.Load()
				r := rc.post(t, hover, func(h http.Header) {
					switch tc.auth {
					case "":
					case "-":
						h.Del("Authorization")
					default:
						h.Set("Authorization", tc.auth)
					}
					for _, o := range tc.origin {
						h.Add("Origin", o)
					}
				})
				if r.status != tc.status {
					t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
				}
				hits := c.fastHits.Load() - before
				if want := map[bool]int64{true: 1}[fast && tc.status == http.StatusOK]; hits != want {
					t.Errorf("fast path answered %d times, want %d", hits, want)
				}
			})
		}
	}
}

// FuzzAuthHeaders: what the Origin and Authorization checks accept has the
// one shape they are meant to accept, and nothing makes them panic.
func FuzzAuthHeaders(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:4242", "HTTP://LOCALHOST:4242", "http://[::1]:4242", "http://%6cocalhost:4242",
		"http://evil@127.0.0.1:4242", "http://127.0.0.1:4242/", "null", "Bearer abc", "bearer  abc", "Bearer", "Basic abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isOwnOrigin(s, "4242") {
			lower := strings.ToLower(s)
			host, ok := strings.CutPrefix(lower, "http://")
			host, ok2 := strings.CutSuffix(host, ":4242")
			if !ok || !ok2 || strings.ContainsAny(host, "/?#@%\\ ") {
				t.Fatalf("Origin %q accepted", s)
			}
		}
		r := &http.Request{Header: http.Header{"Authorization": {s}}}
		if tok, ok := bearerToken(r); ok {
			if len(s) < 7 || !strings.EqualFold(s[:7], "bearer ") || tok == "" || tok != strings.TrimLeft(s[7:], " ") {
				t.Fatalf("Authorization %q gave token %q", s, tok)
			}
		}
	})
}
