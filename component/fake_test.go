package component

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// fakeBackend answers from canned raw LSP results keyed by method, and
// records what the component sent.
type fakeBackend struct {
	mu       sync.Mutex
	results  map[string]string
	report   *lspext.DiagnosticReportResult
	reports  chan []string
	changed  [][]lspext.FileChange
	requests []string
	// waits are the waits of the diagnostic reports asked for, in order.
	waits []time.Duration
	// readiness is what the answers to a method say of their servers.
	readiness map[string][]lspext.Readiness
}

func newFake() *fakeBackend {
	return &fakeBackend{results: map[string]string{}}
}

func (f *fakeBackend) set(method, result string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.results[method] = result
}

// setReadiness makes the answers to method say rs of their servers.
func (f *fakeBackend) setReadiness(method string, rs ...lspext.Readiness) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readiness == nil {
		f.readiness = map[string][]lspext.Readiness{}
	}
	f.readiness[method] = rs
}

func (f *fakeBackend) Request(ctx context.Context, uri, method string, params json.RawMessage) (lspext.RequestResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, method+" "+string(params))
	r, ok := f.results[method]
	if !ok {
		return lspext.RequestResult{}, fmt.Errorf("fake: %s not supported", method)
	}
	return lspext.RequestResult{Result: json.RawMessage(r), Readiness: f.readiness[method]}, nil
}

func (f *fakeBackend) DiagnosticReport(ctx context.Context, uris []string, wait time.Duration) (*lspext.DiagnosticReportResult, error) {
	f.mu.Lock()
	rep, ch := f.report, f.reports
	f.waits = append(f.waits, wait)
	f.mu.Unlock()
	if ch != nil {
		defer func() { ch <- uris }()
	}
	if rep == nil {
		return &lspext.DiagnosticReportResult{}, nil
	}
	return rep, nil
}

func (f *fakeBackend) Servers(ctx context.Context, uri string) ([]lspext.ServerInfo, error) {
	return []lspext.ServerInfo{{Name: "gopls", Source: "local", Languages: []string{"go"}, State: "ready", Capabilities: json.RawMessage(`{"hoverProvider":true,"renameProvider":true}`)}}, nil
}

func (f *fakeBackend) Status(ctx context.Context) ([]lspext.ServerInfo, error) {
	return []lspext.ServerInfo{
		{Name: "gopls", Source: "local", State: "indexing", Root: "/ws", PID: 42, RSS: 64 << 20},
		{Name: "pyright", Source: "local", State: "not_installed", LastError: "language server pyright: program \"pyright-langserver\" not found on PATH; install it with: npm i -g pyright"},
	}, nil
}

func (f *fakeBackend) Restart(ctx context.Context, server, uri string) error { return nil }

func (f *fakeBackend) FilesChanged(ctx context.Context, changes []lspext.FileChange) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changed = append(f.changed, changes)
	return nil
}
