package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
	"github.com/acp-lsp/acp-lsp/lsp/wire"
)

// This file converts between the two families of docs/protocol.md: the
// reference methods (1-based line and character, snake_case) editors and
// reference agents speak, and LSP-native JSON (0-based, UTF-16, camelCase)
// the component and local servers speak, in the module's one spelling of
// it (lsp/position, lsp/edit, lsp/wire). Character offsets count UTF-16
// code units in both; only the base differs.

// nativeToReference maps LSP methods to the reference method an editor may
// answer instead.
var nativeToReference = map[string]string{
	"textDocument/hover":          lspext.Hover,
	"textDocument/definition":     lspext.Definition,
	"textDocument/references":     lspext.References,
	"textDocument/documentSymbol": lspext.DocumentSymbols,
	"workspace/symbol":            lspext.WorkspaceSymbol,
	"textDocument/codeAction":     lspext.CodeActions,
}

// referenceToNative is the reverse of nativeToReference.
var referenceToNative = map[string]string{
	lspext.Hover:           "textDocument/hover",
	lspext.Definition:      "textDocument/definition",
	lspext.References:      "textDocument/references",
	lspext.DocumentSymbols: "textDocument/documentSymbol",
	lspext.WorkspaceSymbol: "workspace/symbol",
	lspext.CodeActions:     "textDocument/codeAction",
}

// Base conversions. A 1-based coordinate of 0 is invalid; it is read as
// the first line or character rather than rejected, as editors that
// mix conventions would otherwise lose whole answers.
func toNativePos(p lspext.Position) position.Position {
	n := position.Position{Line: p.Line, Character: p.Character}
	if n.Line > 0 {
		n.Line--
	}
	if n.Character > 0 {
		n.Character--
	}
	return n
}

func toRefPos(p position.Position) lspext.Position {
	r := lspext.Position{Line: p.Line, Character: p.Character}
	if r.Line < 1<<32-1 {
		r.Line++
	}
	if r.Character < 1<<32-1 {
		r.Character++
	}
	return r
}

func toNativeRange(r lspext.Range) position.Range {
	return position.Range{Start: toNativePos(r.Start), End: toNativePos(r.End)}
}

