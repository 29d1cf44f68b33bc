package component

import (
	"bufio"
	"encoding/json"
	"net"
	"strings"
	"testing"
)

// TestStdioEntryHidesToken: the stdio entry's command line, which every
// local user can read (ps, /proc/PID/cmdline), holds no part of the
// session's token (its HTTP credential): not 8 characters of it in a row,
// in the command, the arguments or the environment. The socket it names
// still serves the session's MCP server, as the bridge reaches it.
func TestStdioEntryHidesToken(t *testing.T) {
	c, s := startSession(t, Config{}, newFake(), t.TempDir())
	raw := c.Entry(s, TransportStdio)
	var e struct {
		Command string
		Args    []string
		Env     []struct{ Name, Value string }
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+8 <= len(s.token); i++ {
		if part := s.token[i : i+8]; strings.Contains(string(raw), part) {
			t.Fatalf("the stdio entry holds %q of the token %s: %s", part, s.token, raw)
		}
	}
	if len(e.Args) != 3 || e.Args[0] != "mcp-bridge" || e.Args[1] != "--socket" {
		t.Fatalf("stdio entry arguments %q", e.Args)
	}
	conn, err := net.Dial("unix", e.Args[2])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Result struct{ ProtocolVersion string }
	}
	if json.Unmarshal(line, &m); m.Result.ProtocolVersion != "2025-06-18" {
		t.Fatalf("initialize over the entry's socket answered %s", line)
	}
}
