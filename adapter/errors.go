package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/acp-lsp/acp-lsp/internal/lspext"
	"github.com/acp-lsp/acp-lsp/lsp"
	"github.com/acp-lsp/acp-lsp/proxy"
)

// JSON-RPC codes beyond package proxy's.
const (
	codeContentModified = -32801
	codeServerCancelled = -32802
)

// IndexingData is the error data of an answer refused because the server
// is still loading the project (docs/protocol.md, Conventions): askers
// render it as "indexing, try again", never as an empty result.
type IndexingData struct {
	Indexing bool     `json:"indexing"`
	Server   string   `json:"server"`
	Work     []string `json:"work,omitempty"`
	// Progress is the loading work as the server last reported it.
	Progress []lspext.Progress `json:"progress,omitempty"`
}

// paramsError is bad input from the asker: -32602.
type paramsError struct{ err error }

func (e *paramsError) Error() string { return e.err.Error() }
func (e *paramsError) Unwrap() error { return e.err }

func badParams(format string, args ...any) error {
	return &paramsError{fmt.Errorf(format, args...)}
}

// unsupported is a method nobody in the chain answers: -32601.
func unsupported(format string, args ...any) error {
	return &proxy.Error{Code: proxy.CodeMethodNotFound, Message: fmt.Sprintf(format, args...)}
}

// rpcError turns what answering method failed with into the JSON-RPC error
// the asker gets. The message says what happened in words a model can act
// on; the code is the standard one.
func rpcError(ctx context.Context, method string, err error) *proxy.Error {
	var pe *proxy.Error
	if errors.As(err, &pe) {
		return pe
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return &proxy.Error{Code: proxy.CodeRequestCancelled, Message: method + ": request cancelled"}
	}
	var re *lsp.ResponseError
	if errors.As(err, &re) {
		e := &proxy.Error{Code: int(re.Code), Message: err.Error()}
		if len(re.Data) > 0 && json.Valid(re.Data) {
			e.Data = re.Data
		}
		return e
	}
	var ie *lsp.IndexingError
	if errors.As(err, &ie) {
		// The data lets the asker (the component) say "indexing" rather
		// than show an error or an empty result.
		data, _ := json.Marshal(IndexingData{Indexing: true, Server: ie.Server, Work: ie.Work(), Progress: progress(ie.Progress)})
		return &proxy.Error{Code: proxy.CodeInternalError, Message: method + ": " + err.Error(), Data: data}
	}
	// A file outside the workspace, too large, binary or gone is the
	// asker's to fix, not a server failure.
	var bad *paramsError
	var fe *lsp.FileError
	switch {
	case errors.As(err, &bad), errors.Is(err, lsp.ErrOutsideWorkspace), errors.As(err, &fe), errors.Is(err, fs.ErrNotExist):
		return &proxy.Error{Code: proxy.CodeInvalidParams, Message: method + ": " + err.Error()}
	}
	return &proxy.Error{Code: proxy.CodeInternalError, Message: method + ": " + err.Error()}
}

// isCode reports whether err is a JSON-RPC error with code.
func isCode(err error, code int) bool {
	var pe *proxy.Error
	return errors.As(err, &pe) && pe.Code == code
}
