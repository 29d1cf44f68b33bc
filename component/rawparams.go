package component

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
)

// A raw request's params are the model's to write: any string in them may
// be a document a server then reads. Every one that is a file: URI (under
// any key, in arrays and nested objects, or an object key itself, as
// WorkspaceEdit.changes has) is checked as the file argument is. Other
// schemes (untitled:, http:, a server's own such as jdt:) name no file on
// disk the workspace could hold and are passed on as they are.

// Bounds of the walk: params nesting deeper, or holding more file URIs
// (each costs a path resolution), are refused rather than checked in part.
const (
	maxParamsDepth = 64
	maxParamsURIs  = 1000
)

// paramFileURIs returns the distinct file: URIs (see isFileURI) among the
// strings and object keys of params, one JSON value, in order of first
// appearance.
func paramFileURIs(params json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	seen := map[string]bool{}
	var out []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth != 0 {
				return nil, errors.New("params: unexpected end of JSON")
			}
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if depth++; depth > maxParamsDepth {
					return nil, fmt.Errorf("params nest deeper than %d levels", maxParamsDepth)
				}
			} else {
				depth--
			}
		case string:
			if isFileURI(v) && !seen[v] {
				if len(out) == maxParamsURIs {
					return nil, fmt.Errorf("params hold more than %d file URIs", maxParamsURIs)
				}
				seen[v] = true
				out = append(out, v)
			}
		}
		if depth == 0 && dec.More() {
			return nil, errors.New("params: more than one JSON value")
		}
	}
}

// isFileURI reports whether s is a file: URI: its scheme compared without
// regard to case (as URI parsers do), after any leading spaces or control
// characters, which lenient parsers skip.
func isFileURI(s string) bool {
	s = strings.TrimLeftFunc(s, isSkipped)
	return len(s) >= 5 && strings.EqualFold(s[:5], "file:")
}

// isSkipped reports whether r is a character lenient URI parsers skip
// before the scheme.
func isSkipped(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// checkParamURIs refuses params holding a file URI that names no path
// inside the session's workspace, links resolved (Session.resolve), or
// that acp-lsp cannot read as a local path (a remote host, a relative
// path, a query): what it cannot check, it does not send.
func (s *Session) checkParamURIs(params json.RawMessage) error {
	uris, err := paramFileURIs(params)
	if err != nil {
		return err
	}
	for _, u := range uris {
		p, err := edit.PathFromURI(strings.TrimLeftFunc(u, isSkipped))
		if err != nil {
			return fmt.Errorf("params hold %q, which names no local file: %w", u, err)
		}
		if _, err := s.resolve(p); err != nil {
			return fmt.Errorf("params hold %q: %w", u, err)
		}
	}
	return nil
}

// rawParams accepts params as JSON or as a string holding JSON (clients
// that pass every argument as a string).
func rawParams(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if str, ok := v.(string); ok {
		if !json.Valid([]byte(str)) {
			return nil, fmt.Errorf("params is not JSON: %q", str)
		}
		return json.RawMessage(str), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return b, nil
}
