package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"

	"github.com/acp-lsp/acp-lsp/lsp/edit"
	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Position is an LSP position in UTF-16 code units, 0-based.
type Position = position.Position

// The tests ask for hovers, definitions and the like the way acp-lsp
// does: the adapter hands the LSP params of an `_lsp/request` to
// Manager.Request as they are. These build those params for a file path.

// positional sends method with textDocument and position params plus
// extra (",\"key\":value" members, or "").
func positional(ctx context.Context, m *Manager, path, method string, pos Position, extra string) (json.RawMessage, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	params := `{"textDocument":{"uri":` + mustString(edit.URIFromPath(abs)) + `},"position":{"line":` +
		strconv.FormatUint(uint64(pos.Line), 10) + `,"character":` + strconv.FormatUint(uint64(pos.Character), 10) + `}` + extra + `}`
	return m.Request(ctx, path, method, json.RawMessage(params))
}

// definition returns textDocument/definition's result.
func definition(ctx context.Context, m *Manager, path string, pos Position) (json.RawMessage, error) {
	return positional(ctx, m, path, "textDocument/definition", pos, "")
}

// references returns textDocument/references' result.
func references(ctx context.Context, m *Manager, path string, pos Position, includeDeclaration bool) (json.RawMessage, error) {
	return positional(ctx, m, path, "textDocument/references", pos, `,"context":{"includeDeclaration":`+strconv.FormatBool(includeDeclaration)+`}`)
}

// hover returns textDocument/hover's result.
func hover(ctx context.Context, m *Manager, path string, pos Position) (json.RawMessage, error) {
	return positional(ctx, m, path, "textDocument/hover", pos, "")
}

// rename returns textDocument/rename's WorkspaceEdit.
func rename(ctx context.Context, m *Manager, path string, pos Position, newName string) (json.RawMessage, error) {
	return positional(ctx, m, path, "textDocument/rename", pos, `,"newName":`+mustString(newName))
}

// documentSymbols returns textDocument/documentSymbol's result.
func documentSymbols(ctx context.Context, m *Manager, path string) (json.RawMessage, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return m.Request(ctx, path, "textDocument/documentSymbol", json.RawMessage(`{"textDocument":{"uri":`+mustString(edit.URIFromPath(abs))+`}}`))
}
