package fakelsp

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// answer computes the normal result of a request from the state at receipt.
// A non-zero code means an error answer.
func (s *Server) answer(ctx context.Context, wg *sync.WaitGroup, m wireMsg) (result any, code int, msg string) {
	switch m.Method {
	case "initialize":
		return s.initialize(m.Params), 0, ""
	case "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, 0, ""
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Position position.Position `json:"position"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, CodeInvalidParams, "fakelsp: " + m.Method + ": " + err.Error()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	enc, indexing := s.enc, s.indexing
	d := s.docs[p.TextDocument.URI]
	switch m.Method {
	case "textDocument/hover", "textDocument/definition", "textDocument/documentSymbol", "textDocument/diagnostic":
		if m.Method == "textDocument/diagnostic" && !s.pulls() {
			return nil, CodeMethodNotFound, "fakelsp: pull diagnostics not offered"
		}
		if d == nil {
			return nil, CodeInvalidParams, "fakelsp: " + m.Method + ": document not open: " + p.TextDocument.URI
		}
	default:
		return nil, CodeMethodNotFound, "fakelsp: method not found: " + m.Method
	}
	switch m.Method {
	case "textDocument/hover":
		word, rng := wordAt(enc, d.text, p.Position)
		if word == "" || indexing {
			return nil, 0, ""
		}
		return map[string]any{
			"contents": map[string]any{"kind": "plaintext", "value": HoverPrefix + word},
			"range":    rng,
		}, 0, ""
	case "textDocument/definition":
		word, _ := wordAt(enc, d.text, p.Position)
		if word == "" || indexing {
			return []any{}, 0, ""
		}
		uris := slices.Sorted(maps.Keys(s.docs))
		// The document asked about first, then the others in order.
		uris = slices.DeleteFunc(uris, func(u string) bool { return u == d.uri })
		uris = append([]string{d.uri}, uris...)
		for _, u := range uris {
			names, _, sel := funcDecls(enc, s.docs[u].text)
			if i := slices.Index(names, word); i >= 0 {
				return []any{map[string]any{"uri": u, "range": sel[i]}}, 0, ""
			}
		}
		return []any{}, 0, ""
	case "textDocument/documentSymbol":
		names, ranges, sel := funcDecls(enc, d.text)
		if indexing {
			if !s.script.Indexing.Partial || len(names) == 0 {
				return []any{}, 0, ""
			}
			names = names[:1]
		}
		out := []any{}
		for i, n := range names {
			out = append(out, map[string]any{"name": n, "kind": 12, "range": ranges[i], "selectionRange": sel[i]})
		}
		return out, 0, ""
	default: // textDocument/diagnostic
		items := diagnosticsFor(enc, d.text)
		if indexing {
			items = []wire.Diagnostic{}
		}
		return map[string]any{"kind": "full", "resultId": strconv.Itoa(d.version), "items": items}, 0, ""
	}
}

// pulls reports whether textDocument/diagnostic is offered; s.mu held.
func (s *Server) pulls() bool {
	switch s.script.Diagnostics {
	case DiagPull, DiagBoth, DiagUnadvertised:
		return true
	case DiagDynamic:
		return s.pullOK
	}
	return false
}

func (s *Server) initialize(params json.RawMessage) any {
	var p struct {
		Capabilities struct {
			General struct {
				PositionEncodings []string `json:"positionEncodings"`
			} `json:"general"`
		} `json:"capabilities"`
	}
	json.Unmarshal(params, &p)
	enc := "utf-16"
	if want := s.script.PositionEncoding; want != "" && slices.Contains(p.Capabilities.General.PositionEncodings, want) {
		enc = want
	}
	s.mu.Lock()
	s.enc = enc
	s.mu.Unlock()
	caps := map[string]any{
		"positionEncoding": enc,
		"textDocumentSync": map[string]any{
			"openClose": true,
			"change":    1,
			"save":      map[string]any{"includeText": s.script.SaveIncludeText},
		},
		"hoverProvider":          true,
		"definitionProvider":     true,
		"documentSymbolProvider": true,
	}
	switch {
	case s.script.Diagnostics == DiagPull, s.script.Diagnostics == DiagBoth:
		caps["diagnosticProvider"] = map[string]any{"identifier": "fakelsp", "interFileDependencies": false, "workspaceDiagnostics": false}
	}
	return map[string]any{
		"capabilities": caps,
		"serverInfo":   map[string]any{"name": "fakelsp", "version": "0"},
	}
}
