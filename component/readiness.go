package component

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
)

// loading gathers the servers behind one answer that had not loaded
// their project when they answered (`_lsp/request` asked with readiness,
// docs/protocol.md): a list they gave may be incomplete, which the answer
// says in words and in its structuredContent (docs/tool.md).
type loading struct {
	// known: some answer said how ready its servers were (an editor's
	// answer does not).
	known    bool
	notReady []lspext.Readiness
}

// add notes the readiness of one answer.
func (ld *loading) add(res lspext.RequestResult) {
	for _, r := range res.Readiness {
		ld.known = true
		if r.State == lspext.Ready {
			continue
		}
		if i := slices.IndexFunc(ld.notReady, func(o lspext.Readiness) bool { return o.Server == r.Server }); i >= 0 {
			ld.notReady[i] = r // the later answer's progress
			continue
		}
		ld.notReady = append(ld.notReady, r)
	}
}

// note is what the loading servers mean for the list, "" when none was
// loading.
func (ld *loading) note() string {
	if len(ld.notReady) == 0 {
		return ""
	}
	parts := make([]string, len(ld.notReady))
	for i, r := range ld.notReady {
		parts[i] = readinessText(r)
	}
	return strings.Join(parts, "; ") + ": this list may be incomplete; ask again in a few seconds (action=status shows the progress)"
}

// markLoading adds to l what its servers' loading means: the note, and
// the servers in not_ready. When no answer said how ready its servers
// were, an empty list gets the state of the servers that are starting or
// indexing, from status.
func (s *Session) markLoading(ctx context.Context, ld *loading, l *listing) {
	if n := ld.note(); n != "" {
		l.Notes = append(l.Notes, n)
		l.NotReady = ld.notReady
		return
	}
	if !ld.known && l.Total == 0 {
		if n := s.c.emptyNote(ctx); n != "" {
			l.Notes = append(l.Notes, n)
		}
	}
}

// loadingErr adds to err, an answer that found nothing, what the
// servers' loading means (or, not knowing it, the state of busy
// servers).
func (s *Session) loadingErr(ctx context.Context, ld *loading, err error) error {
	if n := ld.note(); n != "" {
		return fmt.Errorf("%w\nnote: %s", err, n)
	}
	if !ld.known {
		if n := s.c.emptyNote(ctx); n != "" {
			return fmt.Errorf("%w\nnote: %s", err, n)
		}
	}
	return err
}

// readinessText is "clangd is still loading the project (indexing 40%:
// 600/1502)".
func readinessText(r lspext.Readiness) string {
	if r.State == lspext.ReadyStarting {
		return r.Server + " is still starting"
	}
	return r.Server + " is still loading the project (" + progressText(r.Progress) + ")"
}

// progressText is "indexing 40%: 600/1502", or that the server reports
// no progress.
func progressText(ps []lspext.Progress) string {
	if len(ps) == 0 {
		return "it reports no progress"
	}
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		s := p.Title
		if p.Percentage != nil {
			s = strings.TrimSpace(fmt.Sprintf("%s %d%%", s, *p.Percentage))
		}
		switch {
		case p.Message == "":
		case s == "":
			s = p.Message
		default:
			s += ": " + p.Message
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
