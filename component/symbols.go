package component

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum_member", "struct", "event", "operator", "type_parameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return fmt.Sprintf("kind%d", k)
}

func kindMatches(filter string, k int) bool {
	if filter == "" {
		return true
	}
	f := strings.ReplaceAll(strings.ToLower(filter), " ", "_")
	return kindName(k) == f || kindName(k) == strings.ReplaceAll(f, "typeparameter", "type_parameter")
}

// workspaceSymbols returns the workspace symbols matching query and which
// servers were loading when they answered.
func (s *Session) workspaceSymbols(ctx context.Context, query string) ([]wire.SymbolInformation, *loading, error) {
	res, err := s.ask(ctx, "", "workspace/symbol", map[string]string{"query": query})
	if err != nil {
		return nil, nil, err
	}
	ld := &loading{}
	ld.add(res)
	raw := res.Result
	var syms []wire.SymbolInformation
	if len(raw) > 0 && string(raw) != "null" {
		// encoding/json's semantics on go-json-experiment's engine
		// (built in already, for go.lsp.dev/protocol): this answer is the
		// largest a tool call decodes (13 KB for 44 symbols on the bench's
		// workspace), and this decodes it in less than half the time.
		if err := jsonv1.Unmarshal(raw, &syms); err != nil {
			return nil, nil, fmt.Errorf("workspace symbols: malformed answer: %w", err)
		}
	}
	return syms, ld, nil
}

func (s *Session) symbols(ctx context.Context, in Input) (*answer, error) {
	r := s.newRenderer()
	var items []item
	outside := 0
	title := "symbols"
	ld := &loading{}
	if in.Query != "" || in.File == "" {
		if in.Query == "" {
			return nil, fmt.Errorf("symbols needs file (its symbols) or query (search the workspace)")
		}
		syms, wld, err := s.workspaceSymbols(ctx, in.Query)
		if err != nil {
			return nil, err
		}
		ld = wld
		title = fmt.Sprintf("workspace symbols matching %q", in.Query)
		for _, rs := range rankSymbols(in.Query, syms, r.where) {
			sym := rs.sym
			if !kindMatches(in.Kind, sym.Kind) {
				continue
			}
			if rs.keys[2] == placeOutside {
				outside++ // dependencies, the standard library
				continue
			}
			rel, line, col, _ := r.place(sym.Location.URI, sym.Location.Range.Start)
			items = append(items, item{File: rel, Line: line, Column: col, Label: symbolLabel(sym)})
		}
	} else {
		path, err := s.resolve(in.File)
		if err != nil {
			return nil, err
		}
		uri := edit.URIFromPath(path)
		res, err := s.ask(ctx, uri, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": uri}})
		if err != nil {
			return nil, err
		}
		ld.add(res)
		raw := res.Result
		var syms []wire.DocumentSymbol
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &syms); err != nil {
				return nil, fmt.Errorf("document symbols: malformed answer: %w", err)
			}
		}
		title = "symbols in " + relPath(s.Root, path)
		var walk func([]wire.DocumentSymbol, string)
		walk = func(list []wire.DocumentSymbol, prefix string) {
			for _, sym := range list {
				start, u := sym.SelectionRange.Start, uri
				if sym.Location != nil {
					start, u = sym.Location.Range.Start, sym.Location.URI
				}
				if kindMatches(in.Kind, sym.Kind) {
					rel, line, col, _ := r.place(u, start)
					label := prefix + kindName(sym.Kind) + " " + sym.Name
					if sym.Detail != "" {
						label += " " + firstLine(sym.Detail)
					}
					items = append(items, item{File: rel, Line: line, Column: col, Label: label})
				}
				walk(sym.Children, prefix+"  ")
			}
		}
		walk(syms, "")
	}
	l := &listing{Title: title}
	page(in, items, l)
	if in.Query != "" || in.File == "" {
		// Ranked, paged, then shown file by file: page one holds the
		// best matches, the best first.
		groupByFirstFile(l.Items)
	}
	if outside > 0 {
		l.Notes = append(l.Notes, fmt.Sprintf("%d more outside the workspace (dependencies) left out", outside))
	}
	if l.Total == 0 && in.Kind != "" {
		l.Notes = append(l.Notes, fmt.Sprintf("nothing of kind %q; call again without kind to see every symbol", in.Kind))
	}
	s.markLoading(ctx, ld, l)
	return s.listed(l), nil
}

// symbolLabel is a workspace symbol's kind and name, and its container
// when the name does not say it already: gopls qualifies a name with its
// package's path when the query matched there
// ("example.com/m/checker_test.TestCheck") and names the same path as the
// container, which said twice cost a third of a long answer's text.
func symbolLabel(sym wire.SymbolInformation) string {
	label := kindName(sym.Kind) + " " + sym.Name
	if c := sym.ContainerName; c != "" && !strings.HasPrefix(sym.Name, c+".") {
		label += " (in " + c + ")"
	}
	return label
}
