// Package component is the downstream half of acp-lsp: it gives every agent
// session one MCP tool, `lsp`, answered through the `_lsp/*` ACP extension by
// whoever sits above it in the chain (acp-lsp's adapter, or an editor that
// speaks the extension), and keeps the newest diagnostics it hears of.
//
// The component never talks to language servers itself. Everything it asks
// goes through a Backend, whose wire implementation (Wire) sends the
// vocabulary of package internal/lspext over a "call upstream" function the
// proxy integration provides.
package component
