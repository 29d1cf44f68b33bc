// Package acpclient holds what acp-lsp's own ACP clients (the demo, the
// doctor's agent probe, the tests' clients) share: the client methods
// none of them serves.
package acpclient

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// Refusing answers every client method that acts on the user's machine
// (files, terminals) with "method not found", as a client without those
// capabilities does, and cancels permission requests. Embed it and
// override what a client does serve. Its methods hold no state and may be
// called concurrently.
type Refusing struct{}

// RequestPermission cancels: nothing is allowed.
func (Refusing) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
}

// SessionUpdate ignores the update.
func (Refusing) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

// ReadTextFile is refused.
func (Refusing) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

// WriteTextFile is refused.
func (Refusing) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

// CreateTerminal is refused.
func (Refusing) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

// KillTerminal is refused.
func (Refusing) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

// TerminalOutput is refused.
func (Refusing) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

// ReleaseTerminal is refused.
func (Refusing) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

// WaitForTerminalExit is refused.
func (Refusing) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

var _ acp.Client = Refusing{}
