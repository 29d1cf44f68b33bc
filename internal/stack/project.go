package stack

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/acp-lsp/acp-lsp/component"
	"github.com/acp-lsp/acp-lsp/internal/config"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// projectCheck is the component stage with one addition: acp-lsp loads its
// configuration once, for the folder it was started in, so a session whose
// cwd is another folder with its own .acp-lsp.toml would silently run
// without that file. It warns once per such folder instead. Messages pass
// exactly as through the Stage; only session setup params are read.
type projectCheck struct {
	*component.Stage
	workspace string
	log       *slog.Logger

	mu     sync.Mutex
	warned map[string]bool
}

var (
	_ proxy.Component = (*projectCheck)(nil)
	_ proxy.Runner    = (*projectCheck)(nil)
)

// FromClient implements proxy.Component.
func (p *projectCheck) FromClient(ctx context.Context, hop *proxy.Hop, m *proxy.Message) {
	if m.Kind == proxy.KindRequest && component.SetupMethods[m.Method] {
		p.check(m)
	}
	p.Stage.FromClient(ctx, hop, m)
}

func (p *projectCheck) check(m *proxy.Message) {
	raw, ok := proxy.GetPath(m.Params(), "cwd")
	if !ok {
		return
	}
	var cwd string
	if json.Unmarshal(raw, &cwd) != nil || cwd == "" || sameDir(cwd, p.workspace) {
		return
	}
	file := filepath.Join(cwd, config.ProjectFileName)
	if _, err := os.Stat(file); err != nil {
		return
	}
	p.mu.Lock()
	seen := p.warned[file]
	p.warned[file] = true
	p.mu.Unlock()
	if !seen {
		p.log.Warn("project config of this session's folder is not applied: acp-lsp loaded its configuration when it started, for the folder it was started in; start acp-lsp in the session's folder to use it",
			"file", file, "loaded_for", p.workspace)
	}
}

// sameDir compares two folders after resolving symlinks.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
