package component

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// prepare prepares a hierarchy at in's position: the target, the items,
// and which servers were loading when they answered.
func (s *Session) prepare(ctx context.Context, in Input, method string) (*target, []json.RawMessage, *loading, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, nil, nil, err
	}
	res, err := s.ask(ctx, t.uri, method, textDocPos(t))
	if err != nil {
		return nil, nil, nil, err
	}
	ld := &loading{}
	ld.add(res)
	raw := res.Result
	var items []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: malformed answer: %w", method, err)
		}
	}
	if len(items) == 0 {
		err := fmt.Errorf("no callable or type at %s (give the line and symbol of a declaration or a use)", s.newRenderer().loc(t.uri, t.pos))
		return nil, nil, nil, s.loadingErr(ctx, ld, err)
	}
	return t, items, ld, nil
}

func (s *Session) callHierarchy(ctx context.Context, in Input) (*answer, error) {
	dir := cmp.Or(in.Direction, "incoming")
	if dir != "incoming" && dir != "outgoing" {
		return nil, fmt.Errorf("direction must be incoming or outgoing, not %q", dir)
	}
	t, prepared, ld, err := s.prepare(ctx, in, "textDocument/prepareCallHierarchy")
	if err != nil {
		return nil, err
	}
	r := s.newRenderer()
	var items []item
	for _, p := range prepared {
		res, err := s.c.backend.Request(ctx, t.uri, "callHierarchy/"+dir+"Calls", json.RawMessage(`{"item":`+string(p)+`}`))
		if err != nil {
			return nil, err
		}
		ld.add(res)
		raw := res.Result
		var calls []wire.HierarchyCall
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &calls); err != nil {
				return nil, fmt.Errorf("call hierarchy: malformed answer: %w", err)
			}
		}
		for _, c := range calls {
			h := c.From
			if dir == "outgoing" {
				h = c.To
			}
			if h == nil {
				continue
			}
			it := r.item(h.URI, h.SelectionRange.Start)
			it.Label = kindName(h.Kind) + " " + h.Name
			items = append(items, it)
		}
	}
	sortItems(items)
	title := "callers"
	if dir == "outgoing" {
		title = "callees"
	}
	l := &listing{Title: title}
	page(in, items, l)
	r.enclose(ctx, l.Items)
	s.markLoading(ctx, ld, l)
	return s.listed(l), nil
}

func (s *Session) typeHierarchy(ctx context.Context, in Input) (*answer, error) {
	dir := cmp.Or(in.Direction, "supertypes")
	if dir != "supertypes" && dir != "subtypes" {
		return nil, fmt.Errorf("direction must be supertypes or subtypes, not %q", dir)
	}
	t, prepared, ld, err := s.prepare(ctx, in, "textDocument/prepareTypeHierarchy")
	if err != nil {
		return nil, err
	}
	r := s.newRenderer()
	var items []item
	for _, p := range prepared {
		res, err := s.c.backend.Request(ctx, t.uri, "typeHierarchy/"+dir, json.RawMessage(`{"item":`+string(p)+`}`))
		if err != nil {
			return nil, err
		}
		ld.add(res)
		raw := res.Result
		var hs []wire.HierarchyItem
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &hs); err != nil {
				return nil, fmt.Errorf("type hierarchy: malformed answer: %w", err)
			}
		}
		for _, h := range hs {
			rel, line, col, text := r.place(h.URI, h.SelectionRange.Start)
			items = append(items, item{File: rel, Line: line, Column: col, Label: kindName(h.Kind) + " " + h.Name, Context: text})
		}
	}
	sortItems(items)
	l := &listing{Title: dir}
	page(in, items, l)
	s.markLoading(ctx, ld, l)
	return s.listed(l), nil
}
