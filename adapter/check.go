package adapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
)

// check answers `_lsp/check` from local servers only: an editor's
// servers would show the unsaved content to the editor, so the editor
// path answers "not supported".
func (a *Adapter) check(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
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
	a.noteSample(path)
	rep, err := a.mgr.Check(ctx, path, p.Text, lsp.DiagnosticsOptions{Timeout: p.WaitDuration()})
	if err != nil {
		return nil, err
	}
	return json.Marshal(checkResult(p.URI, rep))
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
