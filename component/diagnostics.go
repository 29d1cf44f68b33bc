package component

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// diagnostics answers for one file, a glob or the workspace, with a
// verdict per server.
func (s *Session) diagnostics(ctx context.Context, in Input) (*answer, error) {
	minSev := 2
	switch in.Severity {
	case "error":
		minSev = 1
	case "", "warning":
	case "info", "information":
		minSev = 3
	case "hint", "all":
		minSev = 4
	default:
		return nil, fmt.Errorf("severity must be error, warning, info or hint, not %q", in.Severity)
	}
	var uris []string
	var globCut string
	var known *target
	scope := "the workspace"
	switch {
	case in.File == "" || in.File == "*":
	case strings.ContainsAny(in.File, "*?["):
		matches, err := s.glob(ctx, in.File)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no file in the workspace matches %q", in.File)
		}
		if len(matches) > maxGlobFiles {
			matches = matches[:maxGlobFiles]
			globCut = fmt.Sprintf("more than %d files match %s: only the first %d were checked (the others are NOT known to be clean); narrow the glob", maxGlobFiles, in.File, maxGlobFiles)
		}
		for _, m := range matches {
			uris = append(uris, edit.URIFromPath(m))
		}
		scope = fmt.Sprintf("%d files matching %s", len(uris), in.File)
	default:
		p, exists, err := s.resolveExists(in.File)
		if err != nil {
			return nil, err
		}
		if !exists {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("diagnostics: %w", err)
			}
		}
		uris = []string{edit.URIFromPath(p)}
		scope = relPath(s.Root, p)
		known = &target{path: p}
	}
	rep, err := s.c.backend.DiagnosticReport(ctx, uris, s.cfg.DiagnosticsWait)
	if err != nil {
		return nil, err
	}
	decoded := s.c.store(rep)
	r := s.newRenderer(known)
	var items []item
	hidden := 0
	for i, f := range rep.Files {
		p, err := edit.PathFromURI(f.URI)
		if err != nil || !r.within(p) {
			continue
		}
		diags, err := decoded[i].diags, decoded[i].err
		if err != nil {
			return nil, fmt.Errorf("diagnostics of %s: malformed answer: %w", f.URI, err)
		}
		for _, d := range diags {
			sev := cmp.Or(d.Severity, 1)
			if sev > minSev {
				hidden++
				continue
			}
			rel, line, col, text := r.place(f.URI, d.Range.Start)
			label := severityName(sev) + ": " + firstLine(d.Message)
			var tags []string
			if d.Source != "" {
				tags = append(tags, d.Source)
			}
			if c := codeString(d.Code); c != "" {
				tags = append(tags, c)
			}
			if len(tags) > 0 {
				label += " [" + strings.Join(tags, " ") + "]"
			}
			items = append(items, item{File: rel, Line: line, Column: col, Label: label, Context: text})
		}
	}
	sortItems(items)
	l := &listing{Title: "diagnostics for " + scope}
	page(in, items, l)
	fresh := false
	var verdicts []string
	for _, v := range rep.Servers {
		line := v.Server + ": " + v.Verdict
		if v.Detail != "" {
			line += " (" + v.Detail + ")"
		}
		verdicts = append(verdicts, line)
		if v.Verdict == lspext.VerdictFresh {
			fresh = true
		}
		if v.Verdict == lspext.VerdictIndexing {
			l.Notes = append(l.Notes, v.Server+" is still loading the project: its diagnostics are missing or incomplete; check again in a few seconds")
		}
		if v.Verdict == lspext.VerdictStarting {
			l.Notes = append(l.Notes, v.Server+" is still starting: it has not checked these files yet; check again in a few seconds")
		}
	}
	if len(verdicts) == 0 {
		verdicts = []string{"no language server answered for these files"}
	}
	l.Detail = "servers: " + strings.Join(verdicts, "; ")
	if hidden > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d less severe diagnostics hidden (severity=%s)", hidden, cmp.Or(in.Severity, "warning")))
	}
	if globCut != "" {
		l.Notes = append(l.Notes, globCut)
	}
	if l.Total > 0 && !fresh {
		l.Notes = append(l.Notes, "no server answered fresh for the current content: these may be outdated (fixed already, or not yet reported); check again")
	}
	if l.Total == 0 {
		if fresh {
			l.Notes = append(l.Notes, "no problems: the servers marked fresh checked the current content")
		} else {
			l.Notes = append(l.Notes, "no diagnostics received, but NO server answered fresh for the current content: this is not a clean bill of health; try again")
		}
	}
	// {"listing":…,"servers":…} as json.Marshal writes the map it was,
	// the listing cut with the text and the servers' verdicts beside it.
	servers, err := json.Marshal(rep.Servers)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: encode verdicts: %w", err)
	}
	const open, mid = `{"listing":`, `,"servers":`
	text, inner := render(l, s.cfg.Budget, len(open)+len(mid)+len(servers)+1)
	if inner == nil {
		return &answer{text: text}, nil
	}
	data := make(encoded, 0, len(open)+len(inner)+len(mid)+len(servers)+1)
	data = append(append(append(append(append(data, open...), inner...), mid...), servers...), '}')
	return &answer{text: text, data: data}, nil
}
