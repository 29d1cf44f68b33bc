package lsp

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Positions cross the Manager's API in UTF-16 (the LSP default) whatever
// the server negotiated. converter rewrites every {line, character} object
// of a JSON value between the two encodings, using the text of the document
// the object belongs to: the nearest enclosing "uri", "targetUri",
// "textDocument.uri" or "changes" key, else the request's document. The
// walk is generic so that every method (locations, links, edits, symbols,
// hierarchy items, hover ranges, diagnostics) is covered without a type per
// method.
type converter struct {
	from, to position.Encoding
	// text returns the current text of the document at uri.
	text  func(uri string) (*position.Document, error)
	cache map[string]*position.Document
}

// newConverter returns a converter that reads documents through open
// (which may be nil) and falls back to the file on disk.
func newConverter(from, to position.Encoding, open func(uri string) *position.Document) *converter {
	c := &converter{from: from, to: to, cache: map[string]*position.Document{}}
	c.text = func(uri string) (*position.Document, error) {
		if open != nil {
			if d := open(uri); d != nil {
				return d, nil
			}
		}
		p, err := edit.PathFromURI(uri)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return position.NewDocument(b), nil
	}
	return c
}

// convert rewrites raw; defaultURI is the document of positions found
// outside any URI-bearing object. When the encodings agree raw is returned
// untouched (the common, free case).
func (c *converter) convert(raw json.RawMessage, defaultURI string) (json.RawMessage, error) {
	if c.from == c.to || isEmptyResult(raw) {
		return raw, nil
	}
	var v any
	if err := decode(raw, &v); err != nil {
		return nil, fmt.Errorf("convert positions: %w", err)
	}
	v = c.walk(v, defaultURI, "")
	out, err := encode(v)
	if err != nil {
		return nil, fmt.Errorf("convert positions: %w", err)
	}
	return out, nil
}

func (c *converter) doc(uri string) *position.Document {
	if d, ok := c.cache[uri]; ok {
		return d
	}
	d, err := c.text(uri)
	if err != nil {
		d = nil
	}
	c.cache[uri] = d
	return d
}

func (c *converter) walk(v any, uri, key string) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = c.walk(x[i], uri, key)
		}
		return x
	case map[string]any:
		if pos, ok := asPosition(x); ok {
			d := c.doc(uri)
			if d == nil {
				return x
			}
			q, err := d.Convert(pos, c.from, c.to)
			if err != nil {
				return x
			}
			x["line"], x["character"] = float64(q.Line), float64(q.Character)
			return x
		}
		own := uri
		if u, ok := x["uri"].(string); ok {
			own = u
		}
		if td, ok := x["textDocument"].(map[string]any); ok {
			if u, ok := td["uri"].(string); ok {
				own = u
			}
		}
		target := own
		if u, ok := x["targetUri"].(string); ok {
			target = u
		}
		for k, child := range x {
			switch k {
			case "data", "command", "textDocument", "experimental":
				// Opaque to the client, or holds no position.
				continue
			case "changes":
				if m, ok := child.(map[string]any); ok {
					for u, edits := range m {
						m[u] = c.walk(edits, u, k)
					}
					continue
				}
			case "targetRange", "targetSelectionRange":
				x[k] = c.walk(child, target, k)
				continue
			}
			x[k] = c.walk(child, own, k)
		}
		return x
	}
	return v
}

// asPosition recognises an LSP Position object.
func asPosition(m map[string]any) (position.Position, bool) {
	if len(m) != 2 {
		return position.Position{}, false
	}
	l, ok1 := m["line"].(float64)
	ch, ok2 := m["character"].(float64)
	if !ok1 || !ok2 || l < 0 || ch < 0 {
		return position.Position{}, false
	}
	return position.Position{Line: uint32(l), Character: uint32(ch)}, true
}
