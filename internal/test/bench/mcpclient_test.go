package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leanTestServerEnv makes the test binary an MCP server over stdio (see
// TestMain): the lean client's stdio transport is tested against a real
// go-sdk server in a child process, as cclsp and lsmcp are driven.
const leanTestServerEnv = "ACP_LSP_BENCH_TEST_MCP_STDIO"

type echoIn struct {
	Text string `json:"text"`
	// Ping makes the server ping the client first (a request from the
	// server, which the lean client refuses).
	Ping bool `json:"ping,omitempty"`
	Fail bool `json:"fail,omitempty"`
}

func newEchoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		text := in.Text
		if in.Ping {
			err := req.Session.Ping(ctx, nil)
			text += " / ping: " + errString(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: in.Fail}, nil, nil
	})
	return s
}

func errString(err error) string {
	if err == nil {
		return "answered"
	}
	return err.Error()
}

// serveStdioForTest runs the echo server over stdin/stdout.
func serveStdioForTest() {
	newEchoServer().Run(context.Background(), &mcp.StdioTransport{})
}

func TestLeanClientHTTP(t *testing.T) {
	for _, c := range []struct {
		name string
		json bool
	}{{"json", true}, {"event stream", false}} {
		t.Run(c.name, func(t *testing.T) {
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newEchoServer() }, &mcp.StreamableHTTPOptions{JSONResponse: c.json})
			var deleted bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer tok" {
					http.Error(w, "no token", http.StatusUnauthorized)
					return
				}
				if r.Method == http.MethodDelete {
					deleted = r.Header.Get("Mcp-Session-Id") != ""
				}
				h.ServeHTTP(w, r)
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := connectLeanHTTP(ctx, srv.URL, "wrong"); err == nil || !strings.Contains(err.Error(), "401") {
				t.Errorf("wrong token: %v, want a 401 error", err)
			}
			lc, err := connectLeanHTTP(ctx, srv.URL, "tok")
			if err != nil {
				t.Fatal(err)
			}
			if lc.version == "" {
				t.Error("no protocol version negotiated")
			}
			checkEcho(t, ctx, lc)
			if err := lc.close(); err != nil || !deleted {
				t.Errorf("close: %v, session deleted: %v", err, deleted)
			}
		})
	}
}

func TestLeanClientStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	lc, cmd, err := startLeanStdio(ctx, "echo", []string{exe}, append(os.Environ(), leanTestServerEnv+"=1"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, ctx, lc)
	text, _, err := lc.callTool(ctx, "echo", map[string]any{"text": "x", "ping": true})
	if err != nil || !strings.Contains(text, "the bench client offers no ping") {
		t.Errorf("a request from the server: %q, %v; want it refused", text, err)
	}
	if err := lc.close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil {
		t.Error("the server process was not waited for")
	}
	if _, _, err := lc.callTool(ctx, "echo", map[string]any{"text": "late"}); err == nil {
		t.Error("a call after close succeeded")
	}
}

func checkEcho(t *testing.T, ctx context.Context, lc *leanClient) {
	t.Helper()
	for _, c := range []struct {
		args    map[string]any
		text    string
		isError bool
	}{
		{map[string]any{"text": "hello"}, "hello", false},
		{map[string]any{"text": "ünïcode ✓"}, "ünïcode ✓", false},
		{map[string]any{"text": "bad", "fail": true}, "bad", true},
	} {
		text, isError, err := lc.callTool(ctx, "echo", c.args)
		if err != nil || text != c.text || isError != c.isError {
			t.Errorf("echo %v = %q, %v, %v; want %q, %v", c.args, text, isError, err, c.text, c.isError)
		}
	}
	if _, _, err := lc.callTool(ctx, "nosuch", nil); err == nil {
		t.Error("an unknown tool answered without error")
	}
}
