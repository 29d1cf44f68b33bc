package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/regfile"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Positions cross the Manager's API in UTF-16 (the LSP default) whatever
// the server negotiated. converter rewrites every {line, character} object
// of a JSON value between the two encodings, using the text of the document
// the object belongs to: the nearest enclosing "uri", "targetUri",
// "textDocument.uri", "from.uri" (for "fromRanges") or "changes" key, else
// the request's document (read under its old name when a RenameFile earlier
// in the same documentChanges moved it). The walk is generic so that every
// method (locations, links, edits, symbols, hierarchy items, hover ranges,
// diagnostics) is covered without a type per method.
type converter struct {
	from, to position.Encoding
	// text returns the current text of the document at uri.
	text  func(uri string) (*position.Document, error)
	cache map[string]*position.Document
	// moved lists the renames (RenameFile) met so far, {new, old} paths in
	// order: a text edit listed after one in documentChanges names a path
	// that does not exist until the edit is applied, and its positions
	// count in the text now under the old path.
	moved [][2]string
}

// newConverter returns a converter that reads documents through open
// (which may be nil) and falls back to the file on disk: a regular file
// of at most limit bytes (negative: any size), as a server's answer may
// name any path (regfile.Read). A position in another file is left
// as it is.
func newConverter(from, to position.Encoding, open func(uri string) *position.Document, limit int64) *converter {
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
		b, _, err := regfile.Read(p, limit)
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
	uri = c.source(uri)
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

// source returns the URI of the text that the document at uri will have
// when the renames met so far have been applied: its old name, or its old
// path inside a renamed folder. Later renames are undone first, so chains
// (a to b, then b to c) resolve.
func (c *converter) source(uri string) string {
	if len(c.moved) == 0 {
		return uri
	}
	p, err := edit.PathFromURI(uri)
	if err != nil {
		return uri
	}
	orig := p
	for i := len(c.moved) - 1; i >= 0; i-- {
		rest, ok := strings.CutPrefix(p, c.moved[i][0])
		if ok && (rest == "" || rest[0] == filepath.Separator) {
			p = c.moved[i][1] + rest
		}
	}
	if p == orig {
		return uri
	}
	return edit.URIFromPath(p)
}

// rename records a RenameFile operation x, if it is one.
func (c *converter) rename(x map[string]any) {
	if kind, _ := x["kind"].(string); kind != "rename" {
		return
	}
	o, ok1 := x["oldUri"].(string)
	n, ok2 := x["newUri"].(string)
	if !ok1 || !ok2 {
		return
	}
	op, err1 := edit.PathFromURI(o)
	np, err2 := edit.PathFromURI(n)
	if err1 == nil && err2 == nil {
		c.moved = append(c.moved, [2]string{np, op})
	}
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
		c.rename(x)
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
		// An incoming call's fromRanges are in the caller's document
		// (from.uri), not in the callee's that the request named; an
		// outgoing call has no "from" and its fromRanges stay in own.
		caller := own
		if f, ok := x["from"].(map[string]any); ok {
			if u, ok := f["uri"].(string); ok {
				caller = u
			}
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
			case "fromRanges":
				x[k] = c.walk(child, caller, k)
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

// ConvertPositions rewrites every {line, character} of raw, an LSP JSON
// value (params or a result), from one position encoding to another, as
// the Manager does at its edge: for a peer that counts in another
// encoding than this package's UTF-16 API, such as an editor's language
// server reached through ACP's lsp/request. Documents are read from disk,
// regular files of at most limit bytes (0: DefaultMaxFileSize, negative:
// any size); defaultURI is the document of positions outside any
// URI-bearing object. Equal encodings return raw untouched.
func ConvertPositions(raw json.RawMessage, defaultURI string, from, to position.Encoding, limit int64) (json.RawMessage, error) {
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	return newConverter(from, to, nil, limit).convert(raw, defaultURI)
}
