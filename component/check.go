package component

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/internal/regfile"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// Checker is the optional Backend method behind the check action: the
// diagnostics the files would gain and lose with their new contents
// together, and the files they do not name with them, without the disk,
// the editor or the diagnostics cache seeing the contents. wait is as
// DiagnosticReport's; incidental is lspext.CheckParams'.
type Checker interface {
	Check(ctx context.Context, files []lspext.CheckFile, wait time.Duration, incidental bool) (*lspext.CheckResult, error)
}

var _ Checker = (*Wire)(nil)

// Check implements Checker through _lsp/check.
func (w *Wire) Check(ctx context.Context, files []lspext.CheckFile, wait time.Duration, incidental bool) (*lspext.CheckResult, error) {
	raw, err := w.call(ctx, lspext.Check, lspext.CheckParams{Files: files, Wait: lspext.WaitMillis(wait), Incidental: incidental})
	if err != nil {
		return nil, err
	}
	var res lspext.CheckResult
	if err := decodeResult(lspext.Check, raw, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// errNoCheck: the backend has no Checker.
var errNoCheck = errors.New("check: this backend cannot check an edit without writing it")

// canCheck reports whether b (or the Backend marking wraps) is a
// Checker.
func canCheck(b Backend) bool {
	if m, ok := b.(marking); ok {
		b = m.b
	}
	_, ok := b.(Checker)
	return ok
}

// Check implements Checker when the wrapped Backend does.
func (m marking) Check(ctx context.Context, files []lspext.CheckFile, wait time.Duration, incidental bool) (*lspext.CheckResult, error) {
	c, ok := m.b.(Checker)
	if !ok {
		return nil, errNoCheck
	}
	r, err := c.Check(ctx, files, wait, incidental)
	return r, upstream(err)
}

// check answers the check action: the diagnostics a proposed edit of a
// file (old_text → new_text, or new_text as the whole content) would add
// and remove. Nothing is written; the result is stored in no cache.
func (s *Session) check(ctx context.Context, in Input) (*answer, error) {
	p, exists, err := s.resolveExists(in.File)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	if !exists {
		return nil, fmt.Errorf("check: %s does not exist", in.File)
	}
	b, _, err := regfile.Read(p, s.c.cfg.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	disk := string(b)
	text, err := editedText(disk, in.OldText, in.NewText)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c, ok := s.c.backend.(Checker)
	if !ok {
		return nil, errNoCheck
	}
	uri := edit.URIFromPath(p)
	res, err := c.Check(ctx, []lspext.CheckFile{{URI: uri, Text: text}}, s.cfg.DiagnosticsWait, false)
	if err != nil {
		return nil, err
	}
	text, clean, err := s.checkBlock(fmt.Sprintf("check of %s (nothing written)", relPath(s.Root, p)), map[string][2]string{uri: {disk, text}}, res)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(struct {
		Clean bool `json:"clean"`
		*lspext.CheckResult
	}{clean, res})
	if err != nil {
		return nil, fmt.Errorf("check: encode: %w", err)
	}
	return &answer{text: text, data: encoded(data)}, nil
}

// checkBlock renders a check's answer under head: the counts and a line
// per diagnostic added (+) and removed (-), or unknown when a server did
// not answer fresh on both versions; then the servers' verdicts. texts
// are the edited files' contents before and after the edit, by URI (a
// file not in the edit is read from disk: its positions are in that
// content). clean is whether every server answered fresh.
func (s *Session) checkBlock(head string, texts map[string][2]string, res *lspext.CheckResult) (string, bool, error) {
	var added, removed []string
	for _, f := range res.Files {
		path, err := edit.PathFromURI(f.URI)
		if err != nil {
			return "", false, fmt.Errorf("%s: malformed answer: %w", head, err)
		}
		rel := relPath(s.Root, path)
		t, ok := texts[f.URI]
		if !ok {
			// Columns fall back to UTF-16 offsets when it cannot be read.
			b, _, _ := regfile.Read(path, s.c.cfg.MaxFileSize)
			t = [2]string{string(b), string(b)}
		}
		a, aerr := checkLines(rel, "+ ", f.Added, t[1])
		r, rerr := checkLines(rel, "- ", f.Removed, t[0])
		if err := cmp.Or(aerr, rerr); err != nil {
			return "", false, fmt.Errorf("check of %s: malformed answer: %w", rel, err)
		}
		added, removed = append(added, a...), append(removed, r...)
	}
	var out strings.Builder
	clean := lspext.Clean(res.Servers)
	if clean {
		fmt.Fprintf(&out, "%s: %d added, %d removed\n", head, len(added), len(removed))
		for _, l := range append(added, removed...) {
			out.WriteString(l + "\n")
		}
	} else {
		fmt.Fprintf(&out, "%s: unknown, no server answered fresh on the edit; not known to be clean\n", head)
	}
	what := "this file"
	if len(texts) > 1 {
		what = "these files"
	}
	out.WriteString(verdictsLine(res.Servers, what))
	return out.String(), clean, nil
}

// editedText is disk with oldText replaced by newText (oldText must occur
// exactly once), or newText itself when oldText is empty.
func editedText(disk, oldText, newText string) (string, error) {
	if oldText == "" {
		return newText, nil
	}
	switch n := strings.Count(disk, oldText); n {
	case 0:
		return "", errors.New("old_text is not in the file")
	case 1:
		return strings.Replace(disk, oldText, newText, 1), nil
	default:
		return "", fmt.Errorf("old_text occurs %d times in the file: give more context so it occurs once", n)
	}
}

// checkLines renders diagnostics at positions in text, one line each:
// mark path:line:col severity: message [source code].
func checkLines(rel, mark string, raw json.RawMessage, text string) ([]string, error) {
	var ds []struct {
		Range struct {
			Start struct {
				Line      int `json:"line"`
				Character int `json:"character"`
			} `json:"start"`
		} `json:"range"`
		Severity int             `json:"severity"`
		Code     json.RawMessage `json:"code"`
		Source   string          `json:"source"`
		Message  string          `json:"message"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &ds); err != nil {
			return nil, err
		}
	}
	lines := strings.Split(text, "\n")
	var out []string
	for _, d := range ds {
		st := d.Range.Start
		col := st.Character + 1
		if st.Line >= 0 && st.Line < len(lines) {
			col = runeColumn(lines[st.Line], st.Character)
		}
		label := diagnosticLabel(cmp.Or(d.Severity, 1), d.Message, d.Source, d.Code)
		out = append(out, fmt.Sprintf("%s%s:%d:%d %s", mark, rel, st.Line+1, col, label))
	}
	return out, nil
}

// runeColumn is the 1-based column in characters of UTF-16 offset u16 on
// line.
func runeColumn(line string, u16 int) int {
	col, n := 1, 0
	for _, r := range line {
		if n >= u16 {
			break
		}
		n += len(utf16.Encode([]rune{r}))
		col++
	}
	return col
}
