package adapter

import (
	"context"
	"encoding/json"

	"github.com/acp-lsp/acp-lsp/lsp"
)

// LocalServers is what the adapter needs of local language servers: the
// lsp.Manager's API, served by a Manager in this process or by the user's
// shared server host (internal/serverhost). Every method means what the
// Manager's of the same name means; paths outside the roots added are
// refused with lsp.ErrOutsideWorkspace.
type LocalServers interface {
	AddRoot(root string) error
	Ask(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error)
	AskNative(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error)
	Peek(ctx context.Context, path, method string, params json.RawMessage) (lsp.Answer, error)
	Diagnostics(ctx context.Context, paths []string, opts lsp.DiagnosticsOptions) (*lsp.DiagnosticsReport, error)
	CheckEdit(ctx context.Context, files map[string]string, opts lsp.DiagnosticsOptions) (lsp.CheckEditReport, error)
	FileChanged(ctx context.Context, paths ...string) error
	FileSaved(ctx context.Context, path string) error
	WillRenameFile(ctx context.Context, oldPath, newPath string) (json.RawMessage, error)
	FileRenamed(ctx context.Context, oldPath, newPath string) error
	Prewarm(ctx context.Context, path string) error
	Restart(ctx context.Context, name, path string) error
	Subscribe(buf int) (<-chan lsp.DiagnosticsEvent, func())
	Servers() []lsp.ServerStatus
	WatchStatus() lsp.WatchStatus
	Survey(root string, keep int) *lsp.Survey
	Close(ctx context.Context) error
}

var _ LocalServers = (*lsp.Manager)(nil)
