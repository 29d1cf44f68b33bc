package adapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// check answers `_lsp/check` from local servers only: an editor's
// servers would show the unsaved content to the editor, so the editor
// path answers "not supported".
func (a *Adapter) check(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.CheckParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, badParams("params: %w", err)
	}
	if p.URI == "" {
		return nil, badParams("params: uri is required")
	}
	if a.cfg.NoLocal {
		return nil, unsupported("%s: only acp-lsp's own language servers check unsaved content, and they are turned off; an editor's servers cannot without showing the edit in the editor", lspext.Check)
	}
	path, err := pathOf(p.URI)
	if err != nil {
		return nil, err
	}
	if p.Incidental && a.editorStandsIn(ctx, hop, path) {
		return nil, unsupported("%s: the editor's language server serves %s and cannot check unsaved content (ACP's LSP proposal forwards no document sync); no local server is started for a check that comes with another answer: use the check action", lspext.Check, path)
	}
	a.noteSample(path)
	rep, err := a.mgr.Check(ctx, path, p.Text, lsp.DiagnosticsOptions{Timeout: p.WaitDuration()})
	if err != nil {
		return nil, err
	}
	return json.Marshal(checkResult(p.URI, rep))
}

// editorStandsIn reports whether, under ACP's LSP proposal, an editor
// server covers the file at path in place of the local server that would
// check it and is not running yet (one running already costs nothing
// more).
func (a *Adapter) editorStandsIn(ctx context.Context, hop *proxy.Hop, path string) bool {
	if !a.rfdOn() {
		return false
	}
	session, ok := a.rfdSessionFor(path)
	if !ok {
		return false
	}
	configs := lsp.ServersFor(a.configs(), path)
	if len(configs) == 0 {
		return false
	}
	c := configs[0]
	for _, st := range a.mgr.Servers() {
		if st.Name == c.Name && st.State == lsp.StateRunning && edit.Within(st.Root, path) {
			return false
		}
	}
	return a.rfdCovers(ctx, hop, session, c, path)
}

// checkResult is rep in the wire's terms: one verdict for the server, the
// check's own unless it was fresh, then the disk's (a delta against a
// list not known to be current is no delta).
func checkResult(uri string, rep lsp.CheckReport) lspext.CheckResult {
	fd, what := rep.After, "the edited content"
	if rep.After.Verdict == lsp.Fresh && rep.Before.Verdict != lsp.Fresh {
		fd, what = rep.Before, "the file on disk"
	}
	server := fd.Server
	if server == "" {
		server = "local"
	}
	v := lspext.ServerVerdict{Server: server, Verdict: string(fd.Verdict), URIs: []string{uri}}
	if fd.Verdict != lsp.Fresh {
		v.Detail = fmt.Sprintf("%s: %s", what, fd.Detail)
	}
	out := lspext.CheckResult{Added: json.RawMessage("[]"), Removed: json.RawMessage("[]"), Servers: []lspext.ServerVerdict{v}}
	if lspext.Clean(out.Servers) {
		out.Added, out.Removed = rep.Added, rep.Removed
	}
	return out
}
