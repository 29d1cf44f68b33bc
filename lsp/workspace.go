package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// WorkspaceDiagnostics reports the diagnostics of a whole workspace root:
// every server used so far for a project inside root (restarted if it was
// stopped) that offers workspace diagnostics (diagnosticProvider with
// workspaceDiagnostics, static or dynamically registered) is asked with
// workspace/diagnostic, which covers files nobody opened. Each file gets
// its own entry with the Fresh verdict (Stale when the server reported on
// an older version of a document open in it); a server that does not offer
// workspace diagnostics gets one Unsupported entry for its root, so callers
// fall back to asking per file (Diagnostics) rather than reading "no
// problems"; a server that fails, times out or is still loading gets one
// entry with that verdict. Entries are sorted by server, then path; only
// files under root are reported. It returns an error only when the Manager
// is closed.
func (m *Manager) WorkspaceDiagnostics(ctx context.Context, root string, opts DiagnosticsOptions) (*DiagnosticsReport, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace diagnostics %s: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	var list []*server
	for _, s := range m.servers {
		if edit.Within(abs, s.root) || edit.Within(s.root, abs) {
			list = append(list, s)
		}
	}
	m.mu.Unlock()
	parts := make([][]FileDiagnostics, len(list))
	var wg sync.WaitGroup
	for i, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i] = s.workspaceDiagnostics(ctx, abs, opts)
		}()
	}
	wg.Wait()
	rep := &DiagnosticsReport{Files: []FileDiagnostics{}}
	for _, p := range parts {
		rep.Files = append(rep.Files, p...)
	}
	sort.SliceStable(rep.Files, func(i, j int) bool {
		a, b := rep.Files[i], rep.Files[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Path < b.Path
	})
	return rep, nil
}

// workspacePullIDs returns the identifiers to ask workspace/diagnostic
// with, once each, or false when the server offers no workspace
// diagnostics. An identifier offered twice (statically and registered, or
// registered twice, as pyright does) is asked once: the second answer,
// "unchanged" against the first, doubled every error.
func (p *proc) workspacePullIDs() ([]string, bool) {
	type opts struct {
		Identifier           string `json:"identifier"`
		WorkspaceDiagnostics bool   `json:"workspaceDiagnostics"`
	}
	var ids []string
	var o opts
	if present(p.caps.DiagnosticProv) && decode(p.caps.DiagnosticProv, &o) == nil && o.WorkspaceDiagnostics {
		ids = append(ids, o.Identifier)
	}
	for _, r := range p.dynamic("textDocument/diagnostic") {
		o = opts{}
		if len(r.RegisterOptions) > 0 && decode(r.RegisterOptions, &o) == nil && o.WorkspaceDiagnostics && !slices.Contains(ids, o.Identifier) {
			ids = append(ids, o.Identifier)
		}
	}
	return ids, len(ids) > 0
}

// workspaceReport is workspace/diagnostic's answer.
type workspaceReport struct {
	Items []struct {
		URI      string          `json:"uri"`
		Kind     string          `json:"kind"`
		ResultID string          `json:"resultId"`
		Version  *int32          `json:"version"`
		Items    json.RawMessage `json:"items"`
	} `json:"items"`
}

