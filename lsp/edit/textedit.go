package edit

import (
	"errors"
	"fmt"
	"sort"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// ErrOverlap is returned (wrapped) when two text edits of one document
// overlap.
var ErrOverlap = errors.New("overlapping text edits")

// ErrRange is returned (wrapped) for a text edit range that does not fit the
// document (a line past the end, an end before its start, or, in strict
// mode, a character past the line end or inside a character).
var ErrRange = errors.New("text edit range does not fit the document")

// span is one text edit resolved to byte offsets.
type span struct {
	start, end int
	text       string
	index      int // position in the original list, for messages and order
}

// applyTextEdits returns d's text with edits applied, and the edits as
// byte spans sorted by where they start. All ranges refer to d,
// counted in enc. Ranges are read with the LSP specification's
// leniency (a character past the end of a line means the end of the line)
// unless strict is set, in which case they must name exact character
// boundaries. Overlapping ranges are an error; edits inserting at the same
// position keep their list order, and an insertion at the start of a
// replaced range comes before the replacement text.
func applyTextEdits(d *position.Document, edits []TextEdit, enc position.Encoding, strict bool) ([]byte, []span, error) {
	spans := make([]span, len(edits))
	for i, e := range edits {
		var start, end int
		var err error
		if strict {
			start, err = d.OffsetExact(e.Range.Start, enc)
			if err == nil {
				end, err = d.OffsetExact(e.Range.End, enc)
			}
		} else {
			start, err = d.Offset(e.Range.Start, enc)
			if err == nil {
				end, err = d.Offset(e.Range.End, enc)
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("text edit %d (range %s): %w: %w", i, e.Range, ErrRange, err)
		}
		if e.Range.End.Less(e.Range.Start) {
			return nil, nil, fmt.Errorf("text edit %d: range %s ends before it starts: %w", i, e.Range, ErrRange)
		}
		spans[i] = span{start: start, end: end, text: e.NewText, index: i}
	}
	sort.SliceStable(spans, func(a, b int) bool {
		if spans[a].start != spans[b].start {
			return spans[a].start < spans[b].start
		}
		return spans[a].end < spans[b].end
	})
	size := d.Len()
	for i := range spans {
		if i > 0 && spans[i-1].end > spans[i].start {
			a, b := spans[i-1], spans[i]
			return nil, nil, fmt.Errorf("text edits %d (range %s) and %d (range %s): %w",
				a.index, edits[a.index].Range, b.index, edits[b.index].Range, ErrOverlap)
		}
		size += len(spans[i].text) - (spans[i].end - spans[i].start)
	}
	text := d.Text()
	out := make([]byte, 0, size)
	last := 0
	for _, s := range spans {
		out = append(out, text[last:s.start]...)
		out = append(out, s.text...)
		last = s.end
	}
	out = append(out, text[last:]...)
	return out, spans, nil
}
