package peerrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPRoleVar makes a test binary whose TestMain calls MaybeServeMCP act as
// a stdio MCP server instead of running tests.
const MCPRoleVar = "ACP_LSP_TEST_MCP_SERVER"

// EchoPrefix starts the text the test MCP server's echo tool answers.
const EchoPrefix = "echo: "

// EchoArgs are the arguments of the echo tool.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

// FailArgs are the arguments of the fail tool.
type FailArgs struct {
	Message string `json:"message" jsonschema:"the error text"`
}

// BlockArgs are the arguments of the block tool.
type BlockArgs struct{}

// NewMCPServer returns a small MCP server for tests, with three tools:
// echo (answers EchoPrefix + text), fail (a tool error with the message),
// and block (returns only when the call is cancelled).
func NewMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "acp-lsp-test-mcp", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Sends the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: EchoPrefix + in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails with the message."},
		func(_ context.Context, _ *mcp.CallToolRequest, in FailArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New(in.Message)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Waits until the call is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ BlockArgs) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	return s
}

// MaybeServeMCP serves NewMCPServer on stdin/stdout and exits when the
// process was started with MCPRoleVar=stdio; otherwise it returns at once.
// Call it first in TestMain so the test binary doubles as a stdio MCP
// server (see MCPStdioServer).
func MaybeServeMCP() {
	if os.Getenv(MCPRoleVar) != "stdio" {
		return
	}
	err := NewMCPServer().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "test mcp server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// MCPStdioServer returns an ACP stdio McpServer entry that runs the current
// test binary as the test MCP server (its TestMain must call MaybeServeMCP).
func MCPStdioServer(t testing.TB, name string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return StdioServer(name, exe, nil, map[string]string{MCPRoleVar: "stdio"})
}

// ServeMCPHTTP serves NewMCPServer over streamable HTTP on 127.0.0.1 until
// the test ends and returns its URL.
func ServeMCPHTTP(t testing.TB) string {
	t.Helper()
	s := NewMCPServer()
	return serveMCP(t, s, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
}

// ServeMCPSSE serves NewMCPServer over the older HTTP+SSE transport on
// 127.0.0.1 until the test ends and returns its URL.
func ServeMCPSSE(t testing.TB) string {
	t.Helper()
	s := NewMCPServer()
	return serveMCP(t, s, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
}

func serveMCP(t testing.TB, s *mcp.Server, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		// Sessions outlive HTTP connections; a client that had no chance
		// to end its session would leave one running.
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}
