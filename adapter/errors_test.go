package adapter

import (
	"context"
	"fmt"
	"io/fs"
	"testing"

	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// TestRPCErrorCodes checks the code each kind of failure reaches the asker
// with: the asker's own mistakes are -32602, server trouble -32603.
func TestRPCErrorCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"bad params", badParams("line %d is past the end", 9), proxy.CodeInvalidParams},
		{"outside the workspace", fmt.Errorf("route /etc/passwd: %w", lsp.ErrOutsideWorkspace), proxy.CodeInvalidParams},
		{"too large", fmt.Errorf("sync: %w", &lsp.FileError{Path: "/w/huge.go", Size: 12 << 20, Limit: 10 << 20, Err: lsp.ErrFileTooLarge}), proxy.CodeInvalidParams},
		{"binary", &lsp.FileError{Path: "/w/blob.go", Offset: 3, Err: lsp.ErrBinaryFile}, proxy.CodeInvalidParams},
		{"deleted", fmt.Errorf("sync /w/gone.go: %w", fs.ErrNotExist), proxy.CodeInvalidParams},
		{"unsupported", unsupported("no server offers %s", "textDocument/foo"), proxy.CodeMethodNotFound},
		{"server failure", fmt.Errorf("start gopls: exit status 2"), proxy.CodeInternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := rpcError(context.Background(), "_lsp/request", tc.err)
			if e.Code != tc.want {
				t.Errorf("code %d (%s), want %d", e.Code, e.Message, tc.want)
			}
		})
	}
}
