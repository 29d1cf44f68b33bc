// Package edit applies LSP WorkspaceEdits to files on disk, all or nothing.
//
// Every edit is first simulated against the current disk content: URIs are
// resolved to paths and checked against the caller's root, ranges are
// converted in the edit's position encoding and checked, overlapping text
// edits in one document are rejected, versions are compared when the caller
// knows them, and resource operations (create, rename, delete) are checked
// against what the earlier operations of the same edit left. Only when the
// whole edit is valid is anything written. Writes go through a temporary
// file in the same directory and a rename, keeping the file's mode; deletes
// and overwritten files are first moved aside, so that a failure at any step
// undoes every step already done and leaves the files byte-identical to
// before. NewPlan runs the same validation and reports the new contents and
// a compact unified diff without writing; its Plan then applies exactly that.
//
// The wire types here are minimal structs decoded with encoding/json from
// the raw JSON a server sends. Callers holding go.lsp.dev/protocol values
// encode them with protocol.Marshal and call Parse.
package edit

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acp-lsp/acp-lsp/lsp/position"
)

// WorkspaceEdit is an LSP WorkspaceEdit. When DocumentChanges is present,
// Changes is ignored, as the specification prescribes for clients that
// support documentChanges. Change annotations are accepted and ignored: the
// caller asks for confirmation of the whole edit.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []DocumentChange      `json:"documentChanges,omitempty"`
}

// TextEdit replaces Range (in the edit's position encoding) with NewText.
// It also decodes AnnotatedTextEdit; a SnippetTextEdit is rejected by Parse.
type TextEdit struct {
	Range        position.Range `json:"range"`
	NewText      string         `json:"newText"`
	AnnotationID string         `json:"annotationId,omitempty"`
}

// UnmarshalJSON decodes a TextEdit, requiring newText so that a snippet
// edit or a truncated message is an error instead of a silent deletion.
func (e *TextEdit) UnmarshalJSON(b []byte) error {
	var w struct {
		Range        *position.Range `json:"range"`
		NewText      *string         `json:"newText"`
		AnnotationID string          `json:"annotationId"`
		Snippet      json.RawMessage `json:"snippet"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.Snippet != nil && w.NewText == nil:
		return errors.New("snippet text edits are not supported")
	case w.Range == nil:
		return errors.New("text edit without range")
	case w.NewText == nil:
		return errors.New("text edit without newText")
	}
	*e = TextEdit{Range: *w.Range, NewText: *w.NewText, AnnotationID: w.AnnotationID}
	return nil
}

// VersionedTextDocumentIdentifier names a document and, optionally, the
// version the edits were computed for (null means any version).
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int32 `json:"version"`
}

// TextDocumentEdit is a list of edits to one document. All ranges refer to
// the document before any of these edits; they must not overlap.
type TextDocumentEdit struct {
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
}

// CreateFileOptions are the options of a CreateFile. Overwrite wins over
// IgnoreIfExists.
type CreateFileOptions struct {
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

// CreateFile creates an empty file, and any missing parent directories.
type CreateFile struct {
	URI     string             `json:"uri"`
	Options *CreateFileOptions `json:"options,omitempty"`
}

// RenameFileOptions are the options of a RenameFile. Overwrite wins over
// IgnoreIfExists.
type RenameFileOptions struct {
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

// RenameFile renames a file or directory, creating missing parent
// directories of the new name.
type RenameFile struct {
	OldURI  string             `json:"oldUri"`
	NewURI  string             `json:"newUri"`
	Options *RenameFileOptions `json:"options,omitempty"`
}

// DeleteFileOptions are the options of a DeleteFile.
type DeleteFileOptions struct {
	Recursive         bool `json:"recursive,omitempty"`
	IgnoreIfNotExists bool `json:"ignoreIfNotExists,omitempty"`
}

// DeleteFile deletes a file, or a directory (which must be empty unless
// Recursive is set).
type DeleteFile struct {
	URI     string             `json:"uri"`
	Options *DeleteFileOptions `json:"options,omitempty"`
}

// DocumentChange is one entry of WorkspaceEdit.documentChanges: exactly one
// of its fields is set.
type DocumentChange struct {
	TextDocumentEdit *TextDocumentEdit
	CreateFile       *CreateFile
	RenameFile       *RenameFile
	DeleteFile       *DeleteFile
}

// UnmarshalJSON decodes a document change by its "kind" field; an entry
// without kind is a TextDocumentEdit.
func (c *DocumentChange) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*c = DocumentChange{}
	switch k.Kind {
	case "":
		c.TextDocumentEdit = new(TextDocumentEdit)
		return json.Unmarshal(b, c.TextDocumentEdit)
	case "create":
		c.CreateFile = new(CreateFile)
		return json.Unmarshal(b, c.CreateFile)
	case "rename":
		c.RenameFile = new(RenameFile)
		return json.Unmarshal(b, c.RenameFile)
	case "delete":
		c.DeleteFile = new(DeleteFile)
		return json.Unmarshal(b, c.DeleteFile)
	}
	return fmt.Errorf("unknown document change kind %q", k.Kind)
}

// Kind returns the change's "kind" on the wire: "create", "rename" or
// "delete", and "" for a TextDocumentEdit (or an empty change).
func (c DocumentChange) Kind() string {
	switch {
	case c.CreateFile != nil:
		return "create"
	case c.RenameFile != nil:
		return "rename"
	case c.DeleteFile != nil:
		return "delete"
	}
	return ""
}

// MarshalJSON encodes the set field with its "kind".
func (c DocumentChange) MarshalJSON() ([]byte, error) {
	switch {
	case c.TextDocumentEdit != nil:
		return json.Marshal(c.TextDocumentEdit)
	case c.CreateFile != nil:
		return json.Marshal(struct {
			Kind string `json:"kind"`
			*CreateFile
		}{c.Kind(), c.CreateFile})
	case c.RenameFile != nil:
		return json.Marshal(struct {
			Kind string `json:"kind"`
			*RenameFile
		}{c.Kind(), c.RenameFile})
	case c.DeleteFile != nil:
		return json.Marshal(struct {
			Kind string `json:"kind"`
			*DeleteFile
		}{c.Kind(), c.DeleteFile})
	}
	return nil, errors.New("empty document change")
}

// Parse decodes a WorkspaceEdit from the raw JSON a server sent (the result
// of textDocument/rename, the edit of a code action, or the params.edit of
// workspace/applyEdit).
func Parse(raw []byte) (*WorkspaceEdit, error) {
	var we WorkspaceEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("edit: parse workspace edit: %w", err)
	}
	return &we, nil
}
