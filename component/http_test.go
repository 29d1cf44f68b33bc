package component

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
)

func TestTransportsSecurity(t *testing.T) {
	c, err := New(Config{}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := os.Stat(c.SocketDir())
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode %v, %v", st.Mode().Perm(), err)
	}
	s, err := c.NewSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + c.HTTPAddr() + "/mcp"
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tok := range []string{"", "Bearer wrong", "Basic " + s.token} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("authorization %q: status %d, want 401", tok, resp.StatusCode)
		}
	}
	// DNS rebinding: a right token from a foreign Host is still refused.
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Host = "evil.example:80"
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Errorf("foreign Host accepted: %d", resp.StatusCode)
	}

	// Over HTTP with the token: server/discover gets -32601, initialize
	// answers either protocol version agents use.
	post := func(body string) map[string]any {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %v", body, resp.StatusCode, err)
		}
		return m
	}
	if e, _ := post(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Errorf("http server/discover answered %v", e)
	}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		m := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, v))
		if res, _ := m["result"].(map[string]any); res == nil || res["protocolVersion"] != v {
			t.Errorf("http initialize %s answered %v", v, m)
		}
	}

	// Over stdio (the socket the bridge uses): server/discover gets
	// -32601, then initialize works, with either protocol version.
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		conn, err := net.Dial("unix", c.socketPath(s))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		send := func(line string) map[string]any {
			if _, err := conn.Write([]byte(line + "\n")); err != nil {
				t.Fatal(err)
			}
			out, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			json.Unmarshal(out, &m)
			return m
		}
		m := send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`)
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
			t.Errorf("server/discover answered %v", m)
		}
		m = send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, v))
		res, _ := m["result"].(map[string]any)
		if res == nil || res["protocolVersion"] != v {
			t.Errorf("initialize %s answered %v", v, m)
		}
		conn.Close()
	}

	// A closed session's token and socket stop working.
	c.CloseSession(s)
	req, _ = http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("closed session's token: status %d", resp.StatusCode)
	}
	if conn, err := net.Dial("unix", c.socketPath(s)); err == nil {
		conn.Close()
		t.Error("closed session's socket still accepts")
	}
}