func (s *server) workspaceDiagnostics(ctx context.Context, root string, opts DiagnosticsOptions) []FileDiagnostics {
	whole := FileDiagnostics{Path: s.root, URI: edit.URIFromPath(s.root), Server: s.cfg.Name, Diagnostics: json.RawMessage("[]")}
	s.begin()
	defer s.end()
	wait := s.diagnosticsWait(opts)
	ctx, cancel := context.WithTimeout(ctx, max(wait, 0))
	defer cancel()
	p, err := s.ensure(ctx)
	if err != nil {
		return []FileDiagnostics{startVerdict(whole, err)}
	}
	s.mgr.syncDiskQuiet()
	ids, ok := p.workspacePullIDs()
	if !ok {
		whole.Verdict = Unsupported
		whole.Detail = fmt.Sprintf("%s does not offer workspace diagnostics; ask about files instead", s.cfg.Name)
		return []FileDiagnostics{whole}
	}
	if wait < 0 {
		// No wait: a workspace report is only what the server says when
		// asked, and a request now could only time out.
		whole.Verdict = Timeout
		whole.Detail = fmt.Sprintf("%s was not asked for workspace diagnostics: there was no time to wait for its answer; they are unknown, not empty (ask about files for what it has already said)", s.cfg.Name)
		if titles, _ := p.busy(); titles != nil {
			whole.Verdict = Indexing
		}
		return []FileDiagnostics{whole}
	}
	byURI := map[string]*FileDiagnostics{}
	var order []string
	for _, id := range ids {
		rep, err := s.workspacePull(ctx, p, id)
		if err != nil {
			whole = s.failVerdict(p, whole, err)
			var ie *IndexingError
			if errors.As(err, &ie) {
				whole.Detail = fmt.Sprintf("%s is still loading (%s) and reported nothing yet: its diagnostics are unknown, not empty", s.cfg.Name, strings.Join(ie.Work, ", "))
			}
			return []FileDiagnostics{whole}
		}
		for _, it := range rep {
			path, err := edit.PathFromURI(it.uri)
			if err != nil || !edit.Within(root, path) {
				continue
			}
			fd := byURI[it.uri]
			if fd == nil {
				fd = &FileDiagnostics{Path: path, URI: it.uri, Server: s.cfg.Name, Verdict: Fresh, Diagnostics: json.RawMessage("[]")}
				byURI[it.uri] = fd
				order = append(order, it.uri)
			}
			fd.Diagnostics = concatArrays([]json.RawMessage{fd.Diagnostics, it.items})
			if it.version != nil {
				fd.Version = *it.version
				p.mu.Lock()
				doc := p.docs[path]
				p.mu.Unlock()
				if doc != nil && *it.version < doc.version {
					fd.Verdict = Stale
					fd.Detail = fmt.Sprintf("%s reported on version %d; the document is at version %d", s.cfg.Name, *it.version, doc.version)
				}
			}
		}
	}
	out := make([]FileDiagnostics, 0, len(order))
	for _, u := range order {
		out = append(out, *byURI[u])
	}
	return out
}

// wsItem is one file of a workspace report, positions in UTF-16.
type wsItem struct {
	uri     string
	version *int32
	items   json.RawMessage
}

// workspacePull runs workspace/diagnostic for one identifier with the
// previous result ids, waiting out loading like pull does, and returns
// every file's items ("unchanged" ones from the previous answer).
func (s *server) workspacePull(ctx context.Context, p *proc, id string) ([]wsItem, error) {
	p.mu.Lock()
	prev := p.wsPrev[id]
	p.mu.Unlock()
	type prevID struct {
		URI   string `json:"uri"`
		Value string `json:"value"`
	}
	params := struct {
		Identifier        string   `json:"identifier,omitempty"`
		PreviousResultIDs []prevID `json:"previousResultIds"`
	}{Identifier: id, PreviousResultIDs: []prevID{}}
	for uri, st := range prev {
		if st.resultID != "" {
			params.PreviousResultIDs = append(params.PreviousResultIDs, prevID{uri, st.resultID})
		}
	}
	sort.Slice(params.PreviousResultIDs, func(i, j int) bool { return params.PreviousResultIDs[i].URI < params.PreviousResultIDs[j].URI })
	raw, err := encode(params)
	if err != nil {
		return nil, err
	}
	var rep workspaceReport
	reasks := 0
	for {
		mark := p.mark()
		res, err := s.call(ctx, p, document{}, "workspace/diagnostic", raw)
		if err != nil {
			return nil, err
		}
		rep = workspaceReport{}
		if err := decode(res, &rep); err != nil {
			return nil, fmt.Errorf("workspace/diagnostic: %w", err)
		}
		if len(rep.Items) > 0 {
			break
		}
		again, err := s.afterEmpty(ctx, p, "workspace/diagnostic", mark, &reasks)
		if err != nil {
			return nil, err
		}
		if !again {
			break
		}
	}
	next := map[string]pullState{}
	out := make([]wsItem, 0, len(rep.Items))
	for _, it := range rep.Items {
		items := it.Items
		if it.Kind == "unchanged" {
			items = prev[it.URI].items
		} else if p.enc != position.UTF16 && !isEmptyResult(items) {
			c := newConverter(p.enc, position.UTF16, p.openText, p.srv.mgr.opts.MaxFileSize)
			if conv, err := c.convert(items, it.URI); err == nil {
				items = conv
			}
		}
		switch {
		case isEmptyResult(items):
			items = json.RawMessage("[]")
		case !isArray(items):
			return nil, fmt.Errorf("workspace/diagnostic: items of %s are not an array", it.URI)
		default:
			items = append(json.RawMessage(nil), items...)
		}
		next[it.URI] = pullState{resultID: it.ResultID, items: items}
		out = append(out, wsItem{uri: it.URI, version: it.Version, items: items})
	}
	p.mu.Lock()
	if p.wsPrev == nil {
		p.wsPrev = map[string]map[string]pullState{}
	}
	p.wsPrev[id] = next
	p.mu.Unlock()
	return out, nil
}
