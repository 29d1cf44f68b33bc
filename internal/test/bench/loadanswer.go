package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// placeSet is a list answer's places, "file:line" (relative to the
// workspace) with how often each is listed: columns are compared by line,
// since a column counts characters where the LSP counts UTF-16 units.
type placeSet map[string]int

func (p placeSet) add(file string, line int) { p[file+":"+strconv.Itoa(line)]++ }

func (p placeSet) size() int {
	n := 0
	for _, c := range p {
		n += c
	}
	return n
}

// diff says how p differs from want ("" when it does not): how many
// places are missing and how many extra, with the first few of each.
func (p placeSet) diff(want placeSet) string {
	var missing, extra []string
	nMissing, nExtra := 0, 0
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if d := want[k] - p[k]; d > 0 {
			nMissing += d
			missing = append(missing, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if d := p[k] - want[k]; d > 0 {
			nExtra += d
			extra = append(extra, k)
		}
	}
	if nMissing == 0 && nExtra == 0 {
		return ""
	}
	few := func(l []string) string {
		if len(l) > 3 {
			return strings.Join(l[:3], ", ") + ", …"
		}
		return strings.Join(l, ", ")
	}
	var parts []string
	if nMissing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d missing (%s)", nMissing, want.size(), few(missing)))
	}
	if nExtra > 0 {
		parts = append(parts, fmt.Sprintf("%d extra (%s)", nExtra, few(extra)))
	}
	return strings.Join(parts, ", ")
}

// parseBarePlaces reads the bare client's rendered answer, a place a
// line ("file:line:col", then a symbol's name), keeping places inside the
// workspace: the tool leaves the others out (dependencies, the standard
// library) and says so.
func parseBarePlaces(text string) placeSet {
	set := placeSet{}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		parts := strings.Split(f[0], ":")
		if len(parts) < 3 || strings.HasPrefix(parts[0], "/") || strings.HasPrefix(parts[0], "..") {
			continue
		}
		line, err := strconv.Atoi(parts[len(parts)-2])
		if err != nil {
			continue
		}
		set.add(strings.Join(parts[:len(parts)-2], ":"), line)
	}
	return set
}

// toolListing is what the load row reads of a list answer's
// structuredContent (docs/tool.md, Output).
type toolListing struct {
	Total int    `json:"total"`
	Form  string `json:"form"`
	Items []struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"items"`
	Notes    []string `json:"notes"`
	Detail   string   `json:"detail"`
	NextPage int      `json:"next_offset"`
	// NotReady are the servers that had not loaded their project when
	// they answered (docs/tool.md).
	NotReady []notReady `json:"not_ready"`
}

// notReady is a server of a listing's not_ready.
type notReady struct {
	Server string `json:"server"`
	State  string `json:"state"`
}

// toolPage is one call's answer: the text the model reads, whether the
// tool reported an error, and its structuredContent.
type toolPage struct {
	Text       string
	IsError    bool
	Structured any
}

// loadAnswer is one question asked as a model asks it: every page of the
// list, or the answer that stopped it.
type loadAnswer struct {
	Places placeSet
	// Calls counts the tool calls (pages) it took.
	Calls int
	// Caveat is the answer's own word that it may be incomplete.
	Caveat string
}

// collectPages asks call for the pages of a list answer, from offset 0 on
// as next_offset leads, the way a model pages through a long list. A page
// that carries a loading caveat, an error or a cut form ends it: the
// model would ask the whole question again, not read on.
func collectPages(ctx context.Context, call func(ctx context.Context, offset int) (toolPage, error)) (loadAnswer, error) {
	a := loadAnswer{Places: placeSet{}}
	for offset := 0; ; {
		p, err := call(ctx, offset)
		a.Calls++
		if err != nil {
			return a, err
		}
		var l toolListing
		if p.Structured != nil {
			b, _ := json.Marshal(p.Structured)
			json.Unmarshal(b, &l)
		}
		if c, ok := loadingCaveat(p, l); ok {
			a.Caveat = c
			return a, nil
		}
		if p.IsError {
			return a, fmt.Errorf("tool error: %s", firstLineOf(p.Text))
		}
		if p.Structured == nil {
			return a, fmt.Errorf("no structuredContent: %s", firstLineOf(p.Text))
		}
		if l.Form != "full" && l.Form != "no_context" {
			return a, fmt.Errorf("page at offset %d cut to form %q: its places are not listed", offset, l.Form)
		}
		for _, it := range l.Items {
			a.Places.add(it.File, it.Line)
		}
		if l.NextPage <= offset {
			return a, nil
		}
		offset = l.NextPage
	}
}

// caveatWords are what the tool's notes say of a list that may not be
// whole because a server is still starting or loading (today's "gopls is
// indexing: this empty answer may only mean it is not ready yet; try
// again in a few seconds", the wording issue 20 asks for: "pyright is
// still analysing: this list may be incomplete; ask again").
var caveatWords = []string{"may be incomplete", "not final", "not ready", "still loading", "still indexing", "still analys", "still starting", "is indexing", "is starting", "try again", "ask again"}

// loadingCaveat says whether an answer admits it may be incomplete
// because a server is not ready, and how. The one place that reads it:
// the tool states it in not_ready, and in its notes (structuredContent's
// notes and detail; an error's text), which say it also where a server's
// readiness is not known (an editor's).
func loadingCaveat(p toolPage, l toolListing) (string, bool) {
	if len(l.NotReady) > 0 {
		return l.NotReady[0].Server + " " + l.NotReady[0].State, true
	}
	texts := append(slices.Clone(l.Notes), l.Detail)
	if p.IsError || p.Structured == nil {
		// No notes to read: the text is the error or the note itself (an
		// answer's source lines are never read, a comment may say "still").
		texts = append(texts, p.Text)
	}
	for _, t := range texts {
		low := strings.ToLower(t)
		for _, w := range caveatWords {
			if strings.Contains(low, w) {
				return firstLineOf(t), true
			}
		}
	}
	return "", false
}

// judgeLoad says whether one asking of the load row's question got the
// right answer: no error, no caveat, the same places as the truth.
func judgeLoad(a loadAnswer, err error, truth placeSet) (bool, string) {
	switch {
	case err != nil:
		return false, firstLineOf(err.Error())
	case a.Caveat != "":
		return false, "caveat: " + a.Caveat
	}
	if d := a.Places.diff(truth); d != "" {
		return false, d
	}
	return true, ""
}
