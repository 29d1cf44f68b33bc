package adapter

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// check answers `_lsp/check` from local servers only: an editor's
// servers would show the unsaved content to the editor, so the editor
// path answers "not supported". An edit of several files (Files) is
// checked together.
func (a *Adapter) check(ctx context.Context, hop *proxy.Hop, params json.RawMessage) (json.RawMessage, error) {
	var p lspext.CheckParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, badParams("params: %w", err)
	}
	one := len(p.Files) == 0
	if one {
		if p.URI == "" {
			return nil, badParams("params: uri is required (or files, for an edit of several)")
		}
		p.Files = []lspext.CheckFile{{URI: p.URI, Text: p.Text}}
	}
	if a.cfg.NoLocal {
		return nil, unsupported("%s: only acp-lsp's own language servers check unsaved content, and they are turned off; an editor's servers cannot without showing the edit in the editor", lspext.Check)
	}
	files := map[string]string{}
	uris := map[string]string{}
	for _, f := range p.Files {
		if f.URI == "" {
			return nil, badParams("params: files: uri is required")
		}
		path, err := pathOf(f.URI)
		if err != nil {
			return nil, err
		}
		if p.Incidental && a.editorStandsIn(ctx, hop, path) {
			return nil, unsupported("%s: the editor's language server serves %s and cannot check unsaved content (ACP's LSP proposal forwards no document sync); no local server is started for a check that comes with another answer: use the check action", lspext.Check, path)
		}
		files[path], uris[path] = f.Text, f.URI
	}
	paths := slices.Sorted(maps.Keys(files))
	ordered := make([]string, len(paths))
	for i, path := range paths {
		a.noteSample(path)
		ordered[i] = uris[path]
	}
	rep, err := a.mgr.CheckEdit(ctx, files, lsp.DiagnosticsOptions{Timeout: p.WaitDuration()})
	if err != nil {
		return nil, err
	}
	return json.Marshal(checkResult(ordered, one, rep))
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

// checkResult is rep in the wire's terms; uris are the edited files',
// in rep's order, one says the one-file form (Added and Removed set).
// One verdict per server: the first of its files' that is not fresh, the
// check's own unless it was fresh, then the disk's (a delta against a list
// not known to be current is no delta).
func checkResult(uris []string, one bool, rep lsp.CheckEditReport) lspext.CheckResult {
	out := lspext.CheckResult{Added: json.RawMessage("[]"), Removed: json.RawMessage("[]")}
	for i, r := range rep.Files {
		uri := r.After.URI
		if !r.Other && i < len(uris) {
			uri = uris[i]
		}
		fd, what := r.After, "the edited content"
		if r.After.Verdict == lsp.Fresh && r.Before.Verdict != lsp.Fresh {
			fd, what = r.Before, "the file on disk"
		}
		server := cmp.Or(fd.Server, "local")
		k := slices.IndexFunc(out.Servers, func(v lspext.ServerVerdict) bool { return v.Server == server })
		if k < 0 {
			out.Servers = append(out.Servers, lspext.ServerVerdict{Server: server, Verdict: lspext.VerdictFresh})
			k = len(out.Servers) - 1
		}
		v := &out.Servers[k]
		if !r.Other {
			v.URIs = append(v.URIs, uri)
		}
		if fd.Verdict != lsp.Fresh && v.Verdict == lspext.VerdictFresh {
			v.Verdict, v.Detail = string(fd.Verdict), fmt.Sprintf("%s: %s", what, fd.Detail)
			if !one {
				v.Detail = fmt.Sprintf("%s of %s: %s", what, uri, fd.Detail)
			}
		}
		out.Files = append(out.Files, lspext.CheckedFile{URI: uri, Added: r.Added, Removed: r.Removed, Other: r.Other})
	}
	if !lspext.Clean(out.Servers) {
		for i := range out.Files {
			out.Files[i].Added, out.Files[i].Removed = json.RawMessage("[]"), json.RawMessage("[]")
		}
		return out
	}
	if one && len(out.Files) > 0 {
		out.Added, out.Removed = out.Files[0].Added, out.Files[0].Removed
	}
	return out
}
