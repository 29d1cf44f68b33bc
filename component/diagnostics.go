package component

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
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
	// cut is acp-lsp's verdict on the files a glob matched beyond those
	// checked.
	var cut *lspext.ServerVerdict
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
			// glob stops at the first match past the bound: how many
			// more is not known.
			cut = &lspext.ServerVerdict{Server: lspext.NoteServer, Verdict: lspext.VerdictUnchecked,
				Detail: fmt.Sprintf("more than %d files match %s: only the first %d were checked (the others are NOT known to be clean)", maxGlobFiles, in.File, maxGlobFiles)}
			matches = matches[:maxGlobFiles]
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
	if cut != nil {
		// A copy: the backend's report is not this call's to change.
		r := *rep
		r.Servers = append(slices.Clip(rep.Servers), *cut)
		rep = &r
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
			it := r.item(f.URI, d.Range.Start)
			it.Label = diagnosticLabel(sev, d.Message, d.Source, d.Code)
			items = append(items, it)
		}
	}
	sortItems(items)
	l := &listing{Title: "diagnostics for " + scope}
	page(in, items, l)
	r.enclose(ctx, l.Items)
	l.Detail = verdictsLine(rep.Servers, "these files")
	if hidden > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d less severe diagnostics hidden (severity=%s)", hidden, cmp.Or(in.Severity, "warning")))
	}
	cov := coverageOf(rep, uris)
	if l.Total > 0 && !cov.fresh {
		l.Notes = append(l.Notes, "no server answered fresh for the current content: these may be outdated (fixed already, or not yet reported); check again")
	}
	if n := cov.note(l.Total, known == nil); n != "" {
		l.Notes = append(l.Notes, n)
	}
	// {"coverage":…,"listing":…,"servers":…} as json.Marshal writes the
	// map it was, the listing cut with the text, what the report
	// establishes and the servers' verdicts beside it.
	servers, err := json.Marshal(rep.Servers)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: encode verdicts: %w", err)
	}
	covered, err := json.Marshal(cov)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: encode coverage: %w", err)
	}
	const open, mid, end = `{"coverage":`, `,"listing":`, `,"servers":`
	text, inner := render(l, s.cfg.Budget, len(open)+len(covered)+len(mid)+len(end)+len(servers)+1)
	if inner == nil {
		return &answer{text: text}, nil
	}
	data := make(encoded, 0, len(open)+len(covered)+len(mid)+len(inner)+len(end)+len(servers)+1)
	data = append(append(append(append(append(append(append(data, open...), covered...), mid...), inner...), end...), servers...), '}')
	return &answer{text: text, data: data}, nil
}

// coverage is what a diagnostics report establishes about the files asked
// about, beside the diagnostics found: structuredContent's "coverage",
// and the answer's last note. Whether files with no diagnostics may be
// called clean is lspext.Clean's to say, for every answer alike.
type coverage struct {
	// Clean says the files with no diagnostics have none: every server
	// answered fresh for them and no file was left out.
	Clean bool `json:"clean"`
	// Checked counts the files some server answered fresh for and none
	// left unknown.
	Checked int `json:"checked"`
	// Unchecked counts the files left out of the report (beyond a cap, a
	// server not installed), as far as they were counted.
	Unchecked int `json:"unchecked,omitempty"`
	// Gaps say, one per verdict, what keeps the answer from complete.
	Gaps []string `json:"gaps,omitempty"`
	// retry says a gap may close by asking again (a server not ready, or
	// failing); left that files were left out; fresh that some server
	// answered fresh.
	retry, left, fresh bool
}

// coverageOf reads rep, the report on requested (none: the workspace).
func coverageOf(rep *lspext.DiagnosticReportResult, requested []string) coverage {
	c := coverage{Clean: lspext.Clean(rep.Servers)}
	every := requested
	if len(every) == 0 {
		for _, f := range rep.Files {
			every = append(every, f.URI)
		}
	}
	fresh, unknown := map[string]bool{}, map[string]bool{}
	for _, v := range rep.Servers {
		c.Unchecked += v.Unchecked
		covers := v.URIs
		if len(covers) == 0 && v.Verdict != lspext.VerdictUnchecked && v.Unchecked == 0 {
			covers = every // no URIs: every file asked about
		}
		unsettled := v.Unsettled()
		for _, u := range covers {
			if unsettled {
				unknown[u] = true
			} else if v.Verdict == lspext.VerdictFresh {
				fresh[u] = true
			}
		}
		c.fresh = c.fresh || v.Verdict == lspext.VerdictFresh
		if unsettled {
			c.Gaps = append(c.Gaps, gap(v))
			// Asking again will not check files left out, nor find a
			// server for files none handles or that is not installed.
			c.retry = c.retry || v.Verdict != lspext.VerdictUnchecked && v.Verdict != lspext.VerdictUnsupported && v.Unchecked == 0
			c.left = c.left || v.Verdict == lspext.VerdictUnchecked || v.Unchecked > 0
		}
	}
	for u := range fresh {
		if !unknown[u] {
			c.Checked++
		}
	}
	if len(rep.Servers) == 0 {
		c.Gaps = []string{"no language server answered for these files"}
		c.retry = true
	}
	return c
}