func toRefRange(r position.Range) lspext.Range {
	return lspext.Range{Start: toRefPos(r.Start), End: toRefPos(r.End)}
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// decodeList reads an array, also accepting null (empty) and a single
// object (one element), as editors answer either.
func decodeList[T any](raw json.RawMessage) ([]T, error) {
	t := bytes.TrimSpace(raw)
	if isNull(t) {
		return nil, nil
	}
	if t[0] == '{' {
		var one T
		if err := json.Unmarshal(t, &one); err != nil {
			return nil, err
		}
		return []T{one}, nil
	}
	var out []T
	if err := json.Unmarshal(t, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func marshal(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	return b, err
}

// ---------------------------------------------------------------------
// Native params → reference params (a request for the editor).

type nativePositionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position position.Position `json:"position"`
	Context  struct {
		IncludeDeclaration *bool             `json:"includeDeclaration"`
		Diagnostics        []wire.Diagnostic `json:"diagnostics"`
	} `json:"context"`
	Range position.Range `json:"range"`
	Query string         `json:"query"`
}

// referenceParams builds the params of reference method ref from the
// native params of the LSP request it stands for.
func referenceParams(ref string, native json.RawMessage) (json.RawMessage, error) {
	var p nativePositionParams
	if !isNull(native) {
		if err := json.Unmarshal(native, &p); err != nil {
			return nil, badParams("params: %w", err)
		}
	}
	uri := p.TextDocument.URI
	if uri == "" && ref != lspext.WorkspaceSymbol {
		return nil, badParams("params: textDocument.uri is missing")
	}
	pos := toRefPos(p.Position)
	switch ref {
	case lspext.Hover, lspext.Definition:
		return marshal(lspext.PositionParams{URI: uri, Line: pos.Line, Character: pos.Character})
	case lspext.References:
		incl := p.Context.IncludeDeclaration == nil || *p.Context.IncludeDeclaration
		return marshal(lspext.ReferencesParams{URI: uri, Line: pos.Line, Character: pos.Character, IncludeDeclaration: incl})
	case lspext.DocumentSymbols:
		return marshal(lspext.URIParams{URI: uri})
	case lspext.WorkspaceSymbol:
		return marshal(lspext.QueryParams{Query: p.Query})
	case lspext.CodeActions:
		diags := make([]lspext.Diagnostic, 0, len(p.Context.Diagnostics))
		for _, d := range p.Context.Diagnostics {
			diags = append(diags, refDiagnostic(d))
		}
		return marshal(lspext.CodeActionsParams{URI: uri, Range: toRefRange(p.Range), Diagnostics: diags})
	}
	return nil, fmt.Errorf("no reference form for %s", ref)
}

// ---------------------------------------------------------------------
// Reference results → native results (the editor's answer, for below).

// nativeResult converts the editor's answer to reference method ref into
// the native result of the LSP request it stands for. Malformed answers
// are errors that say what is wrong; nothing is guessed.
func nativeResult(ref string, raw json.RawMessage) (json.RawMessage, error) {
	switch ref {
	case lspext.Hover:
		if isNull(raw) {
			return json.RawMessage("null"), nil
		}
		var h struct {
			Contents json.RawMessage `json:"contents"`
			Range    *lspext.Range   `json:"range"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, err
		}
		text, err := markdownOf(h.Contents)
		if err != nil {
			return nil, fmt.Errorf("contents: %w", err)
		}
		out := struct {
			Contents struct {
				Kind  string `json:"kind"`
				Value string `json:"value"`
			} `json:"contents"`
			Range *position.Range `json:"range,omitempty"`
		}{}
		out.Contents.Kind, out.Contents.Value = "markdown", text
		if h.Range != nil {
			r := toNativeRange(*h.Range)
			out.Range = &r
		}
		return marshal(out)
	case lspext.Definition, lspext.References:
		locs, err := decodeList[lspext.Location](raw)
		if err != nil {
			return nil, err
		}
		out := make([]wire.Location, 0, len(locs))
		for _, l := range locs {
			if l.URI == "" {
				return nil, errors.New("location without uri")
			}
			out = append(out, wire.Location{URI: l.URI, Range: toNativeRange(l.Range)})
		}
		return marshal(out)
	case lspext.Diagnostics:
		diags, err := nativeDiagnostics(raw)
		if err != nil {
			return nil, err
		}
		return marshal(diags)
	case lspext.DocumentSymbols:
		syms, err := decodeList[refDocumentSymbol](raw)
		if err != nil {
			return nil, err
		}
		return marshal(nativeSymbols(syms, 0))
	case lspext.WorkspaceSymbol:
		syms, err := decodeList[lspext.SymbolInformation](raw)
		if err != nil {
			return nil, err
		}
		out := make([]wire.SymbolInformation, 0, len(syms))
		for _, s := range syms {
			out = append(out, wire.SymbolInformation{Name: s.Name, Kind: s.Kind, Location: wire.Location{URI: s.Location.URI, Range: toNativeRange(s.Location.Range)}})
		}
		return marshal(out)
	case lspext.CodeActions:
		acts, err := decodeList[refCodeAction](raw)
		if err != nil {
			return nil, err
		}
		out := make([]wire.CodeAction, 0, len(acts))
		for _, a := range acts {
			n := wire.CodeAction{Title: a.Title, Kind: a.Kind, IsPreferred: a.IsPreferred || a.IsPreferredCamel}
			for _, d := range a.Diagnostics {
				n.Diagnostics = append(n.Diagnostics, nativeDiagnostic(d))
			}
			if a.Edit != nil {
				we := edit.WorkspaceEdit{Changes: map[string][]edit.TextEdit{}}
				for uri, edits := range a.Edit.Changes {
					list := make([]edit.TextEdit, 0, len(edits))
					for _, e := range edits {
						text := e.NewText
						if text == "" {
							text = e.NewTextCamel
						}
						list = append(list, edit.TextEdit{Range: toNativeRange(e.Range), NewText: text})
					}
					we.Changes[uri] = list
				}
				if n.Edit, err = json.Marshal(we); err != nil {
					return nil, err
				}
			}
			out = append(out, n)
		}
		return marshal(out)
	}
	return nil, fmt.Errorf("no native form for %s", ref)
}

// refDocumentSymbol also accepts the camelCase selectionRange some editors
// send.
type refDocumentSymbol struct {
	Name                string              `json:"name"`
	Kind                int                 `json:"kind"`
	Range               lspext.Range        `json:"range"`
	SelectionRange      *lspext.Range       `json:"selection_range"`
	SelectionRangeCamel *lspext.Range       `json:"selectionRange"`
	Children            []refDocumentSymbol `json:"children"`
}

type refTextEdit struct {
	Range        lspext.Range `json:"range"`
	NewText      string       `json:"new_text"`
	NewTextCamel string       `json:"newText"`
}

type refCodeAction struct {
	Title            string              `json:"title"`
	Kind             string              `json:"kind"`
	IsPreferred      bool                `json:"is_preferred"`
	IsPreferredCamel bool                `json:"isPreferred"`
	Diagnostics      []lspext.Diagnostic `json:"diagnostics"`
	Edit             *struct {
		Changes map[string][]refTextEdit `json:"changes"`
	} `json:"edit"`
}

// maxSymbolDepth bounds symbol nesting taken from outside input.
const maxSymbolDepth = 64

func nativeSymbols(syms []refDocumentSymbol, depth int) []wire.DocumentSymbol {
	out := make([]wire.DocumentSymbol, 0, len(syms))
	for _, s := range syms {
		sel := s.Range
		if s.SelectionRange != nil {
			sel = *s.SelectionRange
		} else if s.SelectionRangeCamel != nil {
			sel = *s.SelectionRangeCamel
		}
		n := wire.DocumentSymbol{Name: s.Name, Kind: s.Kind, Range: toNativeRange(s.Range), SelectionRange: toNativeRange(sel)}
		if len(s.Children) > 0 && depth < maxSymbolDepth {
			n.Children = nativeSymbols(s.Children, depth+1)
		}
		out = append(out, n)
	}
	return out
}

func nativeDiagnostics(raw json.RawMessage) ([]wire.Diagnostic, error) {
	diags, err := decodeList[lspext.Diagnostic](raw)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Diagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, nativeDiagnostic(d))
	}
	return out, nil
}

func nativeDiagnostic(d lspext.Diagnostic) wire.Diagnostic {
	n := wire.Diagnostic{Range: toNativeRange(d.Range), Source: d.Source, Message: d.Message, Code: d.Code}
	if d.Severity >= 1 && d.Severity <= 4 {
		n.Severity = d.Severity
	}
	if isNull(n.Code) {
		n.Code = nil
	}
	return n
}

// markdownOf reads hover contents: the reference's markdown string, or
// (leniently) LSP MarkupContent, MarkedString or MarkedString[].
func markdownOf(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	if isNull(t) {
		return "", nil
	}
	switch t[0] {
	case '"':
		var s string
		err := json.Unmarshal(t, &s)
		return s, err
	case '{':
		var v struct {
			Kind     string `json:"kind"`
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		if err := json.Unmarshal(t, &v); err != nil {
			return "", err
		}
		if v.Language != "" {
			return "```" + v.Language + "\n" + v.Value + "\n```", nil
		}
		return v.Value, nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(t, &parts); err != nil {
			return "", err
		}
		var texts []string
		for _, p := range parts {
			if len(bytes.TrimSpace(p)) > 0 && bytes.TrimSpace(p)[0] == '[' {
				return "", errors.New("nested array")
			}
			s, err := markdownOf(p)
			if err != nil {
				return "", err
			}
			if s != "" {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n\n"), nil
	}
	return "", fmt.Errorf("want a markdown string, got %.20s", t)
}

// ---------------------------------------------------------------------
// Reference params → native (an agent's reference request answered by
// local servers), and native results → reference results.

// localCall is a reference request as the LSP request local servers get.
type localCall struct {
	uri    string
	method string
	params json.RawMessage
}

// nativeCall converts the params of reference method ref.
func nativeCall(ref string, raw json.RawMessage) (localCall, error) {
	var p struct {
		URI                string              `json:"uri"`
		Line               uint32              `json:"line"`
		Character          uint32              `json:"character"`
		IncludeDeclaration *bool               `json:"include_declaration"`
		Query              string              `json:"query"`
		Range              lspext.Range        `json:"range"`
		Diagnostics        []lspext.Diagnostic `json:"diagnostics"`
	}
	if isNull(raw) {
		return localCall{}, badParams("%s: params are missing", ref)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return localCall{}, badParams("%s: params: %w", ref, err)
	}
	method := referenceToNative[ref]
	if ref != lspext.WorkspaceSymbol && p.URI == "" {
		return localCall{}, badParams("%s: uri is missing", ref)
	}
	doc := map[string]string{"uri": p.URI}
	pos := toNativePos(lspext.Position{Line: p.Line, Character: p.Character})
	var params any
	switch ref {
	case lspext.Hover, lspext.Definition:
		params = map[string]any{"textDocument": doc, "position": pos}
	case lspext.References:
		incl := p.IncludeDeclaration == nil || *p.IncludeDeclaration
		params = map[string]any{"textDocument": doc, "position": pos, "context": map[string]bool{"includeDeclaration": incl}}
	case lspext.DocumentSymbols:
		params = map[string]any{"textDocument": doc}
	case lspext.WorkspaceSymbol:
		params = map[string]string{"query": p.Query}
	case lspext.CodeActions:
		diags := make([]wire.Diagnostic, 0, len(p.Diagnostics))
		for _, d := range p.Diagnostics {
			diags = append(diags, nativeDiagnostic(d))
		}
		params = map[string]any{"textDocument": doc, "range": toNativeRange(p.Range), "context": map[string]any{"diagnostics": diags}}
	default:
		return localCall{}, fmt.Errorf("no native form for %s", ref)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return localCall{}, err
	}
	return localCall{uri: p.URI, method: method, params: b}, nil
}

// referenceResult converts a local server's native result of the LSP
// request standing for ref into ref's reference result.
func referenceResult(ref string, raw json.RawMessage) (json.RawMessage, error) {
	switch ref {
	case lspext.Hover:
		if isNull(raw) {
			return json.RawMessage("null"), nil
		}
		var h struct {
			Contents json.RawMessage `json:"contents"`
			Range    *position.Range `json:"range"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, err
		}
		text, err := markdownOf(h.Contents)
		if err != nil {
			return nil, err
		}
		out := lspext.HoverResult{Contents: text}
		if h.Range != nil {
			r := toRefRange(*h.Range)
			out.Range = &r
		}
		return marshal(out)
	case lspext.Definition, lspext.References:
		locs, err := wire.ParseLocations(raw)
		if err != nil {
			return nil, err
		}
		out := make([]lspext.Location, 0, len(locs))
		for _, l := range locs {
			out = append(out, lspext.Location{URI: l.URI, Range: toRefRange(l.Range)})
		}
		return marshal(out)
	case lspext.DocumentSymbols:
		var syms []json.RawMessage
		if !isNull(raw) {
			if err := json.Unmarshal(raw, &syms); err != nil {
				return nil, err
			}
		}
		out := make([]lspext.DocumentSymbol, 0, len(syms))
		for _, s := range syms {
			var v struct {
				wire.DocumentSymbol
				// SelectionRange shadows the embedded one to tell a
				// missing selection range (read as the range) from a
				// zero one.
				SelectionRange *position.Range `json:"selectionRange"`
			}
			if err := json.Unmarshal(s, &v); err != nil {
				return nil, err
			}
			n := v.DocumentSymbol
			if n.Location != nil { // SymbolInformation: flat
				r := toRefRange(n.Location.Range)
				out = append(out, lspext.DocumentSymbol{Name: n.Name, Kind: n.Kind, Range: r, SelectionRange: r})
				continue
			}
			n.SelectionRange = n.Range
			if v.SelectionRange != nil {
				n.SelectionRange = *v.SelectionRange
			}
			out = append(out, refSymbols([]wire.DocumentSymbol{n}, 0)...)
		}
		return marshal(out)
	case lspext.WorkspaceSymbol:
		var syms []wire.SymbolInformation
		if !isNull(raw) {
			if err := json.Unmarshal(raw, &syms); err != nil {
				return nil, err
			}
		}
		out := make([]lspext.SymbolInformation, 0, len(syms))
		for _, s := range syms {
			out = append(out, lspext.SymbolInformation{Name: s.Name, Kind: s.Kind, Location: lspext.Location{URI: s.Location.URI, Range: toRefRange(s.Location.Range)}})
		}
		return marshal(out)
	case lspext.CodeActions:
		var acts []wire.CodeAction
		if !isNull(raw) {
			if err := json.Unmarshal(raw, &acts); err != nil {
				return nil, err
			}
		}
		out := make([]lspext.CodeAction, 0, len(acts))
		for _, a := range acts {
			r := lspext.CodeAction{Title: a.Title, Kind: a.Kind, IsPreferred: a.IsPreferred}
			for _, d := range a.Diagnostics {
				r.Diagnostics = append(r.Diagnostics, refDiagnostic(d))
			}
			if !isNull(a.Edit) {
				we, err := refWorkspaceEdit(a.Edit)
				if err != nil {
					return nil, err
				}
				r.Edit = we
			}
			out = append(out, r)
		}
		return marshal(out)
	}
	return nil, fmt.Errorf("no reference form for %s", ref)
}

func refSymbols(syms []wire.DocumentSymbol, depth int) []lspext.DocumentSymbol {
	out := make([]lspext.DocumentSymbol, 0, len(syms))
	for _, s := range syms {
		r := lspext.DocumentSymbol{Name: s.Name, Kind: s.Kind, Range: toRefRange(s.Range), SelectionRange: toRefRange(s.SelectionRange)}
		if len(s.Children) > 0 && depth < maxSymbolDepth {
			r.Children = refSymbols(s.Children, depth+1)
		}
		out = append(out, r)
	}
	return out
}

// refDiagnostic converts an LSP diagnostic; a numeric code becomes a
// string, as reference peers accept only strings.
func refDiagnostic(d wire.Diagnostic) lspext.Diagnostic {
	r := lspext.Diagnostic{Range: toRefRange(d.Range), Severity: d.Severity, Source: d.Source, Message: d.Message}
	if d.Severity < 1 || d.Severity > 4 {
		r.Severity = 0
	}
	code := bytes.TrimSpace(d.Code)
	switch {
	case isNull(code):
	case code[0] == '"':
		r.Code = code
	default:
		if _, err := strconv.ParseFloat(string(code), 64); err == nil {
			r.Code, _ = json.Marshal(string(code))
		}
	}
	return r
}

// refWorkspaceEdit converts an LSP WorkspaceEdit (changes, or the text
// edits of documentChanges) to the reference's changes-only form. File
// operations have no reference form and are an error rather than dropped.
func refWorkspaceEdit(raw json.RawMessage) (*lspext.WorkspaceEdit, error) {
	we, err := edit.Parse(raw)
	if err != nil {
		return nil, err
	}
	out := &lspext.WorkspaceEdit{Changes: map[string][]lspext.TextEdit{}}
	add := func(uri string, edits []edit.TextEdit) {
		for _, e := range edits {
			out.Changes[uri] = append(out.Changes[uri], lspext.TextEdit{Range: toRefRange(e.Range), NewText: e.NewText})
		}
	}
	for uri, edits := range we.Changes {
		add(uri, edits)
	}
	for _, dc := range we.DocumentChanges {
		if dc.TextDocumentEdit == nil {
			return nil, fmt.Errorf("code action edit %ss a file, which the reference shape cannot express", dc.Kind())
		}
		add(dc.TextDocumentEdit.TextDocument.URI, dc.TextDocumentEdit.Edits)
	}
	return out, nil
}

// referenceDiagnostics converts native diagnostics to the reference shape.
func referenceDiagnostics(raw json.RawMessage) ([]lspext.Diagnostic, error) {
	var diags []wire.Diagnostic
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &diags); err != nil {
			return nil, err
		}
	}
	out := make([]lspext.Diagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, refDiagnostic(d))
	}
	return out, nil
}
