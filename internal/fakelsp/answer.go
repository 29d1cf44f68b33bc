package fakelsp

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	case "workspace/diagnostic":
		if !s.script.WorkspaceDiagnostics {
			return nil, CodeMethodNotFound, "fakelsp: workspace diagnostics not offered"
		}
		return s.workspaceDiagnostics(m.Params), 0, ""
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Position position `json:"position"`
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
		uris := make([]string, 0, len(s.docs))
		for u := range s.docs {
			uris = append(uris, u)
		}
		slices.Sort(uris)
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
		if indexing {
			return []any{}, 0, ""
		}
		names, ranges, sel := funcDecls(enc, d.text)
		out := []any{}
		for i, n := range names {
			out = append(out, map[string]any{"name": n, "kind": 12, "range": ranges[i], "selectionRange": sel[i]})
		}
		return out, 0, ""
	default: // textDocument/diagnostic
		items := diagnosticsFor(enc, d.text)
		if indexing {
			items = []diagnostic{}
		}
		return map[string]any{"kind": "full", "resultId": strconv.Itoa(d.version), "items": items}, 0, ""
	}
}

// workspaceDiagnostics answers workspace/diagnostic: a report for every
// *.fk file under the workspace folders. The result id is a hash of the
// text; a file whose previous result id still matches is "unchanged".
func (s *Server) workspaceDiagnostics(params json.RawMessage) any {
	var p struct {
		PreviousResultIDs []struct {
			URI   string `json:"uri"`
			Value string `json:"value"`
		} `json:"previousResultIds"`
	}
	json.Unmarshal(params, &p)
	prev := map[string]string{}
	for _, r := range p.PreviousResultIDs {
		prev[r.URI] = r.Value
	}
	s.mu.Lock()
	folders, enc := s.folders, s.enc
	open := map[string]document{}
	for u, d := range s.docs {
		open[u] = *d
	}
	s.mu.Unlock()
	items := []any{}
	for _, f := range folders {
		root, err := pathOf(f)
		if err != nil {
			continue
		}
		var uris []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fk") {
				uris = append(uris, (&url.URL{Scheme: "file", Path: p}).String())
			}
			return nil
		})
		slices.Sort(uris)
		for _, u := range uris {
			item := map[string]any{"uri": u, "kind": "full", "version": nil}
			text := ""
			if d, ok := open[u]; ok {
				text = d.text
				item["version"] = d.version
			} else {
				p, _ := pathOf(u)
				b, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				text = string(b)
			}
			h := fnv.New64a()
			h.Write([]byte(text))
			item["resultId"] = strconv.FormatUint(h.Sum64(), 16)
			if prev[u] == item["resultId"] {
				item["kind"] = "unchanged"
			} else {
				item["items"] = orEmpty(diagnosticsFor(enc, text))
			}
			items = append(items, item)
		}
	}
	return map[string]any{"items": items}
}

func orEmpty(d []diagnostic) []diagnostic {
	if d == nil {
		return []diagnostic{}
	}
	return d
}

// pathOf returns the file path of a file: URI.
func pathOf(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", errors.New("fakelsp: not a file URI: " + uri)
	}
	return u.Path, nil
}

// pulls reports whether textDocument/diagnostic is offered; s.mu held.
func (s *Server) pulls() bool {
	switch s.script.Diagnostics {
	case DiagPull, DiagBoth:
		return true
	case DiagDynamic:
		return s.pullOK
	}
	return s.script.WorkspaceDiagnostics
}

func (s *Server) initialize(params json.RawMessage) any {
	var p struct {
		Capabilities struct {
			General struct {
				PositionEncodings []string `json:"positionEncodings"`
			} `json:"general"`
		} `json:"capabilities"`
		RootURI          string `json:"rootUri"`
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
	}
	json.Unmarshal(params, &p)
	var folders []string
	for _, f := range p.WorkspaceFolders {
		folders = append(folders, f.URI)
	}
	if len(folders) == 0 && p.RootURI != "" {
		folders = []string{p.RootURI}
	}
	s.mu.Lock()
	s.folders = folders
	s.mu.Unlock()
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
	case s.script.WorkspaceDiagnostics:
		caps["diagnosticProvider"] = map[string]any{"identifier": "fakelsp", "interFileDependencies": false, "workspaceDiagnostics": true}
	case s.script.Diagnostics == DiagPull, s.script.Diagnostics == DiagBoth:
		caps["diagnosticProvider"] = map[string]any{"identifier": "fakelsp", "interFileDependencies": false, "workspaceDiagnostics": false}
	}
	return map[string]any{
		"capabilities": caps,
		"serverInfo":   map[string]any{"name": "fakelsp", "version": "0"},
	}
}