// gap says what verdict v leaves unknown, in words a model acts on; the
// verdict's detail is in the answer's list of verdicts.
func gap(v lspext.ServerVerdict) string {
	on := ""
	if n := len(v.URIs); n > 0 {
		on = " " + countOf(n, "file")
	}
	switch v.Verdict {
	case lspext.VerdictTimeout:
		if on != "" {
			on = " on" + on
		}
		return v.Server + " timed out" + on
	case lspext.VerdictIndexing:
		if on != "" {
			on = " of" + on
		}
		return v.Server + " is still loading the project: its diagnostics" + on + " are missing or incomplete"
	case lspext.VerdictStarting:
		return v.Server + " is still starting: it has not checked" + cmp.Or(on, " these files") + " yet"
	case lspext.VerdictStale:
		if on != "" {
			on = " of" + on
		}
		return v.Server + " has not checked the current content" + on + " (its answer is older)"
	case lspext.VerdictUnsupported:
		return "no language server checks" + cmp.Or(on, " these files")
	case lspext.VerdictUnchecked:
		if v.Unchecked > 0 {
			return countOf(v.Unchecked, "file") + " not checked"
		}
		return cmp.Or(v.Detail, "some files were not checked")
	case lspext.VerdictFailed:
		if on != "" {
			on = " on" + on
		}
		s := v.Server + " failed" + on
		if v.Unchecked > 0 {
			s += ": " + countOf(v.Unchecked, "file") + " not checked"
		}
		return s
	}
	return v.Server + ": " + v.Verdict + on
}

// note is the answer's last note: whether the found diagnostics (none, or
// some) are the whole truth; many says the answer is about more than one
// file, so naming files is a way to narrow it.
func (c coverage) note(found int, many bool) string {
	what := "ask again"
	if many && c.left {
		what = "name files or a narrower glob to check the rest"
		if c.retry {
			what = "ask again; " + what
		}
	}
	gaps := strings.Join(c.Gaps, "; ")
	switch {
	case found > 0 && c.Clean:
		return ""
	case found > 0:
		return "these may not be all: " + gaps + ": " + what
	case c.Clean && c.Checked > 0:
		return "no problems: the servers checked the current content of all " + countOf(c.Checked, "file")
	case c.Clean:
		return "no problems: the servers checked the current content"
	case c.Checked > 0:
		return "not known to be clean: nothing found in the " + countOf(c.Checked, "file") + " checked; " + gaps + ": " + what
	case !c.fresh:
		return "no diagnostics received, but NO server answered fresh for the current content: this is not a clean bill of health; " + gaps + ": " + what
	}
	return "not known to be clean: " + gaps + ": " + what
}

// countOf says "1 file" or "1,049 files".
func countOf(n int, noun string) string {
	digits := strconv.Itoa(n)
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if n != 1 {
		noun += "s"
	}
	return b.String() + " " + noun
}

// verdictsLine is "servers: gopls: fresh; pyright: timeout (…)", each
// server's verdict on what, or that none answered for it.
func verdictsLine(vs []lspext.ServerVerdict, what string) string {
	var verdicts []string
	for _, v := range vs {
		line := v.Server + ": " + v.Verdict
		if v.Detail != "" {
			line += " (" + v.Detail + ")"
		}
		verdicts = append(verdicts, line)
	}
	if len(verdicts) == 0 {
		verdicts = []string{"no language server answered for " + what}
	}
	return "servers: " + strings.Join(verdicts, "; ")
}

// diagnosticLabel is how a diagnostic reads after its place, in lists and
// in checks: "severity: first line of the message [source code]".
func diagnosticLabel(severity int, message, source string, code json.RawMessage) string {
	label := severityName(severity) + ": " + firstLine(message)
	var tags []string
	if source != "" {
		tags = append(tags, source)
	}
	if c := codeString(code); c != "" {
		tags = append(tags, c)
	}
	if len(tags) > 0 {
		label += " [" + strings.Join(tags, " ") + "]"
	}
	return label
}
