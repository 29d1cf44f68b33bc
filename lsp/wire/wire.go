// Package wire holds the LSP-native JSON shapes acp-lsp reads from and
// writes to language servers, apart from two families that have packages of
// their own: a position and a range are position.Position and
// position.Range, a text edit and a workspace edit edit.TextEdit and
// edit.WorkspaceEdit. Everything here is built from those, so each LSP
// value has one Go spelling in the module.
//
// The structs are plain and decode with encoding/json (go.lsp.dev/protocol's
// types do not round-trip under it on Go 1.26; see lsp/codec.go). Fields
// the callers only pass back to a server are kept as sent, as raw JSON.
//
// The _lsp/* extension of ACP (1-based positions, snake_case) is a
// different protocol with its own types in internal/lspext.
package wire

import (
	"encoding/json"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// Location is an LSP Location: a range in the document at URI.
type Location struct {
	URI   string         `json:"uri"`
	Range position.Range `json:"range"`
}

// Diagnostic is an LSP Diagnostic. The fields acp-lsp does not read are
// kept as sent: they go back to the server in a code-action request's
// context, and servers find their quick fixes by them (acp-lsp advertises
// dataSupport, so gopls and rust-analyzer put the fix's key in data).
type Diagnostic struct {
	Range              position.Range  `json:"range"`
	Severity           int             `json:"severity,omitempty"`
	Code               json.RawMessage `json:"code,omitempty"`
	CodeDescription    json.RawMessage `json:"codeDescription,omitempty"`
	Source             string          `json:"source,omitempty"`
	Message            string          `json:"message"`
	Tags               json.RawMessage `json:"tags,omitempty"`
	RelatedInformation json.RawMessage `json:"relatedInformation,omitempty"`
	Data               json.RawMessage `json:"data,omitempty"`
}

// DocumentSymbol is an LSP DocumentSymbol, or an element of the flat form
// a textDocument/documentSymbol answer may take instead (SymbolInformation):
// that form sets Location and leaves Range and SelectionRange zero.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          position.Range   `json:"range"`
	SelectionRange position.Range   `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
	// Location is set by the flat SymbolInformation form only.
	Location *Location `json:"location,omitempty"`
}

// SymbolInformation is an LSP SymbolInformation (or a WorkspaceSymbol
// whose location has a range; a missing range decodes as zero).
type SymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	ContainerName string   `json:"containerName,omitempty"`
	Location      Location `json:"location"`
}

// CodeAction is an LSP CodeAction. Its edit, command and data are kept as
// sent: the edit is parsed where it is applied (edit.Parse), the rest goes
// back to the server.
type CodeAction struct {
	Title       string       `json:"title"`
	Kind        string       `json:"kind,omitempty"`
	IsPreferred bool         `json:"isPreferred,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	Disabled    *struct {
		Reason string `json:"reason"`
	} `json:"disabled,omitempty"`
	Edit    json.RawMessage `json:"edit,omitempty"`
	Command json.RawMessage `json:"command,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// HierarchyItem is an LSP CallHierarchyItem or TypeHierarchyItem (the two
// have the same shape). Data is kept as sent, for the follow-up request.
type HierarchyItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          position.Range  `json:"range"`
	SelectionRange position.Range  `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// HierarchyCall is an LSP CallHierarchyIncomingCall (From set) or
// CallHierarchyOutgoingCall (To set).
type HierarchyCall struct {
	From       *HierarchyItem   `json:"from,omitempty"`
	To         *HierarchyItem   `json:"to,omitempty"`
	FromRanges []position.Range `json:"fromRanges"`
}
