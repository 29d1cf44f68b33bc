package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// target is a resolved position in a file.
type target struct {
	path string
	uri  string
	doc  *position.Document
	pos  position.Position
}

func (s *Session) readDoc(path string) (*position.Document, error) {
	doc, err := s.c.docs.read(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", relPath(s.Root, path), err)
	}
	return doc, nil
}

// position resolves file+line+symbol, file+line+column or a symbol alone.
func (s *Session) position(ctx context.Context, in Input) (*target, error) {
	if in.File == "" {
		if in.Symbol == "" {
			return nil, errors.New("give file and line with symbol (or column), or a symbol name alone")
		}
		return s.findSymbol(ctx, in.Symbol)
	}
	path, err := s.resolve(in.File)
	if err != nil {
		return nil, err
	}
	doc, err := s.readDoc(path)
	if err != nil {
		return nil, err
	}
	t := &target{path: path, uri: edit.URIFromPath(path), doc: doc}
	switch {
	case in.Line > 0 && in.Symbol != "":
		t.pos, err = doc.FromSymbol(in.Line, in.Symbol, position.UTF16)
	case in.Line > 0 && in.Column > 0:
		t.pos, err = doc.FromUser(in.Line, in.Column, position.UTF16)
	case in.Line > 0:
		return nil, fmt.Errorf("line %d needs symbol (the name on that line) or column; the line holds: %q", in.Line, doc.Line(in.Line-1))
	case in.Symbol != "":
		return s.findSymbol(ctx, in.Symbol)
	default:
		return nil, errors.New("give line with symbol (or column)")
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// findSymbol resolves a bare symbol name through workspace symbols.
func (s *Session) findSymbol(ctx context.Context, name string) (*target, error) {
	syms, ld, err := s.workspaceSymbols(ctx, name)
	if err != nil {
		return nil, err
	}
	var exact []wire.SymbolInformation
	for _, sym := range syms {
		if sym.Name == name || strings.HasSuffix(sym.Name, "."+name) {
			exact = append(exact, sym)
		}
	}
	if len(exact) == 0 {
		return nil, s.loadingErr(ctx, ld, fmt.Errorf("no symbol named %q in the workspace; give file and line", name))
	}
	if len(exact) > 1 {
		// The candidates best first, as the symbols action ranks them.
		r := s.newRenderer()
		var b strings.Builder
		fmt.Fprintf(&b, "symbol %q is ambiguous; give file and line of one of:", name)
		for i, rs := range rankSymbols(name, exact, r.where) {
			sym := rs.sym
			if i == 20 {
				fmt.Fprintf(&b, "\n  … %d more", len(exact)-20)
				break
			}
			fmt.Fprintf(&b, "\n  %s %s %s", r.loc(sym.Location.URI, sym.Location.Range.Start), kindName(sym.Kind), sym.Name)
		}
		return nil, errors.New(b.String())
	}
	loc := exact[0].Location
	path, err := edit.PathFromURI(loc.URI)
	if err != nil {
		return nil, err
	}
	if path, err = s.resolve(path); err != nil {
		return nil, err
	}
	doc, err := s.readDoc(path)
	if err != nil {
		return nil, err
	}
	return &target{path: path, uri: loc.URI, doc: doc, pos: position.Position(loc.Range.Start)}, nil
}

func textDocPos(t *target) map[string]any {
	return map[string]any{"textDocument": map[string]string{"uri": t.uri}, "position": t.pos}
}

var locationMethods = map[string]string{
	"definition":      "textDocument/definition",
	"type_definition": "textDocument/typeDefinition",
	"implementation":  "textDocument/implementation",
	"declaration":     "textDocument/declaration",
}

func (s *Session) locations(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	res, err := s.ask(ctx, t.uri, locationMethods[in.Action], textDocPos(t))
	if err != nil {
		return nil, err
	}
	locs, err := wire.ParseLocations(res.Result)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Action, err)
	}
	var ld loading
	ld.add(res)
	return s.renderLocations(ctx, in, strings.ReplaceAll(in.Action, "_", " "), locs, true, t, &ld), nil
}

func (s *Session) references(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	incl := in.IncludeDeclaration == nil || *in.IncludeDeclaration
	p := textDocPos(t)
	p["context"] = map[string]bool{"includeDeclaration": incl}
	res, err := s.ask(ctx, t.uri, "textDocument/references", p)
	if err != nil {
		return nil, err
	}
	locs, err := wire.ParseLocations(res.Result)
	if err != nil {
		return nil, fmt.Errorf("references: %w", err)
	}
	var ld loading
	ld.add(res)
	return s.renderLocations(ctx, in, "references", locs, true, t, &ld), nil
}

// renderLocations lists locs; ld says which servers were loading when
// they answered.
func (s *Session) renderLocations(ctx context.Context, in Input, title string, locs []wire.Location, context bool, known *target, ld *loading) *answer {
	r := s.newRenderer(known)
	if context && known != nil {
		r.readOutside(known.path)
	}
	items := make([]item, 0, len(locs))
	for _, l := range locs {
		it := r.item(l.URI, l.Range.Start)
		it.Outside = r.isOutside(l.URI)
		if !context {
			it.Context = ""
		}
		items = append(items, it)
	}
	sortItems(items)
	l := &listing{Title: title}
	page(in, items, l)
	r.enclose(ctx, l.Items)
	l.Notes = append(l.Notes, r.outsideNotes(l.Items)...)
	if l.Total == 0 {
		l.Notes = append(l.Notes, "the server found nothing at this position (check line and symbol; during indexing try again)")
	}
	s.markLoading(ctx, ld, l)
	return s.listed(l)
}

func (s *Session) hover(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, t.uri, "textDocument/hover", textDocPos(t))
	if err != nil {
		return nil, err
	}
	text := hoverText(raw)
	if text == "" {
		text := "no hover information at " + s.newRenderer(t).loc(t.uri, t.pos)
		if n := s.c.emptyNote(ctx); n != "" {
			text += "\nnote: " + n
		}
		return &answer{text: text, data: map[string]any{"hover": nil}}, nil
	}
	return s.textAnswer(text, map[string]any{"hover": text}, "hover", nil), nil
}

// hoverText reads MarkupContent | MarkedString | MarkedString[].
func hoverText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	return strings.TrimSpace(markupText(h.Contents))
}

func (s *Session) signatureHelp(ctx context.Context, in Input) (*answer, error) {
	t, err := s.position(ctx, in)
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, t.uri, "textDocument/signatureHelp", textDocPos(t))
	if err != nil {
		return nil, err
	}
	var sh struct {
		Signatures []struct {
			Label         string          `json:"label"`
			Documentation json.RawMessage `json:"documentation"`
		} `json:"signatures"`
		ActiveSignature int `json:"activeSignature"`
		ActiveParameter int `json:"activeParameter"`
	}
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &sh) != nil || len(sh.Signatures) == 0 {
		return &answer{text: "no signature help here (the position must be inside a call's parentheses)"}, nil
	}
	var b strings.Builder
	for i, sig := range sh.Signatures {
		mark := " "
		if i == sh.ActiveSignature {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, sig.Label)
		if d := markupText(sig.Documentation); d != "" {
			b.WriteString(indent(d))
		}
	}
	fmt.Fprintf(&b, "active parameter: %d\n", sh.ActiveParameter+1)
	return s.textAnswer(b.String(), json.RawMessage(raw), "text", nil), nil
}

func markupText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind     string `json:"kind"`
		Value    string `json:"value"`
		Language string `json:"language"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &mc) == nil {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, p := range list {
			parts = append(parts, markupText(p))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}
